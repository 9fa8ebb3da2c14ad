// Serves the chat page on APP_PORT, telling it where the agent is (AGENT_URL).
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const port = Number(process.env.APP_PORT ?? 3000);
const agentUrl = process.env.AGENT_URL ?? "http://127.0.0.1:8000";
const page = readFileSync(new URL("index.html", import.meta.url), "utf8").replace(
  "<head>",
  `<head>\n    <meta name="agent" content="${agentUrl.replace(/[<>"&]/g, "")}" />`,
);

createServer((req, res) => {
  if (req.url === "/app.js") {
    res.writeHead(200, { "Content-Type": "text/javascript" }).end(readFileSync(new URL("dist/app.js", import.meta.url)));
  } else if (req.url === "/" || req.url?.startsWith("/?")) {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(page);
  } else {
    res.writeHead(404).end();
  }
}).listen(port, "127.0.0.1", () => console.log(`chat page on http://127.0.0.1:${port}`));
