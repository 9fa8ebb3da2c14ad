// Admission (--max-starting): while that many connections are starting (accepted, no
// byte of their answer sent yet), the next ones wait in the kernel's accept queue. An
// answer that has begun, or that waits on purpose, gives its place up, so that streams
// that stay open never keep new connections out.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { adminOK, FAULT_HEADER, newTestId, openRun, runInput, TEST_ID_HEADER } from './admin.js';
import { assertCleanRun, CLIENTS, Conversation } from './clients.js';
import { startServer } from './harness.js';

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

  test('a connection that sends nothing holds the only place: the next waits, and is answered once it goes', async () => {
    const { hostname, port } = new URL(server.url);
    const silent = net.connect(Number(port), hostname);
    await once(silent, 'connect');
    const next = fresh(server, 'GET', '/_mock/healthz');
    assert.equal(await next.within(300), 'waiting', 'answered while the only place was held');
    silent.destroy();
    assert.equal(await next.within(10_000), 200);
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
