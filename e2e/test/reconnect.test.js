// Reconnecting after a drop: with --sse-ids=cursor every event's id names its run and its
// place in it; a client whose connection drops POSTs the same RunAgentInput again with
// Last-Event-ID and reads the rest of the run, which played on meanwhile. The AG-UI
// client has no reconnect of its own, so these tests speak raw SSE over fetch.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { useServer, writeTempFiles } from './harness.js';

// About two seconds of text, one word every 40 ms.
const SLOW = `
id: slow
match:
  message: slow
timing:
  firstToken: 0s
  tokensPerSecond: 25
steps:
  - text: ${Array.from({ length: 50 }, (_, i) => `word${i + 1}`).join(' ')}
`;

const scenarios = writeTempFiles({ 'slow.yaml': SLOW });

/** A run input of the slow scenario on thread. */
const runInput = (thread, runId = 'run-1') =>
  JSON.stringify({ threadId: thread, runId, messages: [{ id: 'm1', role: 'user', content: 'slow' }] });

/** POSTs a run input, with Last-Event-ID when lastId is given. */
function post(server, body, { lastId, signal } = {}) {
  const headers = { 'Content-Type': 'application/json' };
  if (lastId) headers['Last-Event-ID'] = lastId;
  return fetch(`${server.url}/agui/chat`, { method: 'POST', headers, body, signal });
}

/**
 * Reads the SSE frames of a response, up to max events (all without max), as
 * {id, event}; the timestamp and thread are taken out of each event so that the events
 * of two runs compare.
 */
async function readFrames(response, max = Infinity) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const frames = [];
  let text = '';
  while (frames.length < max) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    let end;
    while (frames.length < max && (end = text.indexOf('\n\n')) >= 0) {
      const frame = text.slice(0, end);
      text = text.slice(end + 2);
      const id = /^id: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (data === undefined) continue; // a keep-alive comment
      const { timestamp, threadId, ...event } = JSON.parse(data);
      frames.push({ id, event });
    }
  }
  return frames;
}

/** Reads the first n events of a run on thread, then drops the connection. */
async function readThenDrop(server, thread, n) {
  const controller = new AbortController();
  const response = await post(server, runInput(thread), { signal: controller.signal });
  assert.equal(response.status, 200);
  const frames = await readFrames(response, n);
  controller.abort(); // the connection goes, in the middle of the run
  return frames;
}

/** The error code of a refused answer. */
async function refusal(response) {
  const body = await response.json();
  return { status: response.status, error: body.error };
}

describe('reconnecting with Last-Event-ID', () => {
  const GRACE_MS = 20_000;
  const server = useServer(['--sse-ids=cursor', '--scenarios', scenarios, '--reconnect-grace', `${GRACE_MS / 1000}s`]);

  test('a run read in two parts across a drop is the uninterrupted run, event for event', async () => {
    const whole = await readFrames(await post(server, runInput(`whole-${randomUUID()}`)));
    assert.ok(whole.length > 40, `the uninterrupted run has ${whole.length} events`);

    const thread = `cut-${randomUUID()}`;
    const before = await readThenDrop(server, thread, 7);
    const again = await post(server, runInput(thread), { lastId: before.at(-1).id });
    assert.equal(again.status, 200);
    const after = await readFrames(again);

    const joined = [...before, ...after];
    assert.deepEqual(joined.map((f) => f.event), whole.map((f) => f.event));
    assert.equal(joined.filter((f) => f.event.type === 'RUN_STARTED').length, 1, 'one RUN_STARTED');
    const token = joined[0].id.split('.')[0];
    assert.deepEqual(joined.map((f) => f.id), joined.map((_, i) => `${token}.${i + 1}`), 'consecutive ids, none lost or repeated');
    const log = await server.waitForLog((r) => r.msg === 'run' && r.thread === thread);
    assert.equal(log.outcome, 'success', 'the run played to its end while its client was away');
  });

  test("another thread's cursor is refused with 409, an unknown one with 410", async () => {
    const thread = `mine-${randomUUID()}`;
    const frames = await readThenDrop(server, thread, 2);
    const cursor = frames.at(-1).id;
    assert.deepEqual(await refusal(await post(server, runInput(`theirs-${randomUUID()}`), { lastId: cursor })), {
      status: 409,
      error: 'reconnect_mismatch',
    });
    const unknown = `${'Q'.repeat(22)}.2`;
    assert.deepEqual(await refusal(await post(server, runInput(thread), { lastId: unknown })), {
      status: 410,
      error: 'reconnect_expired',
    });
    assert.deepEqual(await refusal(await post(server, runInput(thread), { lastId: 'RUN_STARTED_1' })), {
      status: 400,
      error: 'invalid_cursor',
    });
  });

  test('the cancel endpoint cancels a run waiting for its client at once', async () => {
    const thread = `cancel-${randomUUID()}`;
    const frames = await readThenDrop(server, thread, 3);
    const started = Date.now();
    const answer = await fetch(`${server.url}/agui/cancel`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ threadId: thread }),
    });
    const body = await answer.json();
    assert.equal(body.cancelled, true, JSON.stringify(body));
    // at once: not when the run's wait for its client (the grace) would end
    assert.ok(Date.now() - started < GRACE_MS / 2, `cancelled in ${Date.now() - started} ms`);
    const log = await server.waitForLog((r) => r.msg === 'run' && r.thread === thread);
    assert.equal(log.outcome, 'cancelled');
    // A client that comes back reads how the run ended.
    const rest = await readFrames(await post(server, runInput(thread), { lastId: frames.at(-1).id }));
    const last = rest.at(-1).event;
    assert.ok(last.type === 'RUN_ERROR' ? last.code === 'cancelled' : last.outcome?.type === 'cancelled', JSON.stringify(last));
  });
});

describe('a client that stays away past --reconnect-grace', () => {
  const server = useServer(['--sse-ids=cursor', '--scenarios', scenarios, '--reconnect-grace', '300ms']);

  test('its run counts as cancelled, and its cursor is expired', async () => {
    const thread = `gone-${randomUUID()}`;
    const frames = await readThenDrop(server, thread, 3);
    const log = await server.waitForLog((r) => r.msg === 'run' && r.thread === thread);
    assert.equal(log.outcome, 'cancelled');
    assert.ok(log.events < 50, `the run stopped after ${log.events} events, before its end`);
    const journal = await (await fetch(`${server.url}/_mock/journal`)).json();
    const entry = journal.entries.find((e) => e.threadId === thread && e.outcome);
    assert.match(entry?.reason ?? '', /did not reconnect within the grace period/);
    assert.deepEqual(await refusal(await post(server, runInput(thread), { lastId: frames.at(-1).id })), {
      status: 410,
      error: 'reconnect_expired',
    });
  });
});
