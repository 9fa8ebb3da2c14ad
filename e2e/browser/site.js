// Serves the test page, index.html and its script bundled by build.js, on a loopback
// port of its own, so that the page's origin differs from the mock's.

import { readFileSync } from 'node:fs';
import http from 'node:http';
import { buildBundle, PAGE } from './build.js';

/** Builds the page's script into dir and serves the page; resolves with {origin, close}. */
export async function servePage(dir) {
  const bundle = readFileSync(await buildBundle(dir));
  const html = readFileSync(PAGE);
  const site = http.createServer((req, res) => {
    const [type, body] = req.url === '/app.js' ? ['text/javascript', bundle] : req.url === '/' ? ['text/html', html] : [];
    res.writeHead(body ? 200 : 404, { 'Content-Type': type ?? 'text/plain' }).end(body ?? 'not found');
  });
  await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${site.address().port}`, close: () => site.close() };
}
