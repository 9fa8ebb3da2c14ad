// Headless Chromium for the browser tests. The binary comes from the lockfile: the
// @sparticuz/chromium package carries a Linux x86-64 build, unpacked on first use into
// the temporary directory; CHROMIUM_PATH names another binary instead. Run by hand
// (`node browser/chromium.js`, as `npm test` does first), it unpacks the build once, so
// test files that run side by side never unpack it at the same time.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import packagedChromium from '@sparticuz/chromium';
import { chromium } from 'playwright-core';

// The package's own launch arguments are made for serverless hosts (one of them turns
// web security off, which would hide every CORS rule the tests check), so these are ours.
const ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The path of the Chromium binary the tests run: CHROMIUM_PATH, or the packaged build. */
export async function chromiumPath() {
  const chosen = process.env.CHROMIUM_PATH;
  if (chosen) {
    if (!existsSync(chosen)) throw new Error(`CHROMIUM_PATH names ${chosen}, which does not exist`);
    return chosen;
  }
  return packagedChromium.executablePath();
}

/** Launches headless Chromium (playwright-core's Browser). */
export async function launchChromium() {
  return chromium.launch({ executablePath: await chromiumPath(), args: ARGS, timeout: 30_000 });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(`Chromium for the browser tests: ${await chromiumPath()}`);
}
