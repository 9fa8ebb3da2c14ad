// (d) Timing on the real clock: at the server's default speed a run is paced like a real
// model, its events arriving spread out; with X-Agui-Mock-Speed: 0 it is instant. Long
// pauses carry keep-alive comments, which both client versions skip.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation, DEFAULT_ROUTE } from './clients.js';
import { useServer } from './harness.js';

const server = useServer();
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
    test('at the default speed, video-mixcut-search takes 0.5-5 s with events spread out', async () => {
      const { run, elapsed } = await timedSearch(client, null);
      assert.ok(elapsed >= 500 && elapsed <= 5000, `the run took ${Math.round(elapsed)} ms`);
      const distinct = distinctArrivals(run.arrivals, 10);
      assert.ok(distinct >= 5, `only ${distinct} distinct arrival times 10 ms apart`);
    });

    test('with X-Agui-Mock-Speed: 0 it completes in under a second', async () => {
      const { elapsed } = await timedSearch(client, 0);
      assert.ok(elapsed < 1000, `the run took ${Math.round(elapsed)} ms`);
    });

    test('keep-alive comments do not disturb the run', async () => {
      const run = await new Conversation(client, { url: chatty.url, speed: null }).send('explicit please');
      assertCleanRun(run);
      assert.equal(run.agent.messages.at(-1).content, 'Every event exactly as written.');
    });
  });
}
