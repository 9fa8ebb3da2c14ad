// The LangGraph graph of langgraph-graph.mjs behind @ag-ui/langgraph's LangGraphAgent (the
// adapter CopilotKit uses), as an AG-UI server: the in-memory LangGraph API server
// (@langchain/langgraph-api) serves the graph on one loopback port, and serve.js serves
// the agent on another.
//
//   node langgraph-agent.js [port] [langgraph-port]

import path from 'node:path';
import { LangGraphAgent } from '@ag-ui/langgraph';
import { startServer } from '@langchain/langgraph-api/server';
import { serveAgent } from './serve.js';

const here = import.meta.dirname;
// AGENT_GRAPH=variance serves langgraph-variance-graph.mjs instead, under the same id.
const GRAPHS = { agent: 'langgraph-graph.mjs:graph', variance: 'langgraph-variance-graph.mjs:graph' };
const graph = process.env.AGENT_GRAPH || 'agent';
const graphPort = Number(process.argv[3] ?? 0) || (await freePort());
const { host } = await startServer({
  port: graphPort,
  host: '127.0.0.1',
  nWorkers: 1,
  cwd: here,
  graphs: { agent: path.join(here, GRAPHS[graph] ?? GRAPHS.agent) },
});

await serveAgent(() => new LangGraphAgent({ deploymentUrl: `http://${host}`, graphId: 'agent' }), Number(process.argv[2] ?? 0));

async function freePort() {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
