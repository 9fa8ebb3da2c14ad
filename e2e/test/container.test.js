// The image as e2e suites run it: `make image`'s agui-mock:dev started with docker,
// reached through its mapped port. It turns healthy, runs as the non-root user, takes
// its configuration from AGUI_MOCK_* variables, serves and hot-reloads a mounted
// scenario directory, and stops cleanly on SIGTERM; the official client and headless
// Chromium hold a conversation with an interrupt through it.
//
// Without a Docker daemon these tests skip loudly outside CI (see docker.js).

import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { launchChromium } from '../browser/chromium.js';
import { openPage, servePage } from '../browser/site.js';
import { openRun, runInput } from './admin.js';
import { assertCleanRun, CLIENTS, Conversation, SPEED_HEADER } from './clients.js';
import { describeUnless, docker, eventually, IMAGE, NONROOT, runContainer, skipReason, waitReady } from './docker.js';
import { makeTempDir } from './harness.js';
import { postRun, streamedTexts } from './threads.js';

const IMAGE_BUDGET_BYTES = 20 << 20;

// The built-in approval flow: two interrupts, answered in the next run.
const APPROVAL_MESSAGE = 'Search for ocean wave videos and trim the first 10 seconds';
const APPROVAL_PROPS = { scenario_name: 'media_management' };
const APPROVED_TEXTS = ['Trimmed the first 10 seconds.', 'Added the watermark.', `That's everything for "Ocean waves at dawn". Anything else?`];
const approveAll = (interrupts) => interrupts.map((intr) => ({ interruptId: intr.id, status: 'resolved' }));

const greeting = (text) => `id: greeting\nmatch: {message: ^hello container$}\nsteps:\n  - text: ${text}\n`;
const SLOW = 'id: slow\nmatch: {message: ^slow$}\ntiming: {firstEvent: 0, firstToken: 0}\nsteps:\n  - text: started\n  - pause: 1m\n  - text: never\n';

/** A directory of scenario files that user 65532 can read, as a mounted volume must be. */
function scenarioDir(files) {
  const dir = makeTempDir('agui-mock-container-');
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content, { mode: 0o644 });
  chmodSync(dir, 0o755);
  return dir;
}

