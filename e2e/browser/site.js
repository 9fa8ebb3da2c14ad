// Serves the test page and its bundled script from a static server of its own, so that
// the page runs on another origin than the mock and every run goes through CORS.

import { readFileSync } from 'node:fs';
import http from 'node:http';
import { buildBundle, PAGE } from './build.js';

/**
 * Builds the page's script into outdir and serves the page on a free loopback port.
 * Resolves with {origin, close}.
 */
export async function servePage(outdir) {
  const bundle = readFileSync(await buildBundle(outdir));
  const html = readFileSync(PAGE);
  const site = http.createServer((req, res) => {
    const [type, body] = req.url === '/app.js' ? ['text/javascript', bundle] : req.url === '/' ? ['text/html', html] : [];
    res.writeHead(body ? 200 : 404, { 'Content-Type': type ?? 'text/plain' }).end(body ?? 'not found');
  });
  await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${site.address().port}`,
    close: () => new Promise((resolve) => site.close(resolve)),
  };
}

/**
 * Runs fetch(url, init) in page (playwright-core's Page): resolves with {status, text},
 * {status: 0} for an opaque answer (mode: 'no-cors'), or {error} when the browser
 * refuses the answer to the page.
 */
export function fetchFromPage(page, url, init) {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const res = await fetch(url, init);
        return res.type === 'opaque' ? { status: 0 } : { status: res.status, text: await res.text() };
      } catch (err) {
        return { error: `${err.name}: ${err.message}` };
      }
    },
    { url, init },
  );
}

/** Loads the test page from origin into page, and waits until its script is ready. */
export async function loadPage(page, origin) {
  await page.goto(origin + '/');
  await page.waitForSelector('body[data-ready="true"]');
}

/**
 * Opens the test page from origin in a new page of browser (playwright-core's
 * newPage options), ready. Resolves with {page, errors}: errors collects what the page
 * logs as an error and what it throws.
 */
export async function openPage(browser, origin, options) {
  const page = await browser.newPage(options);
  const errors = [];
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  page.on('pageerror', (err) => errors.push(String(err)));
  await loadPage(page, origin);
  return { page, errors };
}
