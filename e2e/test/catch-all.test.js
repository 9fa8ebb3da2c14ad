// When the built-in catch-all answers while scenarios of the developer's own are loaded
// (the page did not offer the tool their scenario needs), the mock says why: a response
// header names the nearest of theirs, the log warns with each one's reasons, and the
// journal entry and the inspector's run view show them.
//
// The run is sent by the official @ag-ui/client; Chromium comes from the lockfile.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HttpAgent } from '@ag-ui/client';
import { launchChromium } from '../browser/chromium.js';
import { journalEntries, newTestId, TEST_ID_HEADER } from './admin.js';
import { startServer, writeTempFiles } from './harness.js';

const BOOK = `\
id: book-flight
match: {message: '(?i)book', tools: [bookFlight]}
steps:
  - tool: {name: bookFlight, args: {to: Lisbon}}
`;

describe('the catch-all says why no scenario of yours matched', () => {
  let mock;
  let browser;
  const testId = newTestId('catch-all');

  before(async () => {
    mock = await startServer(['--scenarios', writeTempFiles({ 'book.yaml': BOOK })]);
  });
  after(async () => {
    await browser?.close();
    await mock?.stop();
  });

  test('a run without the tool: header, warning, journal entry and inspector name book-flight', async () => {
    const headers = { [TEST_ID_HEADER]: testId, 'X-Agui-Mock-Speed': '0' };
    const agent = new HttpAgent({ url: `${mock.url}/agui/chat`, headers });
    agent.messages = [{ id: 'm1', role: 'user', content: 'book me a flight to Lisbon' }];
    await agent.runAgent({ tools: [] }); // the page offers no bookFlight
    assert.ok(agent.messages.some((m) => m.role === 'assistant'), 'the catch-all answered');

    const res = await fetch(`${mock.url}/agui/chat`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify({ threadId: 't2', runId: 'r2', messages: [{ id: 'm1', role: 'user', content: 'book a flight' }] }),
    });
    assert.equal(res.headers.get('x-agui-mock-near-misses'), 'book-flight');
    await res.text();

    const warning = await mock.waitForLog((r) => r.level === 'WARN' && r.scenario === 'catch-all');
    assert.match(warning.nearest, /^book-flight \(.*book\.yaml:1:1\): .*bookFlight/);

    const [entry] = await journalEntries(mock, {}, testId);
    assert.equal(entry.scenario, 'catch-all');
    assert.equal(entry.nearMisses[0].id, 'book-flight');
    assert.match(entry.nearMisses[0].reasons.join(' '), /bookFlight/);

    browser = await launchChromium();
    const page = await browser.newPage();
    await page.goto(`${mock.url}/_mock/ui#/run/${entry.seq}`);
    await page.waitForSelector('.near-miss');
    assert.match(await page.textContent('.near-miss'), /built-in catch-all answered[\s\S]*book-flight[\s\S]*bookFlight/);
  });
});
