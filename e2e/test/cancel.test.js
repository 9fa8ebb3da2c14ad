// (i) Stopping runs: POST /agui/cancel mid-stream ends the stream cleanly with a
// cancelled outcome, a client's abortRun() is recorded as cancelled too, and a thread
// runs one run at a time (a second concurrent run is 409 run_in_progress).

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation, DEFAULT_ROUTE, eventsOf, messagesOf, SPEED_HEADER } from './clients.js';
import { useServer } from './harness.js';
import {
  assertHistoryMatchesClient,
  cancelThread,
  runOutcomes,
  settledHistory,
  threadHistory,
  unclosed,
} from './threads.js';

const server = useServer();

/** The server's log record of the run with the given id. */
const runLog = (runId) => server.waitForLog((r) => r.msg === 'run' && r.run === runId);

/** Resolves with the first event for which predicate holds; call it from onEvent. */
function firstEvent(predicate) {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, onEvent: (event, agent) => predicate(event) && resolve({ event, agent }) };
}

for (const client of CLIENTS) {
  describe(`cancel and abort with ${client.label}`, () => {
    test('POST /agui/cancel after the first text delta ends the run cleanly; the thread goes on', async () => {
      const conversation = new Conversation(client, { url: server.url, speed: null });
      const { agent } = conversation;
      let cancelling;
      let running;
      const run = await conversation.send('showcase', {
        onEvent: (event) => {
          if (!cancelling && event.type === 'TEXT_MESSAGE_CONTENT') {
            // While it streams, history shows the run; then it is cancelled.
            cancelling = threadHistory(server, agent.threadId).then((history) => {
              running = history.running;
              return cancelThread(server, agent.threadId);
            });
          }
        },
      });

      assert.ok(cancelling, 'the run reached its text');
      assertCleanRun(run);
      const last = run.events.at(-1);
      if (client.protocolVersion) {
        assert.equal(last.type, 'RUN_FINISHED');
        assert.deepEqual(last.outcome, { type: 'cancelled' });
      } else {
        // 0.0.x clients know no cancelled outcome: they get RUN_ERROR with code cancelled.
        assert.equal(last.type, 'RUN_ERROR');
        assert.equal(last.code, 'cancelled');
        assert.equal(eventsOf(run, 'RUN_FINISHED').length, 0);
      }
      assert.deepEqual(unclosed(run.events), [], 'everything open was closed before the end');
      assert.equal(eventsOf(run, 'TOOL_CALL_START').length, 0, 'the run stopped before its tool call');
      const [partial] = messagesOf(run, 'assistant');
      assert.ok(partial.content.length > 0 && !partial.content.includes('showcase complete'), partial.content);

      assert.deepEqual(running && [running.runId, running.scenario, running.outcome], [run.runId, 'showcase', 'running']);
      const { status, body } = await cancelling;
      assert.equal(status, 200);
      const { message, ...answer } = body;
      assert.deepEqual(answer, { threadId: agent.threadId, cancelled: true, runId: run.runId, scenario: 'showcase' });
      assert.ok(message.length > 0);

      let history = await threadHistory(server, agent.threadId);
      assert.deepEqual(runOutcomes(history), ['cancelled']);
      assert.equal(history.running, null);
      assertHistoryMatchesClient(history, agent);
      assert.equal((await runLog(run.runId)).outcome, 'cancelled');

      // Nothing streams now: a second cancel does nothing.
      const again = await cancelThread(server, agent.threadId);
      assert.equal(again.status, 200);
      assert.equal(again.body.cancelled, false);
      assert.equal(again.body.threadId, agent.threadId);
      assert.equal(again.body.runId, undefined);

      // The conversation goes on.
      const next = await conversation.send('explicit please');
      assertCleanRun(next);
      assert.equal(messagesOf(next, 'assistant').at(-1).content, 'Every event exactly as written.');
      history = await threadHistory(server, agent.threadId);
      assert.deepEqual(runOutcomes(history), ['cancelled', 'success']);
      assertHistoryMatchesClient(history, agent);
    });

    test("the client's abortRun() is recorded in history as cancelled", async () => {
      const conversation = new Conversation(client, { url: server.url, speed: null });
      let aborted = false;
      const run = await conversation.send('showcase', {
        onEvent: (event, agent) => {
          if (!aborted && event.type === 'TEXT_MESSAGE_CONTENT') {
            aborted = true;
            agent.abortRun();
          }
        },
      });
      assert.ok(aborted);
      assert.equal(run.failure, undefined);
      assert.equal(run.rejection, undefined);
      assert.equal(run.events.at(-1).code, 'abort', 'the client ends an aborted stream itself');

      const history = await settledHistory(server, conversation.agent.threadId);
      assert.deepEqual(
        history.runs.map((r) => [r.runId, r.outcome]),
        [[run.runId, 'cancelled']],
      );
      assert.equal((await runLog(run.runId)).outcome, 'cancelled');
    });

    test('a second run on a thread while one streams fails with 409 run_in_progress', async () => {
      const conversation = new Conversation(client, { url: server.url, speed: null });
      const started = firstEvent((event) => event.type === 'RUN_STARTED');
      const streaming = conversation.send('showcase', { onEvent: started.onEvent });
      await started.promise;

      // Another tab of the same app, on the same thread.
      const threadId = conversation.agent.threadId;
      const other = await new Conversation(client, { url: server.url, threadId }).send('Hello there');
      assert.ok(other.failure, 'onRunFailed was called');
      assert.equal(other.rejection, other.failure);
      assert.equal(other.failure.status, 409);
      assert.equal(other.failure.payload.error, 'run_in_progress');
      const first = await cancelThread(server, threadId);
      assert.equal(other.failure.payload.details.runId, first.body.runId, 'the answer names the run that streams');

      const run = await streaming;
      assert.equal(run.failure, undefined, 'the first run is not disturbed');
      assert.equal(run.runId, first.body.runId);
      assert.deepEqual(runOutcomes(await threadHistory(server, threadId)), ['cancelled']);
    });
  });
}

