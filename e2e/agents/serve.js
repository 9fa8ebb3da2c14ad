// Serves an AG-UI agent object (an AbstractAgent such as LangGraphAgent or MastraAgent,
// which have run() but no HTTP side) as an AG-UI server: POST a RunAgentInput to any
// path, get the events of agent.run(input) back as SSE written by @ag-ui/encoder. A new
// agent answers each request, as a server-side AG-UI integration builds one per request.
//
// The process prints `listening on http://127.0.0.1:PORT` once it accepts connections.

import http from 'node:http';
import { EventEncoder } from '@ag-ui/encoder';

/**
 * Listens on 127.0.0.1:port (0: any free port) and answers each POST with the events of
 * newAgent().run(input). Resolves with the server.
 */
export async function serveAgent(newAgent, port = 0) {
  const server = http.createServer(async (req, res) => {
    if (req.method !== 'POST') return res.writeHead(405).end();
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    let input;
    try {
      input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch (err) {
      return res.writeHead(400, { 'Content-Type': 'text/plain' }).end(`not a RunAgentInput: ${err.message}`);
    }
    const encoder = new EventEncoder({ accept: 'text/event-stream' });
    res.writeHead(200, { 'Content-Type': encoder.getContentType(), 'Cache-Control': 'no-cache' });
    const subscription = newAgent().run(input).subscribe({
      next: (event) => res.write(encoder.encode(event)),
      error: (err) => {
        // The stream is already under way: the client learns of the failure by a RUN_ERROR.
        res.end(encoder.encode({ type: 'RUN_ERROR', message: String(err?.message ?? err) }));
      },
      complete: () => res.end(),
    });
    // A client that goes away ends the run; one that read it to the end leaves the agent
    // to finish its own work (Mastra persists a suspended run after its last event).
    res.on('close', () => {
      if (!res.writableFinished) subscription.unsubscribe();
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
  return server;
}
