// The CopilotKit path: a CopilotKit runtime (@copilotkit/runtime, its v2 endpoints) whose
// agent is an AG-UI HttpAgent pointed at agui-mock, served over HTTP as an app's runtime
// route would be, and the client a CopilotKit app runs (@copilotkit/core) talking to it.

// The runtime would otherwise report usage to CopilotKit, which the tests must not reach.
process.env.COPILOTKIT_TELEMETRY_DISABLED = 'true';

// @copilotkit/core connects to its runtime only in a browser (it checks for window): the
// least of a window that it uses — events and a location — stands in for one in Node.
globalThis.window ??= Object.assign(new EventTarget(), { location: new URL('http://localhost/') });

import http from 'node:http';
import { createRequire } from 'node:module';
import { CopilotKitCore } from '@copilotkit/core';
import { CopilotRuntime, createCopilotEndpoint } from '@copilotkit/runtime/v2';

// The HttpAgent of the @ag-ui/client the runtime itself depends on, as an app that installs
// @copilotkit/runtime gets it.
const runtimeRequire = createRequire(createRequire(import.meta.url).resolve('@copilotkit/runtime/package.json'));
const { HttpAgent } = await import(runtimeRequire.resolve('@ag-ui/client'));

/** The path the runtime is served under, as in a Next.js app's app/api/copilotkit route. */
export const RUNTIME_PATH = '/api/copilotkit';

/**
 * Serves a CopilotKit runtime whose default agent is an HttpAgent to the mock's run route
 * (speed 0 unless headers say otherwise), with the runtime's options besides its agents
 * (e.g. {a2ui: {}}, which applies the A2UI middleware). Resolves with {url, close()}.
 */
export async function startRuntime(mockURL, headers = { 'X-Agui-Mock-Speed': '0' }, options = {}) {
  const runtime = new CopilotRuntime({ ...options, agents: { default: new HttpAgent({ url: `${mockURL}/agui/chat`, headers }) } });
  return serveFetch(createCopilotEndpoint({ runtime, basePath: RUNTIME_PATH }), RUNTIME_PATH);
}

/**
 * Serves a Fetch handler (a runtime's endpoint, app.fetch) over Node's http, as a Next.js
 * route or an app's runtime server would: a request that its client leaves is aborted.
 * Resolves with {url, close()}, url being the server's under basePath.
 */
export async function serveFetch(app, basePath) {
  const server = http.createServer(async (req, res) => {
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers: req.headers,
        body: ['GET', 'HEAD'].includes(req.method) ? undefined : Buffer.concat(chunks),
        signal: gone.signal,
      });
      const response = await app.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) for await (const chunk of response.body) res.write(chunk);
      res.end();
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(String(err?.stack ?? err));
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return {
    url: `http://127.0.0.1:${server.address().port}${basePath}`,
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Resolves with the agent of an id (default) once the core has learnt of it from its runtime's /info. */
export function agentOf(core, id = 'default') {
  return (
    core.getAgent(id) ??
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        subscription.unsubscribe();
        reject(new Error(`the core found no agent ${id} at ${core.runtimeUrl} (status ${core.runtimeConnectionStatus})`));
      }, 30_000);
      const subscription = core.subscribe({
        onAgentsChanged: ({ agents }) => {
          if (!agents[id]) return;
          clearTimeout(timer);
          subscription.unsubscribe();
          resolve(agents[id]);
        },
      });
    })
  );
}

export { CopilotKitCore };
