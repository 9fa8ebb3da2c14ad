// Bundles app.js and @ag-ui/client (from the e2e suite's node_modules) for the browser
// with esbuild. The browser test builds into a temporary directory; run by hand
// (`node browser/build.js`), it writes browser/dist/app.js.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = import.meta.dirname ?? path.dirname(fileURLToPath(import.meta.url));

/** The page's HTML file, which loads /app.js. */
export const PAGE = path.join(here, 'index.html');

/** Builds the page's script into outdir/app.js and returns that path. */
export async function buildBundle(outdir) {
  const outfile = path.join(outdir, 'app.js');
  await esbuild.build({
    entryPoints: [path.join(here, 'app.js')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'chrome120',
    logLevel: 'error',
  });
  return outfile;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(await buildBundle(path.join(here, 'dist')));
}
