// The short-run script (bench/shortrun.sh) at a tenth of its size and in one round: it
// must start agui-mock and aimock at their defaults, play 7-event runs on each, quiet and
// loaded, and print a row for each load with both servers' CPU per run, so that it
// cannot rot between the runs that fill docs/performance.md.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from './harness.js';

const LOADS = ['quiet: 1 run at a time', 'quiet: 2 runs at a time', 'loaded: 16 runs at once'];

test('the short-run script prints the CPU per run of both servers at each load', { timeout: 240_000 }, async () => {
  const { stdout } = await promisify(execFile)('bash', ['bench/shortrun.sh'], {
    cwd: REPO_ROOT,
    env: { ...process.env, QUICK: '1', ROUNDS: '1' },
    timeout: 230_000,
    maxBuffer: 1 << 20,
  });
  const rows = stdout.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| server CPU') && !line.startsWith('| ---'));
  assert.deepEqual(rows.map((row) => row.split('|')[1].trim()), LOADS, stdout);
  for (const row of rows) {
    const [label, mock, aimock, toAimock, each] = row.split('|').slice(1, -1).map((cell) => cell.trim());
    // no run failed, and every run had its seven events; a load this small may spend
    // less than /proc's hundredth of a second on a server, which then has no figure (—)
    for (const value of [mock, aimock]) assert.match(value, /^([\d.]+ µs|—)$/, `${label}: ${row}`);
    for (const ratio of [toAimock, each]) assert.match(ratio, /^(\d+\.\d\d×|—)$/, `${label}: ${row}`);
  }
});
