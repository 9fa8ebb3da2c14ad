// A seed reproduces a conversation whatever ids the client sends: the real HttpAgent
// mints a fresh threadId, runId and message ids for every conversation, and the same
// conversation, played again on a server that served others in between, gets the same
// fake data, generated ids and text. With --fixed-time and fixed request ids, a whole
// response is the same byte for byte.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newTestId, TEST_ID_HEADER } from './admin.js';
import { CLIENTS, Conversation, SPEED_HEADER } from './clients.js';
import { seededScenarioDir } from './fixtures.js';
import { useServer } from './harness.js';

/**
 * Plays the seeded trip with a fresh agent: the first run pauses on the booking's
 * interrupt, the second resolves it. Returns both runs' events and the agent's
 * messages, with what the client made up (thread, run and user message ids) masked, and
 * without timestamps: without --fixed-time they tell the time of day.
 */
async function playTrip(client, url) {
  const conversation = new Conversation(client, { url });
  const first = await conversation.send('Plan a trip');
  const [interrupt] = first.finished?.interrupts ?? [];
  assert.ok(interrupt, `the first run pauses on an interrupt: ${JSON.stringify(first.events.at(-1))}`);
  const second = await conversation.continue({ resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { name: 'Ada' } }] });
  assert.equal(second.finished?.outcome, 'success', `the second run completes: ${JSON.stringify(second.events.at(-1))}`);

  const invented = new Map([
    [conversation.agent.threadId, '<thread>'],
    [first.runId, '<run-1>'],
    [second.runId, '<run-2>'],
    [first.userMessage.id, '<user>'],
  ]);
  const mask = (value) =>
    JSON.parse(
      JSON.stringify(value, (key, v) => {
        if (key === 'timestamp') return undefined;
        return typeof v === 'string' && invented.has(v) ? invented.get(v) : v;
      }),
    );
  return { events: mask([first.events, second.events]), messages: mask(conversation.agent.messages) };
}

describe('a --seed server, with the real HttpAgent', () => {
  const server = useServer(['--scenarios', seededScenarioDir()]);

  for (const client of CLIENTS) {
    test(`${client.label}: the same conversation twice, other threads in between, gets the same events`, async () => {
      const played = await playTrip(client, server.url);
      const texts = played.events[0].filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta);
      assert.match(texts.join(''), /^\S+ \S+.* from .+ will be your guide \(id-[0-9a-f]{12}\)\.$/);

      // other threads and tests, on the same scenario and another
      await new Conversation(client, { url: server.url }).send('Plan a trip');
      await new Conversation(client, { url: server.url, headers: { [TEST_ID_HEADER]: newTestId('seed-other') } }).send('showcase');

      assert.deepEqual(await playTrip(client, server.url), played);
    });
  }
});

describe('a --seed --fixed-time server, over plain fetch', () => {
  const server = useServer(['--scenarios', seededScenarioDir(), '--fixed-time', '2026-01-01T09:00:00Z']);

  /** Posts a run on thread t of the test and returns the response as text. */
  async function respond(testId, body) {
    const res = await fetch(`${server.url}/agui/chat`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [SPEED_HEADER]: '0', [TEST_ID_HEADER]: testId },
      body: JSON.stringify({ threadId: 't', ...body }),
    });
    assert.equal(res.status, 200);
    return res.text();
  }

  /** The trip, both runs, with fixed request ids; the interrupt's id is the server's. */
  async function playTrip(testId) {
    const messages = [{ id: 'u1', role: 'user', content: 'Plan a trip' }];
    const first = await respond(testId, { runId: 'r1', messages });
    const interruptId = /"interrupts":\[\{[^}]*"id":"(int-[0-9a-f]+)"/.exec(first)?.[1];
    assert.ok(interruptId, `the first run pauses on an interrupt:\n${first}`);
    const resume = [{ interruptId, status: 'resolved', payload: { name: 'Ada' } }];
    return first + (await respond(testId, { runId: 'r2', messages, resume }));
  }

  test('the same requests get byte-identical responses, after a reset and on another test', async () => {
    const testId = newTestId('seed-bytes');
    const played = await playTrip(testId);
    assert.ok(played.startsWith('id: RUN_STARTED_1767258000050\ndata: {"type":"RUN_STARTED","timestamp":1767258000050,'), played);

    await respond(newTestId('seed-other'), { runId: 'o', messages: [{ role: 'user', content: 'Plan a trip' }] });
    assert.equal((await admin(server, 'POST', '/reset', { testId })).status, 204);
    assert.equal(await playTrip(testId), played);
    assert.equal(await playTrip(newTestId('seed-bytes')), played);
  });
});