describeUnless(skipReason, `the ${IMAGE} container`, () => {
  const scenarios = scenarioDir({ 'greeting.yaml': greeting('v1'), 'slow.yaml': SLOW });
  let mock;
  let site; // serves the browser page, from an origin the mock is told to allow
  let pageOrigin;
  let browser;

  before(async () => {
    site = await servePage(makeTempDir('agui-mock-container-page-'));
    pageOrigin = site.origin;
    mock = await runContainer({
      env: { AGUI_MOCK_SEED: '7', AGUI_MOCK_SPEED: '0', AGUI_MOCK_CORS_ORIGINS: pageOrigin },
      volumes: [`${scenarios}:/scenarios:ro`],
      // the image's own probe, run sooner than every 10 s; within the documented limits
      options: ['--health-interval', '1s', '--memory', '64m', '--cpus', '1'],
    });
    await waitReady(mock);
  });

  after(async () => {
    await browser?.close();
    await mock?.remove();
    site?.close();
  });

  test('turns healthy by the image\'s own healthcheck, and stays small', async () => {
    const state = await eventually(async () => {
      const { State } = await mock.inspect();
      return State.Health?.Status === 'healthy' && State;
    }, 'healthy');
    assert.equal(state.Health.Log.at(-1).ExitCode, 0);
    const { Config } = await mock.inspect();
    assert.deepEqual(Config.Healthcheck.Test, ['CMD', '/usr/local/bin/agui-mock', 'healthcheck']);
    const size = Number((await docker(['image', 'inspect', '--format', '{{.Size}}', IMAGE])).stdout);
    assert.ok(size < IMAGE_BUDGET_BYTES, `the image is ${size} bytes`);
  });

  test('its process runs as uid 65532', async () => {
    const { stdout } = await docker(['top', mock.id, '-o', 'pid,uid,args']);
    const processes = stdout.trim().split('\n').slice(1);
    assert.equal(processes.length, 1, stdout);
    assert.match(processes[0], new RegExp(`^\\d+\\s+${NONROOT}\\s+/usr/local/bin/agui-mock serve$`));
  });

  test('AGUI_MOCK_* variables configure it: seed, speed, CORS origins, JSON logs', async () => {
    const ready = (await mock.records()).find((r) => r.msg === 'ready');
    assert.ok(ready, 'a JSON "ready" record');
    assert.equal(ready.seed, '7');
    assert.equal(ready.speed, 0);
    // every line it prints is JSON, the first on stdout saying where it listens
    const { stdout, stderr } = await mock.logs();
    for (const line of [...stdout, ...stderr]) assert.doesNotThrow(() => JSON.parse(line), `a line that is no JSON: ${line}`);
    const listening = JSON.parse(stdout[0]);
    assert.match(listening.msg, /^agui-mock listening on http:\/\/\S+:8000$/);
    assert.equal(listening.inspector, `${listening.url}/_mock/ui`);
    const preflight = await fetch(`${mock.url}/agui/chat`, {
      method: 'OPTIONS',
      headers: { Origin: pageOrigin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    assert.equal(preflight.headers.get('access-control-allow-origin'), pageOrigin);
    // at speed 0 a run plays without delays: it saves, against the same run paced at speed
    // 1 (its schedule, some 1.2 s), most of its time, whatever the machine's load adds to both
    const timed = async (speed) => {
      const started = performance.now();
      const { events } = await postRun(mock, runInput('Search for ocean wave videos', { forwardedProps: { scenario_name: 'video-mixcut' } }), { [SPEED_HEADER]: speed });
      assert.equal(events.at(-1).type, 'RUN_FINISHED');
      return performance.now() - started;
    };
    const instant = await timed('0');
    const paced = await timed('1');
    assert.ok(paced - instant >= 500, `the run at speed 0 took ${Math.round(instant)} ms, at speed 1 ${Math.round(paced)} ms`);
  });

  test('serves the directory mounted read-only at /scenarios, and reloads a file the host edits', async () => {
    const { Mounts } = await mock.inspect();
    assert.deepEqual(Mounts.map((m) => [m.Destination, m.RW]), [['/scenarios', false]]);
    const said = async () => streamedTexts((await postRun(mock, runInput('hello container'))).events);
    assert.deepEqual(await said(), ['v1']);
    writeFileSync(path.join(scenarios, 'greeting.yaml'), greeting('v2'));
    await eventually(async () => (await said())[0] === 'v2', 'the edited scenario is played', 10_000);
  });

  test('@ag-ui/client holds a conversation with interrupts through the mapped port', async () => {
    const conversation = new Conversation(CLIENTS[0], { url: mock.url });
    const first = await conversation.send(APPROVAL_MESSAGE, { forwardedProps: APPROVAL_PROPS });
    assertCleanRun(first);
    assert.deepEqual(first.finished.interrupts.map((i) => i.message), ['Trim the first 10 seconds of "Ocean waves at dawn"?', 'Add the watermark "© Media Library"?']);
    const answered = await conversation.continue({ resume: approveAll(first.finished.interrupts) });
    assertCleanRun(answered);
    assert.deepEqual(streamedTexts(answered.events), APPROVED_TEXTS);
  });

  test('headless Chromium, from another origin, holds the same conversation', async () => {
    browser = await launchChromium();
    const { page } = await openPage(browser, pageOrigin);
    const url = `${mock.url}/agui/chat`;
    const first = await page.evaluate((o) => window.aguiTest.run(o), { url, message: APPROVAL_MESSAGE, forwardedProps: APPROVAL_PROPS });
    assert.equal(first.status, 'done');
    assert.equal(first.interrupts.length, 2);
    const answered = await page.evaluate((o) => window.aguiTest.run(o), { url, resume: approveAll(first.interrupts) });
    assert.equal(answered.status, 'done');
    assert.equal(answered.threadId, first.threadId);
    const texts = answered.messages.filter((m) => m.role === 'assistant' && m.content).map((m) => m.content);
    assert.deepEqual(texts.slice(-3), APPROVED_TEXTS);
  });

  // last: it stops the container
  test('docker stop (SIGTERM) ends an open stream with RUN_ERROR and exits 0 within 10 s', async () => {
    const stream = openRun(mock, runInput('slow'), { speed: 1 });
    await stream.waitFor((e) => e.type === 'TEXT_MESSAGE_END'); // now in its minute-long pause
    await mock.stop(10); // a kill when the 10 s are up would leave exit code 137
    const { events, error } = await stream.done;
    assert.equal(error, undefined);
    assert.equal(events.at(-1).type, 'RUN_ERROR');
    assert.match(JSON.stringify(events.at(-1)), /server_shutdown/);
    const { State } = await mock.inspect();
    assert.equal(State.ExitCode, 0, 'the process exited of itself, before docker stop killed it');
  });
});
