// A seed in the browser: the real @ag-ui/client 1.0.0 in headless Chromium mints a new
// threadId and user message id for every conversation, and the same conversation still
// renders the same page — fake data, generated ids and all — so that a screenshot test
// of a frontend against a --seed mock does not flake.
//
// Chromium comes from the lockfile (see ../browser/chromium.js); CHROMIUM_PATH names
// another binary.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { loadPage } from '../browser/site.js';
import { newTestId, TEST_ID_HEADER } from './admin.js';
import { seededScenarioDir } from './fixtures.js';
import { useBrowserPage } from './browserpage.js';

describe('@ag-ui/client 1.0.0 in headless Chromium, against a --seed mock', () => {
  const setup = useBrowserPage('agui-mock-browser-seed-', (origin) => [['--scenarios', seededScenarioDir(), '--cors-origins', origin]], {
    viewport: { width: 800, height: 600 },
  });
  let page;
  let site;
  let mock;
  let consoleErrors;
  before(() => ({ page, site, errors: consoleErrors, mocks: [mock] } = setup));

  /**
   * Loads the page afresh and has it send message with a new HttpAgent; resolves with
   * the page's summary, what it shows, and a screenshot of its messages.
   */
  async function converse(message, testId) {
    await loadPage(page, site.origin);
    const options = { url: `${mock.url}/agui/chat`, message, headers: { 'X-Agui-Mock-Speed': '0', [TEST_ID_HEADER]: testId } };
    const summary = await page.evaluate((o) => window.aguiTest.run(o), options);
    assert.equal(summary.status, 'done');
    const shown = await page.evaluate(() =>
      [...document.querySelectorAll('#messages > [data-role]')].map((el) => ({
        role: el.dataset.role,
        id: el.dataset.role === 'user' ? '<the client\'s>' : el.dataset.id,
        text: el.textContent,
      })),
    );
    return { summary, shown, screenshot: await page.locator('#messages').screenshot() };
  }

  test('the same conversation on new threads, others in between, renders the same page', async () => {
    const first = await converse('Plan a trip', newTestId('browser-seed'));
    assert.deepEqual(
      first.shown.map((m) => m.role),
      ['user', 'assistant'],
    );
    assert.match(first.shown[1].text, /^\S+ \S+.* from .+ will be your guide \(id-[0-9a-f]{12}\)\.\{"guide":"id-[0-9a-f]{12}"\}$/);

    await converse('Plan a trip', newTestId('browser-seed-other'));
    await converse('showcase', newTestId('browser-seed-other'));

    const again = await converse('Plan a trip', newTestId('browser-seed'));
    assert.notEqual(again.summary.threadId, first.summary.threadId, 'the client made up a new thread');
    assert.deepEqual(again.shown, first.shown);
    assert.ok(again.screenshot.equals(first.screenshot), 'the screenshots differ');
    assert.deepEqual(consoleErrors, []);
  });
});
