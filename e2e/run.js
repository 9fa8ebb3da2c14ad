// Runs the end-to-end suite (`npm test`): builds the agui-mock binary once, unless
// AGUI_MOCK_BIN already names one, and runs the test files with node --test, every
// process of which starts servers from that one binary (test/harness.js reads
// AGUI_MOCK_BIN). Without arguments it runs every test/*.test.js; with some, those files:
// `npm test -- test/record-*.test.js`.

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const here = import.meta.dirname;
const repoRoot = path.resolve(here, '..');

let builtDir;
let bin = process.env.AGUI_MOCK_BIN;
if (!bin) {
  builtDir = mkdtempSync(path.join(os.tmpdir(), 'agui-mock-e2e-bin-'));
  bin = path.join(builtDir, 'agui-mock');
  try {
    execFileSync('go', ['build', '-o', bin, '.'], { cwd: repoRoot, stdio: 'inherit' });
  } catch (err) {
    rmSync(builtDir, { recursive: true, force: true });
    console.error(`go build in ${repoRoot} failed: ${err.message}`);
    process.exit(1);
  }
}

const files = process.argv.slice(2);
if (files.length === 0) {
  for (const name of readdirSync(path.join(here, 'test')).sort()) {
    if (name.endsWith('.test.js')) files.push(path.join('test', name));
  }
}

const child = spawn(process.execPath, ['--test', '--test-reporter=spec', ...files], {
  cwd: here,
  env: { ...process.env, AGUI_MOCK_BIN: path.resolve(bin) },
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (builtDir) rmSync(builtDir, { recursive: true, force: true });
  process.exitCode = code ?? (signal ? 1 : 0);
});
