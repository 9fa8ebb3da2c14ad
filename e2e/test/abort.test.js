// (f) Runs cut short: by the client aborting, and by the server shutting down. Neither
// fails the run in either client version, and an aborted run leaves the server healthy.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation, eventsOf, messagesOf } from './clients.js';
import { startServer, useServer } from './harness.js';

const server = useServer();

/** Whether an event is part of streamed text or reasoning: the run is well under way. */
const isStreaming = (event) => /^(TEXT_MESSAGE|REASONING)_/.test(event.type);

/** The server's log record of the run with the given id. */
const runLog = (srv, runId) => srv.waitForLog((r) => r.msg === 'run' && r.run === runId);

for (const client of CLIENTS) {
  describe(`cut-short runs with ${client.label}`, () => {
    test('abortRun() mid-stream ends the run without failure and the server stays healthy', async () => {
      const conversation = new Conversation(client, { url: server.url, speed: null });
      let aborted = false;
      const run = await conversation.send('showcase', {
        onEvent: (event, agent) => {
          if (!aborted && isStreaming(event)) {
            aborted = true;
            agent.abortRun();
          }
        },
      });

      assert.ok(aborted, 'the run reached streaming before it ended');
      assert.equal(run.failure, undefined, `onRunFailed was called: ${run.failure}`);
      assert.equal(run.rejection, undefined, `runAgent rejected: ${run.rejection}`);
      assert.deepEqual(run.consoleCalls, []);
      // The client itself ends an aborted stream with a RUN_ERROR of code "abort".
      const last = run.events.at(-1);
      assert.equal(last.type, 'RUN_ERROR');
      assert.equal(last.code, 'abort');
      assert.equal(eventsOf(run, 'RUN_FINISHED').length, 0);

      // The server noticed the client leave and stopped playing: the run is recorded as
      // cancelled. It may have sent a few more events than the client took in before it
      // stopped reading.
      const log = await runLog(server, run.runId);
      assert.equal(log.outcome, 'cancelled');
      assert.ok(log.events >= run.events.length - 1, `the server sent ${log.events} events`);

      const health = await fetch(`${server.url}/_mock/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: 'ok' });

      // The same conversation goes on: the next turn runs to the end.
      const next = await conversation.send('explicit please');
      assertCleanRun(next);
      assert.equal(messagesOf(next, 'assistant').at(-1).content, 'Every event exactly as written.');
    });

    test('a server shutdown mid-stream ends the run with RUN_ERROR server_shutdown', async () => {
      const doomed = await startServer();
      let stopping;
      const run = await new Conversation(client, { url: doomed.url, speed: null }).send('showcase', {
        onEvent: (event) => {
          if (!stopping && isStreaming(event)) stopping = doomed.stop();
        },
      });

      assert.ok(stopping, 'the run reached streaming before it ended');
      assertCleanRun(run);
      const last = run.events.at(-1);
      assert.equal(last.type, 'RUN_ERROR');
      assert.equal(last.code, 'server_shutdown');
      assert.deepEqual(await stopping, { code: 0, signal: null }, 'the server exits cleanly on SIGTERM');
      // The run log and the thread's history share one vocabulary of outcomes: a run
      // that ended in RUN_ERROR is an error.
      assert.equal((await runLog(doomed, run.runId)).outcome, 'error');
    });
  });
}
