// CORS as headless Chromium enforces it, with the real @ag-ui/client 1.0.0 in a page
// served from another origin than the mock's: the page sends the custom headers a
// scenario matches on (match.headers), and — where the mock lists the page's origin — its
// cookies; an origin the mock does not list is refused by the browser before its request
// reaches the mock. With the default origins (*), any page may run a conversation of its
// own, but only a listed origin reads a thread's history, cancels a run or acts as a test
// (X-Test-Id): a page on another port of 127.0.0.1 can do none of it.
//
// Chromium comes from the lockfile (see ../browser/chromium.js); CHROMIUM_PATH names
// another binary.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { fetchFromPage as fetchInPage } from '../browser/site.js';
import { addScenarios, adminOK, journalEntries, newTestId, openRun, runInput, TEST_ID_HEADER } from './admin.js';
import { SPEED_HEADER } from './clients.js';
import { useBrowserPage } from './browserpage.js';

// Both scenarios answer only when the header they need arrived; otherwise the built-in
// catch-all answers.
const SCENARIOS = `\
id: role-admin
match:
  message: ^who am I$
  headers: {x-user-role: ^admin$}
steps:
  - text: Hello, admin.
---
id: echo-cookie
match:
  message: ^my cookie$
  headers: {cookie: session=}
steps:
  - text: 'cookie {{ index .headers "cookie" }}, role {{ index .headers "x-user-role" }}'
    chunk: none
`;

