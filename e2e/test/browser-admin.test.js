// The admin API against web pages, in headless Chromium: a page on another origin than
// the mock's tries what any site a developer visits could try against a mock on
// localhost — a simple text/plain POST that adds a catch-all scenario (which would echo
// the next client's Authorization header), a reset, a read of the journal — and changes
// and reads nothing; a page on an origin --cors-origins lists drives the mock.
//
// Chromium comes from the lockfile (see ../browser/chromium.js); CHROMIUM_PATH names
// another binary.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { fetchFromPage } from '../browser/site.js';
import { adminOK, journalEntries, newTestId, openRun, runInput, TEST_ID_HEADER } from './admin.js';
import { useBrowserPage } from './browserpage.js';

/** A scenario that answers every run before any other, echoing its Authorization header. */
const catchAll = (id) => `\
id: ${id}
priority: 1000
steps:
  - text: '{{ index .headers "authorization" }}'
`;

describe('the admin API from web pages, in headless Chromium', () => {
  // open: the default origins (*); listed: lists the page's origin
  const setup = useBrowserPage('agui-mock-browser-admin-', (origin) => [[], ['--cors-origins', origin]]);
  let page;
  let site; // the page's static server
  let open;
  let listed;
  before(() => ({ page, site, mocks: [open, listed] } = setup));

  /** The ids of the mock's scenarios, as its admin API lists them to Node. */
  const scenarioIds = async (mock) => (await adminOK(mock, 'GET', '/scenarios')).scenarios.map((s) => s.id);

  /** Resolves once the mock has logged that it refused method path with status. */
  const refusal = (mock, method, path, status = 403) =>
    mock.waitForLog((r) => r.msg === 'refused a request' && r.method === method && r.path === path && r.status === status);

  test('with the default origins, a page on another origin cannot add a scenario with a simple text/plain POST', async () => {
    for (const mode of ['cors', 'no-cors']) {
      const id = `page-catch-all-${mode}`;
      const answer = await fetchFromPage(page, `${open.url}/_mock/scenarios`, {
        method: 'POST',
        mode,
        headers: { 'Content-Type': 'text/plain' },
        body: catchAll(id),
      });
      assert.ok(answer.error || answer.status === 0, `the page read the answer: ${JSON.stringify(answer)}`);
      const logged = await refusal(open, 'POST', '/_mock/scenarios');
      assert.equal(logged.error, 'forbidden_origin');
      assert.equal(logged.origin, site.origin);
      assert.ok(!(await scenarioIds(open)).includes(id), `${mode}: the scenario was added`);
    }
    // the next client's token stays its own: the built-in scenarios answer
    const run = openRun(open, runInput('hello'), { headers: { Authorization: 'Bearer a-secret' } });
    const { events } = await run.done;
    assert.ok(!JSON.stringify(events).includes('a-secret'), 'a run echoed its Authorization header');
  });

  test('with the default origins, a page on another origin cannot reset the mock', async () => {
    const testId = newTestId('page-reset');
    assert.equal((await openRun(open, runInput('hello'), { headers: { [TEST_ID_HEADER]: testId } }).done).events.at(-1).type, 'RUN_FINISHED');
    const answer = await fetchFromPage(page, `${open.url}/_mock/reset`, { method: 'POST', mode: 'no-cors' });
    assert.equal(answer.status, 0);
    await refusal(open, 'POST', '/_mock/reset');
    assert.equal((await journalEntries(open, {}, testId)).length, 1, 'the reset forgot the journal');
  });

  test('with the default origins, a page on another origin cannot read the journal', async () => {
    const answer = await fetchFromPage(page, `${open.url}/_mock/journal`, {});
    assert.equal(answer.error, 'TypeError: Failed to fetch');
    await refusal(open, 'GET', '/_mock/journal');
  });

  test('a page on an origin --cors-origins lists adds a scenario, reads the journal and resets the mock', async () => {
    const testId = newTestId('page-listed');
    const added = await fetchFromPage(page, `${listed.url}/_mock/scenarios`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/yaml' },
      body: 'id: from-page\nmatch: {message: ^from page$}\nsteps: [{text: added by a page, chunk: none}]\n',
    });
    assert.deepEqual([added.status, JSON.parse(added.text)], [201, { added: ['from-page'] }]);
    assert.ok((await scenarioIds(listed)).includes('from-page'));

    const { events } = await openRun(listed, runInput('from page'), { headers: { [TEST_ID_HEADER]: testId } }).done;
    assert.ok(JSON.stringify(events).includes('added by a page'));
    const journal = await fetchFromPage(page, `${listed.url}/_mock/journal?testId=${testId}`, {});
    assert.equal(journal.status, 200);
    assert.equal(JSON.parse(journal.text).entries[0].scenario, 'from-page');

    const reset = await fetchFromPage(page, `${listed.url}/_mock/reset`, { method: 'POST', headers: { [TEST_ID_HEADER]: testId } });
    assert.equal(reset.status, 204);
    assert.deepEqual(await journalEntries(listed, {}, testId), []);
  });

  test('a page on a listed origin still cannot send an admin body of a simple type: 415, which it reads', async () => {
    const answer = await fetchFromPage(page, `${listed.url}/_mock/scenarios`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: catchAll('listed-text-plain'),
    });
    assert.equal(answer.status, 415);
    assert.equal(JSON.parse(answer.text).error, 'unsupported_media_type');
    assert.ok(!(await scenarioIds(listed)).includes('listed-text-plain'));
  });
});
