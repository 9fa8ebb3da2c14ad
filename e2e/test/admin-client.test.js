// @agui-mock/client (clients/client, built by `npm run build` there), the typed admin
// client the Playwright kit and the Testcontainers module share, against the real
// server: the calls the example app's specs do not make, its errors, and its token.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation } from './clients.js';
import { REPO_ROOT, useServer } from './harness.js';

const dist = path.join(REPO_ROOT, 'clients/client/dist/index.js');
assert.ok(existsSync(dist), `${dist} is missing: run npm ci && npm run build in clients/client (make e2e-test does)`);
const { AguiMockClient, AguiMockError } = await import(dist);

const current = CLIENTS.find((c) => c.version === '1.0.0');
const server = useServer();
const guarded = useServer(['--admin-token', 'admin-secret']);
const large = useServer(['--journal-size', '5000']);

/** Sends one message as the client's test. */
const send = (mock, message) => new Conversation(current, { url: server.url, headers: { 'X-Test-Id': mock.testId } }).send(message);

describe('@agui-mock/client', () => {
  test('unforce and clearFaults undo what force and fault queued for every run', async () => {
    const mock = new AguiMockClient(server.url, { testId: 'client-undo' });
    await mock.reset();
    await mock.force('run-error', 0);
    await mock.fault({ kind: 'status', status: 503, times: 0 });
    await mock.clearFaults();
    assert.equal((await send(mock, 'explicit please')).events.at(-1).type, 'RUN_ERROR', 'still forced, no longer faulted');
    await mock.unforce();
    assertCleanRun(await send(mock, 'explicit please'));
    const runs = await mock.journal({ route: '/agui/chat' });
    assert.deepEqual(runs.map((r) => [r.status, r.scenario, r.selection]), [
      [200, 'run-error', 'forced'],
      [200, 'explicit-events', 'matched'],
    ]);
  });

  test("speed sets the test's speed factor and resetSpeed forgets it; a bad factor is an AguiMockError", async () => {
    const mock = new AguiMockClient(server.url, { testId: 'client-speed' });
    await new AguiMockClient(server.url).addScenarios('id: slow-for-client\nmatch: {message: ^slow client$}\nsteps: [{text: late, delay: 800ms}]\n');
    // with no speed header: the run is timed by the test's factor, else the server's (1)
    const timed = async () => {
      const started = performance.now();
      assertCleanRun(await new Conversation(current, { url: server.url, speed: null, headers: { 'X-Test-Id': mock.testId } }).send('slow client'));
      return performance.now() - started;
    };
    await mock.speed(0);
    const instant = await timed();
    await mock.resetSpeed();
    const paced = await timed();
    assert.ok(paced >= 700, `resetSpeed kept the test speed of 0: ${Math.round(paced)} ms`);
    // whatever the machine's load adds to both runs, the one at speed 0 skipped the delay
    assert.ok(paced - instant >= 400, `speed 0 played the delay: ${Math.round(instant)} ms, then ${Math.round(paced)} ms at the server's speed`);
    await assert.rejects(mock.speed(-1), (err) => {
      assert.ok(err instanceof AguiMockError);
      assert.equal(err.status, 400);
      assert.equal(err.code, 'invalid_input');
      return true;
    });
  });

  test("a breakpoint's state, and remove", async () => {
    const mock = new AguiMockClient(server.url, { testId: 'client-breakpoint' });
    const bp = await mock.breakpoint({ event: 1 });
    assert.deepEqual([(await bp.state()).reached, (await bp.state()).released], [false, false]);
    await assert.rejects(bp.reached('50ms'), (err) => err.code === 'not_reached' && err.status === 408);
    await bp.remove();
    await assert.rejects(bp.state(), (err) => err.code === 'unknown_breakpoint' && err.status === 404);
  });

  test('addScenarios refuses a broken scenario with its problem, and removeScenario an unknown one', async () => {
    const mock = new AguiMockClient(server.url);
    await assert.rejects(mock.addScenarios('id: broken\nsteps: [{txt: x}]\n'), (err) => {
      assert.equal(err.code, 'invalid_scenario');
      assert.match(err.message, /unknown key "txt"/);
      return true;
    });
    await assert.rejects(mock.removeScenario('never-added'), (err) => err.status === 404);
  });

  test('journal() follows the pages of a journal larger than one: every entry, in order, and those after a seq', async () => {
    const mock = new AguiMockClient(large.url, { testId: 'client-pages' });
    const sent = 2100; // two full pages of 1000 and a third
    for (let i = 0; i < sent; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, k) => fetch(`${large.url}/nowhere/${i + k}`, { headers: { 'X-Test-Id': mock.testId } }).then((r) => r.text())));
    }
    const reads = [];
    const counting = new AguiMockClient(large.url, {
      testId: mock.testId,
      fetch: (url, init) => {
        reads.push(new URL(url).search);
        return fetch(url, init);
      },
    });
    const entries = await counting.journal();
    assert.equal(entries.length, sent);
    assert.deepEqual(reads.length, 3, `read ${reads.join(' ')}`);
    const seqs = entries.map((e) => e.seq);
    assert.ok(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]), 'entries oldest first, each once');
    assert.deepEqual(new Set(entries.map((e) => e.path)).size, sent);
    const later = await mock.journal({ after: seqs[1999] });
    assert.deepEqual(later.map((e) => e.seq), seqs.slice(2000));
    assert.deepEqual((await mock.journal({ route: '/nowhere/7' })).map((e) => e.status), [404]);
  });

  test('sends the admin token when given one', async () => {
    await assert.rejects(new AguiMockClient(guarded.url).reset(), (err) => err.code === 'unauthorized' && err.status === 401);
    await new AguiMockClient(guarded.url, { token: 'admin-secret' }).reset();
  });
});
