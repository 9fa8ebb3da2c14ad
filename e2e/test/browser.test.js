// The real @ag-ui/client 1.0.0 in headless Chromium: a page served from another origin
// than the mock (so every run goes through CORS, preflight included) streams a run into
// its DOM, and a breakpoint holds the page in a half-streamed state.
//
// Chromium comes from the lockfile (see ../browser/chromium.js); CHROMIUM_PATH names
// another binary.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { admin, adminOK, journalEntries, newTestId, TEST_ID_HEADER } from './admin.js';
import { useBrowserPage } from './browserpage.js';

describe('@ag-ui/client 1.0.0 in headless Chromium, from another origin', () => {
  // The mock allows exactly the page's origin.
  const setup = useBrowserPage('agui-mock-browser-', (origin) => [['--cors-origins', origin]]);
  let page;
  let pageOrigin;
  let mock;
  let consoleErrors;
  before(() => {
    ({ page, errors: consoleErrors, mocks: [mock] } = setup);
    pageOrigin = setup.site.origin;
    assert.notEqual(new URL(mock.url).origin, pageOrigin);
  });

  /** Starts a run in the page; returns a handle whose `done` resolves with the page's summary. */
  async function startRun(message, { testId, forwardedProps } = {}) {
    const options = {
      url: `${mock.url}/agui/chat`,
      message,
      forwardedProps,
      headers: { 'X-Agui-Mock-Speed': '0', ...(testId && { [TEST_ID_HEADER]: testId }) },
    };
    await page.evaluate((o) => {
      window.currentRun = window.aguiTest.run(o);
    }, options);
    return { done: () => page.evaluate(() => window.currentRun) };
  }

  /** What the page shows: its status and each rendered message's role and text. */
  const shown = () =>
    page.evaluate(() => ({
      status: document.getElementById('status').textContent,
      messages: [...document.querySelectorAll('#messages > [data-role]')].map((el) => ({
        role: el.dataset.role,
        text: el.querySelector('.content').textContent,
        toolCalls: [...el.querySelectorAll('[data-tool-call]')].map((c) => [c.dataset.toolCall, c.textContent]),
      })),
    }));

  test('streams the video-mixcut-search scenario into agent.messages and the page', async () => {
    const testId = newTestId('browser-search');
    const run = await startRun('Search for ocean wave videos', { testId, forwardedProps: { scenario_name: 'video-mixcut' } });
    const summary = await run.done();
    assert.equal(summary.status, 'done');
    assert.equal(summary.events[0], 'RUN_STARTED');
    assert.equal(summary.events.at(-1), 'RUN_FINISHED');

    const [user, reasoning, assistant, tool] = summary.messages;
    assert.deepEqual([user.role, reasoning.role, assistant.role, tool.role], ['user', 'reasoning', 'assistant', 'tool']);
    assert.equal(reasoning.content, 'The user wants to search for ocean wave videos...');
    assert.equal(assistant.content, "I'll help you search.");
    assert.equal(assistant.toolCalls[0].function.name, 'search_media_by_semantics');
    assert.deepEqual(JSON.parse(assistant.toolCalls[0].function.arguments), { query: 'ocean waves' });
    assert.equal(tool.toolCallId, assistant.toolCalls[0].id);
    assert.deepEqual(JSON.parse(tool.content), { Recall: [] });

    const page_ = await shown();
    assert.equal(page_.status, 'done');
    assert.deepEqual(page_.messages[2], {
      role: 'assistant',
      text: "I'll help you search.",
      toolCalls: [['search_media_by_semantics', '{"query":"ocean waves"}']],
    });

    // The browser sent what a frontend sends; the mock journaled it under the test id.
    const [entry] = await journalEntries(mock, {}, testId);
    assert.deepEqual([entry.status, entry.scenario, entry.outcome], [200, 'video-mixcut-search', 'success']);
    assert.equal(entry.threadId, summary.threadId);
    assert.deepEqual(entry.request.forwardedProps, { scenario_name: 'video-mixcut' });
    assert.equal(entry.request.protocolVersion, '1.0');
    assert.deepEqual(consoleErrors, []);
  });

  test('a breakpoint holds the page half-streamed: reasoning shown, no answer yet; released, the run completes', async () => {
    const testId = newTestId('browser-bp');
    const { id } = await adminOK(mock, 'POST', '/breakpoints', { testId, body: { scenario: 'showcase', step: 'answer' } }, 201);
    const run = await startRun('showcase', { testId });
    const reached = await adminOK(mock, 'GET', `/breakpoints/${id}?wait=10s`);
    assert.equal(reached.reached, true);

    await page.waitForSelector('#messages > [data-role="activity"]'); // the last event before the step
    const paused = await shown();
    assert.equal(paused.status, 'running');
    assert.deepEqual(paused.messages.map((m) => m.role), ['user', 'reasoning', 'activity']);
    assert.equal(paused.messages[1].text, 'Let me plan how to answer showcase.');

    await adminOK(mock, 'POST', `/breakpoints/${id}/release`);
    const summary = await run.done();
    assert.equal(summary.status, 'done');
    assert.equal(summary.events.at(-1), 'RUN_FINISHED');
    const final = await shown();
    const answer = final.messages.find((m) => m.role === 'assistant');
    assert.match(answer.text, /^Here is what I found for /);
    assert.equal(answer.toolCalls[0][0], 'lookup_weather');
    assert.deepEqual(consoleErrors, []);
  });

  test('CORS: the mock answers the page\'s origin, and its preflight allows any header the page asks for', async () => {
    const preflight = await fetch(`${mock.url}/agui/chat`, {
      method: 'OPTIONS',
      headers: { Origin: pageOrigin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-test-id' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), pageOrigin);

    const outcome = await page.evaluate(async (url) => {
      try {
        const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Custom': '1' }, body: '{}' });
        return `status ${res.status}`;
      } catch (err) {
        return `${err.name}: ${err.message}`;
      }
    }, `${mock.url}/agui/chat`);
    assert.equal(outcome, 'status 200');
  });

  test(
    'admin calls with DELETE work from the page',
    async () => {
      const status = await page.evaluate(async (url) => {
        try {
          return (await fetch(url, { method: 'DELETE' })).status;
        } catch (err) {
          return String(err);
        }
      }, `${mock.url}/_mock/journal`);
      consoleErrors.length = 0;
      assert.equal(status, 204);
    },
  );

  test(
    'a page can read Retry-After of an injected 429',
    async () => {
      const retryAfter = await page.evaluate(async (url) => {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Agui-Mock-Fault': 'status; status=429; retryAfter=3' },
          body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
        });
        return res.headers.get('Retry-After');
      }, `${mock.url}/agui/chat`);
      consoleErrors.length = 0;
      assert.equal(retryAfter, '3');
    },
  );

  test('the mock reached from the page is healthy afterwards', async () => {
    assert.equal((await admin(mock, 'GET', '/healthz')).status, 200);
  });
});