describe('cancel and concurrent runs over plain fetch', () => {
  test('two runs on one thread at once: the second is 409 run_in_progress naming the first', async () => {
    const threadId = `thread-${randomUUID()}`;
    const body = (runId, content) => JSON.stringify({ threadId, runId, messages: [{ id: `m-${runId}`, role: 'user', content }] });
    const post = (runId, content, headers = {}) =>
      fetch(server.url + DEFAULT_ROUTE, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: body(runId, content),
      });

    const first = await post('run-001', 'showcase'); // resolves with the headers; the body streams on
    assert.equal(first.status, 200);
    const second = await post('run-002', 'Hello there');
    assert.equal(second.status, 409);
    const refusal = await second.json();
    assert.equal(refusal.error, 'run_in_progress');
    assert.ok(refusal.message.length > 0);
    assert.deepEqual(refusal.details, { runId: 'run-001' });

    const history = await threadHistory(server, threadId);
    assert.equal(history.running.runId, 'run-001');
    assert.deepEqual(runOutcomes(history), ['running'], 'the refused run is not recorded');

    const cancelled = await cancelThread(server, threadId);
    assert.deepEqual([cancelled.body.cancelled, cancelled.body.runId], [true, 'run-001']);
    const text = await first.text(); // the stream has ended
    assert.match(text, /"type":"RUN_ERROR".*"code":"cancelled"/, 'a 0.0.x peer gets RUN_ERROR cancelled');
    // Now the thread is free again.
    const third = await post('run-003', 'Hello there', { [SPEED_HEADER]: '0' });
    assert.equal(third.status, 200);
    await third.text();
    assert.deepEqual(runOutcomes(await threadHistory(server, threadId)), ['cancelled', 'success']);
  });

  test('cancel of a thread the server does not know is 404 unknown_thread', async () => {
    const { status, body } = await cancelThread(server, `thread-${randomUUID()}`);
    assert.equal(status, 404);
    assert.equal(body.error, 'unknown_thread');
  });
});
