// The Testcontainers module (clients/testcontainers, built by `npm run build` there) as a
// Node e2e suite uses it: the image started with a scenario directory and a seed, a
// conversation through its chat URL, and its admin client — test id, force, faults,
// journal, reset.
//
// Without a Docker daemon these tests skip loudly outside CI (see docker.js).

import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation } from './clients.js';
import { describeUnless, docker, IMAGE, skipReason } from './docker.js';
import { makeTempDir, startServer } from './harness.js';
import { streamedTexts } from './threads.js';

// Ryuk, Testcontainers' reaper, is an image of its own, which cannot be pulled here; the
// tests stop what they start.
process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
const { AguiMockContainer } = await import('../../clients/testcontainers/dist/index.js');

const ORDER = `id: order-status
match: {message: "(?i)where is order (?P<number>\\\\d+)"}
steps:
  - text: Order {{ .captures.number }} has shipped, tracking {{ UUID }}.
`;

describeUnless(skipReason, 'AguiMockContainer (Testcontainers)', () => {
  const scenarios = makeTempDir('agui-mock-testcontainers-');
  let mock;

  before(async () => {
    writeFileSync(path.join(scenarios, 'order-status.yaml'), ORDER, { mode: 0o644 });
    chmodSync(scenarios, 0o755);
    mock = await new AguiMockContainer(IMAGE).withScenarios(scenarios).withSeed(7).withSpeed(0).start();
  });

  after(async () => {
    const id = mock?.getId();
    await mock?.stop();
    if (id) assert.notEqual((await docker(['inspect', id], { check: false })).code, 0, 'the container is removed');
  });

  test('serves the scenario directory at the chat URL, with the seed it was given', async () => {
    // Fake data depends on the seed and the run's ids only: the binary with the same seed
    // says the same for the same request.
    const said = async (url) => {
      const conversation = new Conversation(CLIENTS[0], { url, route: '', threadId: 'thread-seeded' });
      const run = await conversation.send('Where is order 1234?', { runId: 'run-seeded' });
      assertCleanRun(run);
      return streamedTexts(run.events);
    };
    const [text] = await said(mock.getChatUrl());
    assert.match(text, /^Order 1234 has shipped, tracking [0-9a-f-]{36}\.$/);
    const binary = await startServer(['--seed', '7', '--no-builtin', '--scenarios', scenarios]);
    try {
      assert.deepEqual(await said(`${binary.url}/agui/chat`), [text]);
    } finally {
      await binary.stop();
    }
  });

  test('the admin client forces scenarios, queues faults, reads and resets the journal of one test', async () => {
    const testId = `tc-${process.pid}`;
    const admin = mock.admin(testId);
    const send = (message) =>
      new Conversation(CLIENTS[0], { url: mock.getChatUrl(), route: '', headers: { 'X-Test-Id': testId } }).send(message);

    await admin.force('run-error');
    assert.equal((await send('hello')).events.at(-1).type, 'RUN_ERROR');

    await admin.fault({ kind: 'status', status: 429, retryAfter: 3 });
    assert.equal((await send('hello')).rejection?.status, 429);

    const journal = await admin.journal({ route: '/agui/chat' });
    assert.deepEqual(journal.map((e) => [e.testId, e.scenario ?? null, e.status]), [
      [testId, 'run-error', 200],
      [testId, null, 429],
    ]);
    assert.deepEqual(await mock.admin('another-test').journal(), [], 'another test sees none of it');

    await admin.reset();
    assert.deepEqual(await admin.journal(), []);
    await assert.rejects(admin.force('no-such-scenario'), /answered 404/);
  });
});
