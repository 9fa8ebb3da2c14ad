// Admission (--max-starting): while that many connections are starting (accepted, no
// byte of their answer sent yet), the next ones wait in the kernel's accept queue. An
// answer that has begun, or that waits on purpose, gives its place up, so that streams
// that stay open never keep new connections out. Neither do clients that are slow on
// purpose: a connection whose request has not arrived within 100 ms gives its place
// back, and so does one while its body arrives, which has 10 s to.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { adminOK, FAULT_HEADER, newTestId, openRun, runInput, TEST_ID_HEADER } from './admin.js';
import { assertCleanRun, CLIENTS, Conversation } from './clients.js';
import { startServer } from './harness.js';

// What the server gives a request's headers, and then its body, to arrive (its defaults):
// the times a stalled body and a silent socket hold a connection.
const HEADER_TIMEOUT_MS = 10_000;
const BODY_TIMEOUT_MS = 10_000;

/**
 * Sends a request on a connection of its own (not from a keep-alive pool, whose idle
 * connections were admitted already), connecting now: connections are accepted in the
 * order they connect. Returns answered (resolves with the status), within(waitMs)
 * (the status, or 'waiting' if none came in time) and abort().
 */
function fresh(server, method, path, { headers = {}, body } = {}) {
  const request = http.request(server.url + path, { method, agent: false, headers: { Connection: 'close', ...headers } });
  request.end(body);
  const answered = new Promise((resolve, reject) => {
    request.on('response', (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    request.on('error', reject);
  });
  answered.catch(() => {}); // aborted requests
  return {
    answered,
    within: (waitMs) => Promise.race([answered, new Promise((resolve) => setTimeout(() => resolve('waiting'), waitMs).unref())]),
    abort: () => request.destroy(),
  };
}

describe('admission with --max-starting 1', () => {
  let server;
  before(async () => {
    server = await startServer(['--max-starting', '1']);
  });
  after(() => server?.stop());

  test('a connection that sends nothing gives the only place back at once: the next is answered while it stays', async () => {
    const { hostname, port } = new URL(server.url);
    const silent = net.connect(Number(port), hostname);
    await once(silent, 'connect');
    try {
      const next = fresh(server, 'GET', '/_mock/healthz');
      assert.equal(await next.within(1000), 200, 'a silent connection kept the only place');
    } finally {
      silent.destroy();
    }
  });

  test('a stream paused at a breakpoint and a slowStart give their places up; the official clients run beside them', async () => {
    const testId = newTestId('admission');
    const { id } = await adminOK(server, 'POST', '/breakpoints', { testId, body: { event: 0 } }, 201);
    const paused = openRun(server, runInput('explicit please'), { headers: { [TEST_ID_HEADER]: testId } });
    await paused.ready;
    assert.equal(paused.status, 200, 'the paused stream has sent its headers');
    const slow = fresh(server, 'POST', '/agui/chat', {
      headers: { 'Content-Type': 'application/json', [FAULT_HEADER]: 'slowStart; delay=1h' },
      body: JSON.stringify(runInput('explicit please')),
    });
    try {
      const probe = fresh(server, 'GET', '/_mock/healthz'); // connects after the slowStart
      assert.equal(await probe.within(10_000), 200, 'a new connection got in beside the waiting answers');
      for (const client of CLIENTS) {
        const run = await new Conversation(client, { url: server.url }).send('explicit please');
        assertCleanRun(run);
      }
      await adminOK(server, 'POST', `/breakpoints/${id}/release`);
      assert.equal((await paused.done).events.at(-1).type, 'RUN_FINISHED');
    } finally {
      slow.abort();
      paused.abort();
    }
  });
});

/** Opens a socket to the server; resolves once it is connected. */
async function connect(server) {
  const { hostname, port } = new URL(server.url);
  const socket = net.connect(Number(port), hostname);
  socket.on('error', () => {}); // the server may drop it
  await once(socket, 'connect');
  return socket;
}

/**
 * How long a request on a fresh connection waits for its answer's status; fails past
 * limitMs, a time the test sets against the server's own: what a stalled body or a silent
 * socket is given (10 s), which the answer must not wait for.
 */
async function answeredIn(server, method, path, status, limitMs, options) {
  const started = performance.now();
  const got = await fresh(server, method, path, options).within(limitMs);
  const took = performance.now() - started;
  assert.equal(got, status, `${method} ${path} after ${Math.round(took)} ms`);
  return took;
}

describe('slow clients with the default --max-starting (128)', () => {
  let server;
  before(async () => {
    server = await startServer([]);
  });
  after(() => server?.stop());

  test('130 runs that stall their bodies: health checks answer and runs of other clients play before their time is up, and each stalled body gets 408 after 10 s', { timeout: 30_000 }, async () => {
    const stalled = [];
    try {
      const stalledAt = performance.now();
      for (let i = 0; i < 130; i++) {
        const socket = await connect(server);
        socket.write('POST /agui/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
        const answer = new Promise((resolve) => {
          let text = '';
          socket.on('data', (d) => { text += d; });
          socket.on('close', () => resolve(text));
        });
        stalled.push({ socket, answer });
      }
      const started = performance.now();
      const left = () => BODY_TIMEOUT_MS - (performance.now() - stalledAt);
      const health = await answeredIn(server, 'GET', '/_mock/healthz', 200, left());
      const ready = await answeredIn(server, 'GET', '/_mock/readyz', 200, left());
      const runStarted = performance.now();
      const run = await new Conversation(CLIENTS[0], { url: server.url }).send('explicit please');
      assertCleanRun(run);
      const runMs = performance.now() - runStarted;
      assert.ok(left() > 0, `a run of another client took ${Math.round(runMs)} ms, past the stalled bodies' time`);
      console.log(`130 stalled bodies: /_mock/healthz ${health.toFixed(1)} ms, /_mock/readyz ${ready.toFixed(1)} ms, a whole run ${runMs.toFixed(1)} ms`);
      const answers = await Promise.all(stalled.map((s) => s.answer));
      const waited = performance.now() - started;
      for (const text of answers) {
        assert.match(text, /^HTTP\/1\.1 408 /);
        assert.match(text, /"error":"body_timeout"/);
      }
      // not before their time (the test's own timeout guards against never)
      assert.ok(waited > BODY_TIMEOUT_MS - 2000, `the stalled bodies were answered after ${Math.round(waited)} ms`);
    } finally {
      for (const { socket } of stalled) socket.destroy();
    }
  });

  test('200 silent sockets that reconnect: health checks answer and runs play well before a silent socket\'s time is up', { timeout: 30_000 }, async () => {
    const sockets = [];
    for (let i = 0; i < 200; i++) sockets.push(await connect(server));
    let churning = true;
    const churn = (async () => { // one socket dropped and opened again every 50 ms
      while (churning) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const i = Math.floor(Math.random() * sockets.length);
        sockets[i].destroy();
        sockets[i] = await connect(server);
      }
    })();
    try {
      let slowest = 0;
      for (let i = 0; i < 5; i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        slowest = Math.max(slowest, await answeredIn(server, 'GET', '/_mock/healthz', 200, HEADER_TIMEOUT_MS / 2));
      }
      const runStarted = performance.now();
      assertCleanRun(await new Conversation(CLIENTS[0], { url: server.url }).send('explicit please'));
      const runMs = performance.now() - runStarted;
      assert.ok(runMs < HEADER_TIMEOUT_MS / 2, `a run took ${Math.round(runMs)} ms`);
      console.log(`200 reconnecting silent sockets: slowest of 5 health checks ${slowest.toFixed(1)} ms, a whole run ${runMs.toFixed(1)} ms`);
    } finally {
      churning = false;
      await churn;
      for (const socket of sockets) socket.destroy();
    }
  });
});
