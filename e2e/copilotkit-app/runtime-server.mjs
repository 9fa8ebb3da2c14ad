// A CopilotKit runtime (@copilotkit/runtime, its v2 endpoints) served over Node's http, as an
// app's separate runtime server would be. Its `default` agent is an AG-UI HttpAgent — of the
// @ag-ui/client the runtime itself depends on. Two ways:
//
//   KIT unset  the agent is pointed at agui-mock's run route, without delays, and the
//              runtime's default InMemoryAgentRunner keeps every thread for as long as this
//              process lives, so a reloaded page gets its thread back through
//              /agent/default/connect;
//   KIT=1      the runtime is an app's own runtime with @agui-mock/copilotkit plugged in
//              (AguiMockRunner, aguiMockHooks): runs, restores, stops and the thread list
//              come from the mock's CopilotKit routes, the agent's URL is never called.
//
//   MOCK_URL      the mock, e.g. http://127.0.0.1:48180 (required)
//   RUNTIME_PORT  where to listen (default 48182); served under /api/copilotkit

// The runtime would otherwise report usage to CopilotKit, which must not be reached.
process.env.COPILOTKIT_TELEMETRY_DISABLED = "true";
process.env.DO_NOT_TRACK = "1";
process.env.SCARF_ANALYTICS = "false";

import http from "node:http";
import { createRequire } from "node:module";
import { CopilotRuntime, createCopilotEndpoint } from "@copilotkit/runtime/v2";
import { AguiMockRunner, aguiMockHooks } from "@agui-mock/copilotkit";

const mockUrl = process.env.MOCK_URL;
if (!mockUrl) throw new Error("MOCK_URL is required");
const port = Number(process.env.RUNTIME_PORT ?? 48_182);
export const BASE_PATH = "/api/copilotkit";

// The runtime's own @ag-ui/client, so that its HttpAgent is the class the runtime expects.
const fromRuntime = createRequire(createRequire(import.meta.url).resolve("@copilotkit/runtime/package.json"));
const { HttpAgent } = await import(fromRuntime.resolve("@ag-ui/client"));

const kit = process.env.KIT === "1";
const runtime = new CopilotRuntime({
  agents: {
    default: new HttpAgent({ url: kit ? "http://127.0.0.1:9/never-called" : `${mockUrl}/agui/chat`, headers: { "X-Agui-Mock-Speed": "0" } }),
  },
  ...(kit ? { runner: new AguiMockRunner({ url: mockUrl }) } : {}),
});
const app = createCopilotEndpoint({ runtime, basePath: BASE_PATH, ...(kit ? { hooks: aguiMockHooks({ url: mockUrl }) } : {}) });

const server = http.createServer(async (req, res) => {
  // Stopping a run aborts the agent's fetch; the browser's own request may have gone too.
  const aborted = new AbortController();
  res.on("close", () => aborted.abort());
  try {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers: Object.entries(req.headers).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v ?? ""]])),
      body: hasBody ? Buffer.concat(chunks) : undefined,
      signal: aborted.signal,
    });
    const response = await app.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      for await (const chunk of response.body) {
        if (res.destroyed) break;
        res.write(chunk);
      }
    }
    res.end();
  } catch (err) {
    if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
    res.end(String(err?.stack ?? err));
  }
});
server.listen(port, "127.0.0.1", () => console.log(`CopilotKit runtime on http://127.0.0.1:${port}${BASE_PATH} -> ${mockUrl}${kit ? "/copilotkit (@agui-mock/copilotkit)" : "/agui/chat"}`));
