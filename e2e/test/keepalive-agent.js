// A stand-in AG-UI agent on Node's own HTTP server, run in a worker thread so that a test
// can hold its event loop still. The server closes a kept-alive connection that stays
// idle for workerData.keepAliveMs (server.keepAliveTimeout, 5 s by default in Node). Once
// its first answer is written it stops: it sets workerData.gate[1] to the port of the
// connection that answer went out on, gate[0] to 1, and blocks until the test sets gate[0]
// to something else. Meanwhile a request may reach the idle connection
// unread; when the loop goes on, the keep-alive timer, past due, fires before the socket
// is read, and the server closes the connection with the request in it, as a busy Node
// agent does when a client reuses a connection just as its keepAliveTimeout ends.
//
// It posts {port} once it listens, and {runId, clientPort} for each run it answered.

import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { keepAliveMs, gate } = workerData;

/** Writes one SSE frame carrying event. */
function writeEvent(res, event) {
  res.write(`data: ${JSON.stringify({ timestamp: Date.now(), ...event })}\n\n`);
}

let stopped = false;
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const { threadId, runId } = input;
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    writeEvent(res, { type: 'RUN_STARTED', threadId, runId });
    writeEvent(res, { type: 'TEXT_MESSAGE_START', messageId: `msg-${runId}`, role: 'assistant' });
    writeEvent(res, { type: 'TEXT_MESSAGE_CONTENT', messageId: `msg-${runId}`, delta: 'Hello from Node.' });
    writeEvent(res, { type: 'TEXT_MESSAGE_END', messageId: `msg-${runId}` });
    writeEvent(res, { type: 'RUN_FINISHED', threadId, runId });
    const clientPort = req.socket.remotePort;
    res.end(() => {
      parentPort.postMessage({ runId, clientPort });
      if (stopped) return;
      stopped = true;
      // In the check phase: the next phase that reads sockets comes after the timers.
      setImmediate(() => {
        Atomics.store(gate, 1, clientPort);
        Atomics.store(gate, 0, 1);
        Atomics.notify(gate, 0);
        Atomics.wait(gate, 0, 1);
      });
    });
  });
});
server.keepAliveTimeout = keepAliveMs;
server.keepAliveTimeoutBuffer = 0; // where Node has it: else a second more
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
