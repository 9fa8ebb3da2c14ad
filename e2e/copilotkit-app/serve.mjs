// Serves the chat page (index.html and esbuild's output in dist/) on APP_PORT. The page
// reads its runtime URL, agent id and thread id from its own query string, so one build
// serves every topology.
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const port = Number(process.env.APP_PORT ?? 48_181);
const root = fileURLToPath(new URL(".", import.meta.url));
const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css" };

createServer(async (req, res) => {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  let file;
  if (path === "/" || path === "/index.html") file = "index.html";
  else if (path === "/app.js" || path === "/app.css" || path.startsWith("/chunks/")) file = normalize(`dist${path}`);
  if (!file || !file.startsWith(path === "/" || path === "/index.html" ? "index" : "dist/")) {
    res.writeHead(path === "/favicon.ico" ? 204 : 404).end();
    return;
  }
  try {
    const body = await readFile(root + file);
    res.writeHead(200, { "Content-Type": types[extname(file)] ?? "application/octet-stream", "Cache-Control": "no-store" }).end(body);
  } catch {
    res.writeHead(404).end();
  }
}).listen(port, "127.0.0.1", () => console.log(`chat page on http://127.0.0.1:${port}`));