describe('CORS in headless Chromium, from another origin', () => {
  // open: the default origins (*); pinned: lists the page's origin; elsewhere: lists
  // another origin only
  const setup = useBrowserPage('agui-mock-browser-cors-', (origin) => [[], ['--cors-origins', origin], ['--cors-origins', 'http://localhost:1']]);
  let page;
  let site; // the page's static server
  let open;
  let pinned;
  let elsewhere;
  before(async () => {
    ({ page, site, mocks: [open, pinned, elsewhere] } = setup);
    await Promise.all([addScenarios(open, SCENARIOS), addScenarios(pinned, SCENARIOS)]);
  });

  const fetchFromPage = (url, init) => fetchInPage(page, url, init);

  /** A run request's fetch options: a JSON RunAgentInput with one user message. */
  const runInit = (message, headers, extra = {}) => ({
    method: 'POST',
    headers: { 'Content-Type': 'application/json', [SPEED_HEADER]: '0', ...headers },
    body: JSON.stringify({ messages: [{ id: 'u1', role: 'user', content: message }] }),
    ...extra,
  });

  test('with the default origins, HttpAgent sends a custom header that a scenario matches on', async () => {
    const summary = await page.evaluate((o) => window.aguiTest.run(o), {
      url: `${open.url}/agui/chat`,
      message: 'who am I',
      headers: { 'X-User-Role': 'admin', [SPEED_HEADER]: '0' },
    });
    assert.equal(summary.status, 'done');
    assert.equal(summary.messages.at(-1).content, 'Hello, admin.');
  });

  test('with the default origins, a page on another origin reads no history, cancels no run and takes nothing a test set up', async () => {
    // Another client's conversation, paused at a breakpoint, and a test's queued fault.
    const threadId = `thread-victim-${randomUUID()}`;
    const { id } = await adminOK(open, 'POST', '/breakpoints', { body: { event: 1 } }, 201);
    const victim = openRun(open, runInput('hello', { threadId }));
    await victim.waitFor((e) => e.type === 'RUN_STARTED');
    const testId = newTestId('cors-victim');
    await adminOK(open, 'POST', '/faults', { testId, body: { kind: 'status', status: 418 } }, 201);
    try {
      const json = (body, headers = {}) => ({ method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
      const simple = (body) => ({ method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify(body) });
      for (const [what, path, init] of [
        ['the history', '/agui/history', json({ threadId })],
        ['the history, as a simple request', '/agui/history', simple({ threadId })],
        ['a test\'s history', '/agui/history', json({ threadId }, { [TEST_ID_HEADER]: testId })],
        ['the cancel', '/agui/cancel', json({ threadId })],
        ['the cancel, as a simple request', '/agui/cancel', simple({ threadId })],
      ]) {
        const answer = await fetchFromPage(`${open.url}${path}`, init);
        assert.equal(answer.error, 'TypeError: Failed to fetch', `${what}: ${JSON.stringify(answer)}`);
      }
      // A run as the test is refused, readably, and leaves the test's fault queued.
      const asTest = await fetchFromPage(`${open.url}/agui/chat`, runInit('hello', { [TEST_ID_HEADER]: testId }));
      assert.equal(asTest.status, 403, JSON.stringify(asTest));
      assert.match(asTest.text, /"forbidden_origin"/);
      assert.match(asTest.text, new RegExp(`--cors-origins ${site.origin}`));
      const own = await openRun(open, runInput('hello'), { headers: { [TEST_ID_HEADER]: testId } }).done;
      assert.equal(own.status, 418, 'the test\'s own run still meets the fault it queued');

      // The simple requests reached the mock (no preflight) and were refused; nothing else came.
      const conversations = (await journalEntries(open, {})).filter((e) => ['/agui/history', '/agui/cancel'].includes(e.path));
      assert.deepEqual(conversations.map((e) => [e.path, e.status, e.error]).sort(), [
        ['/agui/cancel', 403, 'forbidden_origin'],
        ['/agui/history', 403, 'forbidden_origin'],
      ]);

      await adminOK(open, 'POST', `/breakpoints/${id}/release`);
      assert.equal((await victim.done).events.at(-1).type, 'RUN_FINISHED', 'the other client\'s run was not cancelled');
    } finally {
      victim.abort();
    }
  });

  test('with the page\'s origin listed, the page reads a thread\'s history', async () => {
    const threadId = `thread-own-${randomUUID()}`;
    const testId = newTestId('cors-own');
    await fetchFromPage(`${pinned.url}/agui/chat`, runInit('hello', { [TEST_ID_HEADER]: testId }, { body: JSON.stringify(runInput('hello', { threadId })) }));
    const answer = await fetchFromPage(`${pinned.url}/agui/history`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [TEST_ID_HEADER]: testId },
      body: JSON.stringify({ threadId }),
    });
    assert.equal(answer.status, 200, JSON.stringify(answer));
    assert.equal(JSON.parse(answer.text).messages[0].content, 'hello');
  });

  test('with the page\'s origin listed, a fetch with credentials: \'include\' sends the cookie of the mock\'s host', async () => {
    const testId = newTestId('cors-cookie');
    await page.context().addCookies([{ name: 'session', value: 'abc123', url: pinned.url }]);
    const answer = await fetchFromPage(
      `${pinned.url}/agui/chat`,
      runInit('my cookie', { 'X-User-Role': 'editor', [TEST_ID_HEADER]: testId }, { credentials: 'include' }),
    );
    assert.equal(answer.status, 200, JSON.stringify(answer));
    assert.match(answer.text, /"delta":"cookie session=abc123, role editor"/);
    const [entry] = await journalEntries(pinned, {}, testId);
    assert.deepEqual([entry.status, entry.scenario], [200, 'echo-cookie']);
  });

  test('with the default origins, a fetch with credentials is refused: a wildcard never allows them', async () => {
    // GET on a run route: answered 405, an answer the page reads when it may
    const answer = await fetchFromPage(`${open.url}/agui/chat`, { credentials: 'include' });
    assert.equal(answer.error, 'TypeError: Failed to fetch');
    assert.equal((await fetchFromPage(`${open.url}/agui/chat`, {})).status, 405, 'without credentials it may call');
  });

  test('an origin the mock does not list is refused by the browser, and its run never reaches the mock', async () => {
    const testId = newTestId('cors-unlisted');
    const answer = await fetchFromPage(`${elsewhere.url}/agui/chat`, runInit('hello', { [TEST_ID_HEADER]: testId }));
    assert.equal(answer.error, 'TypeError: Failed to fetch');
    assert.deepEqual(await journalEntries(elsewhere, {}, testId), []);
  });
});
