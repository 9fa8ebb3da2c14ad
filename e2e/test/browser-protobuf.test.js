// The protobuf transport in headless Chromium: the real @ag-ui/client 1.0.0 on a page of
// another origin asks for it (Accept, through a fetch of its own), and decodes every
// built-in scenario to the same events, messages and state as over SSE; the mock's
// X-Agui-Mock-Transport header passes the CORS preflight.
//
// Chromium comes from the lockfile (see ../browser/chromium.js); CHROMIUM_PATH names
// another binary.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { toolDefinitions } from './clients.js';
import { useBrowserPage } from './browserpage.js';

describe('the protobuf transport in @ag-ui/client 1.0.0 in headless Chromium, from another origin', () => {
  const setup = useBrowserPage('agui-mock-browser-proto-', (origin) => [['--cors-origins', origin]]);
  let page;
  let site;
  let mock;
  let pageErrors;
  before(() => ({ page, site, errors: pageErrors, mocks: [mock] } = setup));

  /** Plays a scenario example in the page over a transport, with the given ids. */
  const play = (example, transport, ids, headers = {}) =>
    page.evaluate((o) => window.aguiTest.run(o), {
      url: `${mock.url}${example.route ?? '/agui/chat'}`,
      message: example.message ?? '',
      forwardedProps: example.forwardedProps,
      tools: toolDefinitions(example.input?.tools ?? example.tools),
      state: example.state,
      headers: { 'X-Agui-Mock-Speed': '0', 'X-Test-Id': `${ids.threadId}-${transport}`, ...example.headers, ...headers },
      transport,
      ...ids,
    });

  /** What a run left in the page, but its thread. */
  const outcome = ({ threadId, ...summary }) => summary;

  test('every built-in scenario decodes to the same events, messages and state as over SSE', async (t) => {
    const res = await fetch(`${mock.url}/_mock/scenarios`);
    const { scenarios } = await res.json();
    assert.ok(scenarios.length >= 5);
    for (const scenario of scenarios) {
      for (const [i, example] of scenario.examples.entries()) {
        await t.test(`${scenario.id} example ${i + 1}`, async () => {
          const ids = { threadId: `thread-${randomUUID()}`, runId: `run-${randomUUID()}`, messageId: `user-${randomUUID()}` };
          const overSSE = await play(example, 'sse', ids);
          const overProto = await play(example, 'proto', ids);
          if (!scenario.broken) assert.equal(overProto.status, 'done');
          assert.ok(overProto.events.length > 1);
          assert.deepEqual(outcome(overProto), outcome(overSSE));
        });
      }
    }
    assert.deepEqual(pageErrors, []);
  });

  test('X-Agui-Mock-Transport passes the preflight and asks for protobuf', async () => {
    const ids = { threadId: `thread-${randomUUID()}`, runId: `run-${randomUUID()}`, messageId: `user-${randomUUID()}` };
    const example = { message: 'showcase' };
    const overSSE = await play(example, 'sse', ids);
    const testId = `${ids.threadId}-header`;
    const overHeader = await play(example, 'sse', ids, { 'X-Agui-Mock-Transport': 'proto', 'X-Test-Id': testId });
    assert.equal(overHeader.status, 'done');
    assert.deepEqual(outcome(overHeader), outcome(overSSE));
    const { entries } = await (await fetch(`${mock.url}/_mock/journal`, { headers: { 'X-Test-Id': testId } })).json();
    assert.equal(entries[0].transport, 'proto');
  });
});
