// The inspector at /_mock/ui, in headless Chromium: the page asks for the admin token,
// shows runs live as they stream (a normal one, an interrupt and its resume, a refused
// request, a near miss), opens a run with one timeline mark per event, drives every
// control, reads a thread as a conversation, shows a reload's problem while the watched
// file is broken, plays a scenario's example, and stays smooth with thousands of
// entries. Screenshots of each view go to e2e/artifacts/inspector/ (not committed).
//
// Chromium comes from the lockfile (see ../browser/chromium.js); CHROMIUM_PATH names
// another binary.

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchChromium } from '../browser/chromium.js';
import { adminOK, journalEntries, newTestId, openRun, runInput, TEST_ID_HEADER } from './admin.js';
import { eventually, REPO_ROOT, startServer, writeTempFiles } from './harness.js';

/** Where the screenshots of each view are saved. */
const ARTIFACTS = path.join(REPO_ROOT, 'e2e', 'artifacts', 'inspector');

const TOKEN = 'inspector-secret';

const GREET = `\
id: greet
description: Says hello, thinks, calls a tool and updates the state, with a pause you can see.
match: {message: ^hello}
examples:
  - message: hello inspector
steps:
  - reasoning: The user greets me.
  - text: Hello there!
  - pause: 1500ms
  - tool: {name: lookup, args: {q: greeting}, result: {ok: true}}
  - stateDelta: [{op: add, path: /greeted, value: true}]
  - text: Anything else?
`;

const APPROVE = `\
id: approve
description: Asks before deleting a file, and honours the answer.
match: {message: ^delete}
examples:
  - message: delete the file
    tools: [{name: pick_file, description: Let the user pick a file, parameters: {type: object, properties: {path: {type: string}}}}]
    context: [{description: folder, value: /tmp}]
steps:
  - text: I need your approval first.
  - interrupt:
      - id: approve-delete
        message: Delete the file?
        on:
          resolved:
            - text: Deleted the file.
          cancelled:
            - text: Kept the file.
`;

// The same pause in the LangGraph dialect: its run finishes as success, waiting for an answer.
const PUBLISH = `\
id: publish
dialect: langgraph
match: {message: ^publish}
examples:
  - message: publish the post
steps:
  - interrupt:
      id: int-publish
      message: Publish the post?
      on:
        resolved: [{text: Published.}]
`;

// A message streamed as chunks of which only the first names it, as AG-UI allows.
const CHUNKS = `\
id: chunks
match: {message: ^chunks}
events:
  - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
  - {type: TEXT_MESSAGE_CHUNK, messageId: m1, delta: "Streamed "}
  - {type: TEXT_MESSAGE_CHUNK, delta: "in chunks."}
  - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
`;

