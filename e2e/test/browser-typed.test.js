// Whole templates keep the JSON type of their result, seen by the real @ag-ui/client
// 1.0.0 in headless Chromium: a page of another origin runs the agent, and its state and
// tool call arguments hold numbers and lists, not their text.
//
// Chromium comes from the lockfile (see ../browser/chromium.js); CHROMIUM_PATH names
// another binary.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { MIXCUT_CONTENT, typedScenarioDir } from './fixtures.js';
import { useBrowserPage } from './browserpage.js';

describe('typed values in @ag-ui/client 1.0.0 in headless Chromium', () => {
  const setup = useBrowserPage('agui-mock-browser-typed-', (origin) => [
    ['--cors-origins', origin, '--scenarios', typedScenarioDir(), '--watch', 'off'],
  ]);
  let page;
  let site;
  let mock;
  let pageErrors;
  before(() => ({ page, site, errors: pageErrors, mocks: [mock] } = setup));

  /** Runs the agent in the page on one message and resolves with the page's summary. */
  const run = (message, state) =>
    page.evaluate((o) => window.aguiTest.run(o), {
      url: `${mock.url}/agui/chat`,
      message,
      state,
      headers: { 'X-Agui-Mock-Speed': '0' },
    });

  /** The parsed arguments of the summary's tool call with the given name. */
  function toolArgs(summary, name) {
    const call = summary.messages.flatMap((m) => m.toolCalls ?? []).find((c) => c.function.name === name);
    assert.ok(call, `no ${name} call in ${JSON.stringify(summary.messages)}`);
    return JSON.parse(call.function.arguments);
  }

  test('agent.state gets the list and the number, and the tool call a list and a number', async () => {
    const items = ['x', { y: 1 }];
    const summary = await run('add 2 items', { items, count: 5 });
    assert.equal(summary.status, 'done');
    assert.deepEqual(summary.state, { items, count: 2, label: 'count=5', done: true });
    assert.equal(summary.state.count + 1, 3);
    assert.deepEqual(toolArgs(summary, 'add_items'), { items, n: 2 });
    assert.deepEqual(pageErrors, []);
  });

  test('video-mixcut-assets: create_mixcut gets attachments as a list', async () => {
    // 1.0.0 strips the mixcut_assets part from what it sends, so the list is empty.
    const summary = await run(MIXCUT_CONTENT);
    assert.equal(summary.status, 'done');
    const { attachments } = toolArgs(summary, 'create_mixcut');
    assert.ok(Array.isArray(attachments), `attachments is ${JSON.stringify(attachments)}`);
    assert.deepEqual(attachments, []);
    assert.deepEqual(pageErrors, []);
  });
});
