// CORS as headless Chromium enforces it, with the real @ag-ui/client 1.0.0 in a page
// served from another origin than the mock's: the page sends the custom headers a
// scenario matches on (match.headers), and — where the mock lists the page's origin — its
// cookies; an origin the mock does not list is refused by the browser before its request
// reaches the mock.
//
// Chromium comes from the lockfile (see ../browser/chromium.js); CHROMIUM_PATH names
// another binary.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { fetchFromPage as fetchInPage } from '../browser/site.js';
import { addScenarios, journalEntries, newTestId, TEST_ID_HEADER } from './admin.js';
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
    const testId = newTestId('cors-header');
    const summary = await page.evaluate((o) => window.aguiTest.run(o), {
      url: `${open.url}/agui/chat`,
      message: 'who am I',
      headers: { 'X-User-Role': 'admin', [SPEED_HEADER]: '0', [TEST_ID_HEADER]: testId },
    });
    assert.equal(summary.status, 'done');
    assert.equal(summary.messages.at(-1).content, 'Hello, admin.');
    const [entry] = await journalEntries(open, {}, testId);
    assert.deepEqual([entry.status, entry.scenario], [200, 'role-admin']);
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