describe('the inspector at /_mock/ui, in headless Chromium', () => {
  let dir;
  let mock;
  let browser;
  let page;
  const errors = [];
  const testId = newTestId('inspector');

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    dir = writeTempFiles({ 'greet.yaml': GREET, 'approve.yaml': APPROVE, 'publish.yaml': PUBLISH, 'chunks.yaml': CHUNKS });
    mock = await startServer(['--no-builtin', '--scenarios', dir, '--admin-token', TOKEN, '--journal-size', '5000', '--journal-events', '100']);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('console', (m) => m.type() === 'error' && !/401/.test(m.text()) && errors.push(m.text()));
    page.on('pageerror', (err) => errors.push(String(err)));
  });

  after(async () => {
    await browser?.close();
    await mock?.stop();
  });

  const shot = (name) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: false });
  const go = async (hash) => {
    await page.evaluate((h) => { location.hash = h; }, hash);
  };
  /** The cells of the row of a request, by its X-Request-Id, once it shows want. */
  const rowOf = async (requestId, want = () => true) => {
    const sel = `#runs-rows .row[data-key="${requestId}"]`;
    let cells;
    await page.waitForFunction(
      ({ sel }) => document.querySelector(sel) !== null,
      { sel },
      { timeout: 10_000 },
    );
    return eventually(async () => {
      cells = await page.$eval(sel, (row) => ({
        test: row.querySelector('.c-test').textContent,
        route: row.querySelector('.c-route').textContent,
        thread: row.querySelector('.c-thread').textContent,
        scenario: row.querySelector('.c-scenario').textContent,
        status: row.querySelector('.c-status').textContent,
        outcome: row.querySelector('.c-outcome').textContent,
        events: Number(row.querySelector('.c-events').textContent),
        duration: row.querySelector('.c-duration').textContent,
        seq: Number(row.dataset.seq),
      }));
      return want(cells) && cells;
    }, () => `the row of ${requestId} never showed what was wanted: ${JSON.stringify(cells)}`, 10_000, 100);
  };
  const headers = { [TEST_ID_HEADER]: testId };
  const finished = (c) => /^\d+$/.test(c.status) && c.seq > 0;

  test('asks for the admin token once, then goes live', async () => {
    await page.goto(`${mock.url}/_mock/ui`);
    await page.waitForSelector('#token-dialog[open]');
    await page.fill('#token-input', TOKEN);
    await page.click('#token-form button');
    await page.waitForSelector('body[data-live="true"]');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('agui-mock-admin-token')), TOKEN);
    // no run yet: the page says how to make the first one, with this mock's URL
    await page.waitForSelector('#runs-empty:not([hidden])');
    const empty = await page.$eval('#runs-empty', (el) => el.textContent);
    assert.match(empty, /No runs yet/);
    assert.ok(empty.includes(`curl -N ${mock.url}/agui/chat`), empty);
    assert.ok(empty.includes(`Point your app's AG-UI client, or a CopilotKit runtime, at ${mock.url}/agui/chat`), empty);
    await shot('runs-empty');
    const csp = (await page.request.get(`${mock.url}/_mock/ui`)).headers()['content-security-policy'];
    assert.match(csp, /script-src 'self'/);
  });

  let normal; // {requestId, events, seq}
  test('a normal run appears while it streams and updates when it ends', async () => {
    const run = openRun(mock, runInput('hello there', { threadId: 'thread-normal' }), { headers, speed: null });
    await run.ready;
    const requestId = run.headers.get('x-request-id');
    const live = await rowOf(requestId, (c) => c.status === 'streaming');
    assert.equal(await page.$eval('#runs-empty', (el) => el.hidden), true, 'the first-run note stays once there is a run');
    assert.deepEqual([live.test, live.route, live.thread, live.scenario, live.duration], [testId, '/agui/chat', 'thread-normal', 'greet', '…']);
    await shot('runs-live');
    const { events } = await run.done;
    const done = await rowOf(requestId, finished);
    assert.deepEqual([done.status, done.outcome, done.events], ['200', 'success', events.length]);
    assert.match(done.duration, /^\d+ ms$/);
    assert.ok(Number.parseInt(done.duration, 10) >= 1400, `the run took ${done.duration}, with a pause of 1.5 s`);
    normal = { requestId, events, seq: done.seq };
  });

  let interrupt;
  let resumed;
  test('an interrupt and its resume appear with their outcomes', async () => {
    const first = openRun(mock, runInput('delete the file', { threadId: 'thread-approve' }), { headers });
    await first.ready;
    const { events } = await first.done;
    interrupt = await rowOf(first.headers.get('x-request-id'), finished);
    assert.deepEqual([interrupt.scenario, interrupt.status, interrupt.outcome, interrupt.events], ['approve', '200', 'interrupt · awaiting 1', events.length]);
    const body = { threadId: 'thread-approve', runId: 'run-2', messages: [{ id: 'u2', role: 'user', content: '' }], resume: [{ interruptId: 'approve-delete', status: 'resolved' }] };
    const second = openRun(mock, body, { headers });
    await second.ready;
    const answer = await second.done;
    resumed = await rowOf(second.headers.get('x-request-id'), finished);
    assert.deepEqual([resumed.scenario, resumed.outcome, resumed.events], ['approve', 'success', answer.events.length]);
  });

  test('a LangGraph-dialect interrupt appears as the success its client saw, awaiting an answer', async () => {
    const run = openRun(mock, runInput('publish the post', { threadId: 'thread-publish' }), { headers });
    await run.ready;
    const { events } = await run.done;
    assert.equal(events.at(-1).outcome, undefined, 'a plain RUN_FINISHED');
    const row = await rowOf(run.headers.get('x-request-id'), finished);
    assert.deepEqual([row.scenario, row.outcome], ['publish', 'success · awaiting 1']);
    await go(`#/threads/${encodeURIComponent(testId)}/thread-publish`);
    await page.waitForSelector('#thread-body article.turn');
    assert.match(await page.textContent('#thread-body article.turn'), /success · awaiting 1[\s\S]*Interrupts raised \(1\): int-publish/);
    await go('#/runs');
  });

  let refused;
  let nearMiss;
  test('a refused request and a near miss appear with their status', async () => {
    const res = await fetch(`${mock.url}/agui/chat`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: '{"threadId": ' });
    assert.equal(res.status, 400);
    refused = await rowOf(res.headers.get('x-request-id'), finished);
    assert.deepEqual([refused.status, refused.scenario, refused.events], ['400', 'invalid_input', 0]);
    const miss = openRun(mock, runInput('goodbye', { threadId: 'thread-miss' }), { headers });
    await miss.ready;
    assert.equal(miss.status, 404);
    nearMiss = await rowOf(miss.headers.get('x-request-id'), finished);
    assert.deepEqual([nearMiss.status, nearMiss.scenario, nearMiss.thread], ['404', 'no_scenario', 'thread-miss']);
    await page.fill('#run-filters input[name=testId]', testId);
    await page.waitForFunction(() => document.querySelectorAll('#runs-rows .row').length === 6);
    await page.selectOption('#run-filters select[name=status]', '4xx');
    await page.waitForFunction(() => document.querySelectorAll('#runs-rows .row').length === 2);
    await page.selectOption('#run-filters select[name=status]', '');
    await page.fill('#run-filters input[name=text]', 'thread-approve');
    await page.waitForFunction(() => document.querySelectorAll('#runs-rows .row').length === 2);
    await page.fill('#run-filters input[name=text]', '');
    await page.fill('#run-filters input[name=scenario]', 'greet');
    await page.waitForFunction(() => document.querySelectorAll('#runs-rows .row').length === 1);
    await page.fill('#run-filters input[name=scenario]', '');
    await shot('runs');
  });

  test("a run's page: the request, why its scenario answered, and one timeline mark per event", async () => {
    await page.click(`#runs-rows .row[data-key="${normal.requestId}"] a`);
    await page.waitForSelector('#view-run:not([hidden]) svg.timeline');
    assert.equal(await page.locator('svg.timeline .mark').count(), normal.events.length);
    assert.equal(await page.locator('ol.events li').count(), normal.events.length);
    const lanes = await page.$$eval('svg.timeline .mark rect', (rects) => [...new Set(rects.map((r) => r.getAttribute('class')))].sort());
    assert.deepEqual(lanes, ['lane-lifecycle', 'lane-reasoning', 'lane-state', 'lane-text', 'lane-tools']);
    assert.ok(await page.locator('svg.timeline .gap-label').count() >= 1, 'the 1.5 s pause shows as a gap');
    assert.match(await page.textContent('.match'), /Why greet answered[\s\S]*message[\s\S]*\/\^hello\/[\s\S]*held/);
    assert.match(await page.textContent('details[data-part=messages] pre'), /hello there/);
    // keyboard: focusing a mark shows its JSON
    await page.focus('svg.timeline .mark[data-index="1"]');
    assert.match(await page.textContent('#tip'), /"type": "REASONING_START"|"type": "THINKING_START"|"type": "REASONING_MESSAGE_START"/);
    await shot('run');
    await page.locator('.timeline-wrap').screenshot({ path: path.join(ARTIFACTS, 'run-timeline.png') });

    await page.emulateMedia({ colorScheme: 'dark' });
    await shot('run-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await go(`#/run/${nearMiss.seq}`);
    await page.waitForSelector('.near-miss');
    assert.match(await page.textContent('.near-miss'), /greet[\s\S]*message "goodbye" does not match \/\^hello\//);
    await shot('run-near-miss');

    await go(`#/run/${resumed.seq}`);
    await page.waitForSelector('#view-run:not([hidden]) svg.timeline');
    assert.match(await page.textContent('#run-body'), /continued the thread's paused conversation of approve/);
    assert.match(await page.textContent('details[data-part=resume] pre'), /approve-delete/);
  });

  test('a thread reads as one conversation: the interrupt raised, its answer and the branch that played', async () => {
    await go(`#/threads/${encodeURIComponent(testId)}/thread-approve`);
    await page.waitForSelector('#thread-body article.turn:nth-of-type(2)');
    const turns = await page.$$eval('#thread-body article.turn', (els) => els.map((e) => e.textContent));
    assert.equal(turns.length, 2);
    assert.match(turns[0], /User: delete the file[\s\S]*Interrupts raised \(1\): approve-delete/);
    assert.match(turns[1], /Answered:[\s\S]*resolved[\s\S]*branch that played: “Deleted the file\.”/);
    await shot('threads');
  });

  test("a thread shows a message streamed in chunks as the agent's whole text", async () => {
    await go('#/runs');
    const run = openRun(mock, runInput('chunks please', { threadId: 'thread-chunks' }), { headers });
    await run.ready;
    await run.done;
    await rowOf(run.headers.get('x-request-id'), finished);
    await go(`#/threads/${encodeURIComponent(testId)}/thread-chunks`);
    await page.waitForSelector('#thread-body article.turn .bubble.agent');
    assert.equal(await page.textContent('#thread-body article.turn .bubble.agent'), 'Agent: Streamed in chunks.');
    await go('#/runs');
  });

  test('each control calls the admin API for the test id', async () => {
    await go('#/controls');
    await page.fill('#control-test', testId);
    const result = async (re) => {
      await page.waitForFunction((src) => new RegExp(src).test(document.querySelector('#control-result').textContent), re.source);
    };

    // force: the next run plays greet whatever it says
    await page.selectOption('#force-scenario', 'greet');
    await page.click('#form-force button');
    await result(/Forced greet/);
    const forced = openRun(mock, runInput('delete the file'), { headers });
    await forced.ready;
    await forced.done;
    const forcedRow = (await journalEntries(mock, {}, testId)).at(-1);
    assert.deepEqual([forcedRow.scenario, forcedRow.selection], ['greet', 'forced']);

    // fault: the next run is answered 503
    await page.fill('#form-fault input[name=kind]', 'status');
    await page.fill('#form-fault input[name=status]', '503');
    await page.click('#form-fault button');
    await result(/Queued a status fault/);
    const faulted = openRun(mock, runInput('hello'), { headers });
    await faulted.ready;
    assert.equal(faulted.status, 503);

    // speed: runs without a speed header play at the test's speed (0: the pause goes)
    await page.fill('#form-speed input[name=speed]', '0');
    await page.click('#form-speed button');
    await result(/speed 0/);
    const fast = openRun(mock, runInput('hello'), { headers, speed: null });
    await fast.ready;
    await fast.done;
    // a run that plays the pause takes at least its 1.5 s, however fast the machine
    const { durationMs } = (await journalEntries(mock, {}, testId)).at(-1);
    assert.ok(durationMs < 1500, `the speed set from the page did not apply: the run took ${durationMs} ms`);

    // breakpoint: a run pauses, shows as paused, and the page releases it
    await page.selectOption('#bp-scenario', 'greet');
    await page.fill('#form-breakpoint input[name=event]', '2');
    await page.click('#form-breakpoint button');
    await result(/Breakpoint bp-\d+ armed/);
    const paused = openRun(mock, runInput('hello'), { headers });
    await paused.ready;
    const pausedId = paused.headers.get('x-request-id');
    await page.waitForSelector('#breakpoints .st-live');
    await shot('controls');
    const released = page.locator('#breakpoints button').last();
    await go('#/runs');
    await rowOf(pausedId, (c) => /^paused bp-\d+$/.test(c.status));
    await go('#/controls');
    await released.click();
    await result(/Released bp-\d+/);
    const { events } = await paused.done;
    assert.equal(events.at(-1).type, 'RUN_FINISHED');
    await go('#/runs');
    const after = await rowOf(pausedId, finished);
    await go(`#/run/${after.seq}`);
    await page.waitForSelector('#view-run:not([hidden]) svg.timeline');
    assert.match(await page.textContent('#run-body'), /Breakpoints that struck[\s\S]*bp-\d+: paused at/);
    assert.equal(await page.locator('svg.timeline .pause').count(), 1);

    // reset: the test's journal is forgotten, in the server and on the page
    await go('#/controls');
    await page.click('#form-reset button');
    await result(/Reset inspector-/);
    assert.deepEqual(await journalEntries(mock, {}, testId), []);
    await go('#/runs');
    await page.waitForFunction(() => document.querySelectorAll('#runs-rows .row').length === 0);
  });

  test('a reload problem appears with its file:line:col while the file is broken, and goes when it is fixed', async () => {
    await go('#/scenarios');
    await page.waitForSelector('.scenario[data-id=greet]');
    writeFileSync(path.join(dir, 'broken.yaml'), 'id: broken\nmatch: {message: ^x}\nsteps:\n  - txt: oops\n');
    await page.waitForSelector('.problems', { timeout: 15_000 });
    assert.match(await page.textContent('.problems'), /broken\.yaml:4:\d+:/);
    await shot('scenarios-problem');
    writeFileSync(path.join(dir, 'broken.yaml'), 'id: broken\nmatch: {message: ^x}\nsteps:\n  - text: fixed\n');
    await page.waitForSelector('.reload-ok', { timeout: 15_000 });
    await page.waitForSelector('.scenario[data-id=broken]');
    assert.equal(await page.locator('.problems').count(), 0);
    await shot('scenarios');
  });

  test("a scenario's example plays from the page and opens its run", async () => {
    await page.click('button[data-play="approve#0"]');
    await page.waitForFunction(() => document.body.dataset.view === 'run' && /^Run \d+: POST \/agui\/chat → 200$/.test(document.querySelector('#run-title').textContent), null, { timeout: 10_000 });
    assert.match(await page.textContent('#run-body'), /Test idinspector(?!-)[\s\S]*approve \(forced\)[\s\S]*delete the file/);
    const played = (await journalEntries(mock, {}, 'inspector')).at(-1);
    assert.deepEqual([played.scenario, played.outcome, played.awaiting], ['approve', 'interrupt', 1]);
    // what the example offered, on a thread and a run of UUIDs, as a client sends it
    assert.deepEqual(played.request.tools, [{ name: 'pick_file', description: 'Let the user pick a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } }]);
    assert.deepEqual(played.request.context, [{ description: 'folder', value: '/tmp' }]);
    for (const id of [played.request.threadId, played.request.runId]) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.ok((await page.locator('svg.timeline .mark').count()) > 0);
  });

  test('stays smooth with 3000 entries: only the rows in view are drawn', async () => {
    const burst = newTestId('burst');
    for (let i = 0; i < 3000; i += 200) {
      await Promise.all(Array.from({ length: 200 }, (_, k) => fetch(`${mock.url}/nowhere/${i + k}`, { headers: { [TEST_ID_HEADER]: burst } }).then((r) => r.text())));
    }
    await go('#/runs');
    await page.fill('#run-filters input[name=testId]', '');
    await page.waitForFunction(() => /^3\d{3} of/.test(document.querySelector('#run-count').textContent), null, { timeout: 20_000 });
    const timing = await page.evaluate(async () => {
      const scroller = document.querySelector('#runs-scroller');
      const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
      const took = [];
      for (let i = 0; i < 20; i++) {
        const t0 = performance.now();
        scroller.scrollTop = (i * scroller.scrollHeight) / 20;
        await frame();
        await frame();
        took.push(performance.now() - t0);
      }
      const t0 = performance.now();
      const text = document.querySelector('#run-filters input[name=text]');
      text.value = '/nowhere/29';
      text.dispatchEvent(new Event('input', { bubbles: true }));
      const filterMs = performance.now() - t0;
      return { worstScrollMs: Math.max(...took), filterMs, rows: document.querySelectorAll('#runs-rows .row').length };
    });
    console.log(`inspector with 3000+ entries: worst scroll ${timing.worstScrollMs.toFixed(1)} ms (two frames), filter ${timing.filterMs.toFixed(1)} ms`);
    // What keeps it fast whatever the machine: only the rows in view are in the document.
    // The times are printed, not bounded: a loaded machine slows the page as much as the list.
    assert.ok(timing.rows <= 60, `${timing.rows} rows in the document`);
    await page.fill('#run-filters input[name=text]', '');
    await page.keyboard.press('Tab');
    await page.focus('#runs-scroller');
    await page.keyboard.press('End');
    await page.keyboard.press('Home');
    await shot('runs-thousands');

    // a page opened now reads them through GET /_mock/journal's pages of 1000, every one
    const total = (await journalEntries(mock, {}, undefined)).length;
    assert.ok(total > 3000, `${total} entries`);
    const reads = [];
    const onRequest = (req) => { if (new URL(req.url()).pathname === '/_mock/journal') reads.push(new URL(req.url()).search); };
    page.on('request', onRequest);
    await page.reload();
    await page.waitForFunction((n) => document.querySelector('#run-count').textContent === `${n} of ${n}`, total, { timeout: 20_000 });
    page.off('request', onRequest);
    assert.equal(reads.length, Math.ceil(total / 1000), `the journal read in ${reads.join(' ')}`);
    assert.deepEqual(errors, []);
  });

  test('the page and its assets are small and come from the mock alone', async () => {
    let total = 0;
    for (const asset of ['', '/inspector.css', '/app.js', '/timeline.js']) {
      const res = await fetch(`${mock.url}/_mock/ui${asset}`);
      assert.equal(res.status, 200, asset);
      total += (await res.arrayBuffer()).byteLength;
    }
    assert.ok(total < 300 * 1024, `${total} bytes`);
    // the page is public, the data behind it is not
    assert.equal((await fetch(`${mock.url}/_mock/journal`)).status, 401);
    assert.equal((await adminOK(mock, 'GET', '/status')).failed, false);
  });
});
