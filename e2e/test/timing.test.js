// (d) Timing on the real clock: at the server's default speed a run is paced like a real
// model, its events arriving spread out; with X-Agui-Mock-Speed: 0 it is instant. Long
// pauses carry keep-alive comments, which both client versions skip.
//
// The run's schedule is read off its events' stamps, which --fixed-time makes the fixed
// time plus each event's offset in the schedule: the same however loaded the machine is.
// What the real clock measures is compared with that schedule, or with another run
// measured alike, never with a limit of its own.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation, DEFAULT_ROUTE } from './clients.js';
import { useServer } from './harness.js';

const server = useServer(['--fixed-time', '2026-01-01T00:00:00Z']);
// A server that writes a keep-alive comment during every pause longer than 50 ms.
const chatty = useServer(['--keepalive', '50ms']);

const SEARCH = ['Search for ocean wave videos', { forwardedProps: { scenario_name: 'video-mixcut' } }];

/** Sends the search request with the given speed header (null: none) and times the run. */
async function timedSearch(client, speed) {
  const started = performance.now();
  const run = await new Conversation(client, { url: server.url, speed }).send(...SEARCH);
  const elapsed = performance.now() - started;
  assertCleanRun(run);
  return { run, elapsed };
}

/** The span of a run's schedule, in ms: from its first event's stamp to its last's. */
function scheduleOf(run) {
  const stamps = run.events.map((e) => e.timestamp).filter((t) => typeof t === 'number');
  assert.ok(stamps.length >= 2, 'the events carry their stamps');
  return stamps.at(-1) - stamps[0];
}

/** How many arrival times lie at least gapMs after the previous one counted. */
function distinctArrivals(times, gapMs) {
  let count = 0;
  let last = -Infinity;
  for (const t of times) {
    if (t - last >= gapMs) {
      count++;
      last = t;
    }
  }
  return count;
}

test('keep-alive comments fill pauses longer than the interval, framed as SSE comments', async () => {
  // explicit-events waits 250 ms before its first message: four keep-alives at 50 ms
  // on a quiet machine; a loaded one delays timers, so at least one is what holds.
  const res = await fetch(chatty.url + DEFAULT_ROUTE, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      threadId: 't-1',
      runId: 'r-1',
      messages: [{ id: 'm-1', role: 'user', content: 'explicit please' }],
    }),
  });
  const frames = (await res.text()).split('\n\n').filter(Boolean);
  const comments = frames.filter((f) => f === ': keep-alive');
  assert.ok(comments.length >= 1, `${comments.length} keep-alive comments`);
  for (const frame of frames.filter((f) => f !== ': keep-alive')) {
    assert.match(frame, /^id: \S+\ndata: \{.*\}$/);
  }
});

for (const client of CLIENTS) {
  describe(`timing with ${client.label}`, () => {
    test('at the default speed, video-mixcut-search is paced by its schedule of 0.5-5 s, its events spread out', async () => {
      const { run, elapsed } = await timedSearch(client, null);
      const schedule = scheduleOf(run);
      assert.ok(schedule >= 500 && schedule <= 5000, `the schedule spans ${schedule} ms`);
      assert.ok(elapsed >= schedule - 20, `the run took ${Math.round(elapsed)} ms, less than its schedule of ${schedule} ms`);
      const distinct = distinctArrivals(run.arrivals, 10);
      assert.ok(distinct >= 5, `only ${distinct} distinct arrival times 10 ms apart`);
    });

    test('with X-Agui-Mock-Speed: 0 it skips the waits of its schedule', async () => {
      const paced = await timedSearch(client, null);
      const instant = await timedSearch(client, 0);
      const schedule = scheduleOf(instant.run); // the stamps are not scaled by the speed
      assert.equal(schedule, scheduleOf(paced.run), 'the same schedule');
      // Whatever the load adds to both, the instant run saves the schedule's waits.
      const saved = paced.elapsed - instant.elapsed;
      assert.ok(saved >= schedule / 2, `paced ${Math.round(paced.elapsed)} ms, instant ${Math.round(instant.elapsed)} ms, for a schedule of ${schedule} ms`);
    });

    test('keep-alive comments do not disturb the run', async () => {
      const run = await new Conversation(client, { url: chatty.url, speed: null }).send('explicit please');
      assertCleanRun(run);
      assert.equal(run.agent.messages.at(-1).content, 'Every event exactly as written.');
    });
  });
}
