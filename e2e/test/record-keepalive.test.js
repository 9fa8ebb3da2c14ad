// Record mode against a Node agent that closes its idle kept-alive connections
// (server.keepAliveTimeout): a run that the recorder sends on such a connection just as
// the agent closes it never reaches the agent, and is sent again on a new connection
// instead of failing 502 upstream_unreachable. The race is made to happen every time:
// the agent (keepalive-agent.js, in a worker thread) holds its event loop still after
// its first answer, the next run is written to the idle connection meanwhile, and the
// loop goes on only once the run waits unread in the agent's socket and the keep-alive
// timeout is past, so that the agent closes the connection before it reads the run.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { test } from 'node:test';
import { CLIENTS, Conversation } from './clients.js';
import { eventually, makeTempDir } from './harness.js';
import { startRecorder } from './recording.js';

const [current] = CLIENTS;

const KEEP_ALIVE_MS = 100;
// Node 20.19 and later close an idle connection a second after keepAliveTimeout
// (HTTP_SERVER_KEEP_ALIVE_TIMEOUT_BUFFER; server.keepAliveTimeoutBuffer where it can be
// set, which the agent sets to 0).
const CLOSES_AFTER_MS = KEEP_ALIVE_MS + 1_000;
const PROC_NET_TCP = '/proc/net/tcp';

/**
 * Resolves once the loopback connection from clientPort to the agent's port holds bytes
 * the agent has not read: Linux's /proc/net/tcp shows each socket's receive queue.
 * Elsewhere it waits a while instead, long enough for a run to cross the recorder.
 */
async function unreadAt(agentPort, clientPort, timeoutMs = 10_000) {
  if (!existsSync(PROC_NET_TCP)) return sleep(500);
  const hex = (port) => port.toString(16).toUpperCase().padStart(4, '0');
  const local = `:${hex(agentPort)}`;
  const remote = `:${hex(clientPort)}`;
  await eventually(() => readFileSync(PROC_NET_TCP, 'utf8').split('\n').slice(1).some((line) => {
    const [, localAddress, remoteAddress, , queues] = line.trim().split(/\s+/);
    return localAddress?.endsWith(local) && remoteAddress?.endsWith(remote) && parseInt(queues.split(':')[1], 16) > 0;
  }), `no run reached the agent's kept-alive connection from port ${clientPort}`, timeoutMs, 5);
}

/** Resolves once gate[0] is no longer 0. */
async function opened(gate, timeoutMs = 10_000) {
  const waiting = Atomics.waitAsync(gate, 0, 0, timeoutMs);
  if (waiting.async) await waiting.value;
  assert.notEqual(Atomics.load(gate, 0), 0, `the agent did not stop after its first answer within ${timeoutMs} ms`);
}

test('record: a run sent on a kept-alive connection the agent closes as it arrives is sent again on a new one', async () => {
  const gate = new Int32Array(new SharedArrayBuffer(8));
  const agent = new Worker(new URL('./keepalive-agent.js', import.meta.url), { workerData: { keepAliveMs: KEEP_ALIVE_MS, gate } });
  const answered = [];
  let onAnswer = () => {};
  const listening = new Promise((resolve, reject) => {
    agent.on('message', (message) => (message.port ? resolve(message.port) : (answered.push(message), onAnswer())));
    agent.once('error', reject);
  });
  /** Resolves once the agent has answered count runs. */
  const answers = (count) =>
    new Promise((resolve) => {
      onAnswer = () => answered.length >= count && resolve();
      onAnswer();
    });
  const recorder = await startRecorder(`http://127.0.0.1:${await listening}`, makeTempDir('agui-mock-keepalive-'));
  try {
    const agentPort = await listening;
    const first = await new Conversation(current, { url: recorder.url, speed: null }).send('hello');
    assert.equal(first.failure, undefined, `the first run failed: ${first.failure?.message}`);
    await opened(gate); // the agent is still, its connection to the recorder idle and open
    const stoppedAt = performance.now();
    const pending = new Conversation(current, { url: recorder.url, speed: null }).send('hello again');
    await unreadAt(agentPort, Atomics.load(gate, 1));
    await sleep(Math.max(0, stoppedAt + CLOSES_AFTER_MS + 100 - performance.now())); // the keep-alive timer is past due
    Atomics.store(gate, 0, 2);
    Atomics.notify(gate, 0);

    const second = await pending;
    assert.equal(second.failure, undefined, `the second run failed: ${second.failure?.status} ${JSON.stringify(second.failure?.payload)}`);
    assert.equal(second.events.at(-1)?.type, 'RUN_FINISHED');
    await answers(2);
    assert.deepEqual(
      answered.map((a) => a.runId),
      [first.runId, second.runId],
      'the agent answered each run once',
    );
    assert.notEqual(answered[1].clientPort, answered[0].clientPort, 'the second run came on a new connection');
    await recorder.waitForOutput((line) => line.startsWith(`recorded run ${second.runId} `));
  } finally {
    await recorder.stop();
    await agent.terminate();
  }
});
