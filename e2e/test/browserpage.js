// The setup every headless-Chromium test file shares: the test page served from an
// origin of its own, the mocks it talks to, and the browser, started before the file's
// tests and stopped after them.

import { after, before } from 'node:test';
import { launchChromium } from '../browser/chromium.js';
import { openPage, servePage } from '../browser/site.js';
import { makeTempDir, startServer } from './harness.js';

/**
 * Registers the hooks of a browser test file. servers(origin) gives the arguments of
 * each mock to start, knowing the page's origin; pageOptions are playwright-core's
 * newPage options. Returns an object that the first before hook fills in with
 * {site, browser, page, errors, mocks} (errors: what the page logs as an error or throws).
 */
export function useBrowserPage(prefix, servers, pageOptions) {
  const setup = {};
  before(async () => {
    setup.site = await servePage(makeTempDir(prefix));
    setup.mocks = await Promise.all(servers(setup.site.origin).map((args) => startServer(args)));
    setup.browser = await launchChromium();
    Object.assign(setup, await openPage(setup.browser, setup.site.origin, pageOptions));
  });
  after(async () => {
    await setup.browser?.close();
    await Promise.all((setup.mocks ?? []).map((mock) => mock.stop()));
    await setup.site?.close();
  });
  return setup;
}
