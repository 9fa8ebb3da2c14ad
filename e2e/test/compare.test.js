// The comparison script (bench/compare.sh) at a twentieth of its size and in one round:
// it must start the three servers, run every workload against each, and print a full
// table, then agui-mock's two transports side by side, so that it cannot rot between the
// runs that fill docs/performance.md.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from './harness.js';

const ROWS = 19;
const TRANSPORT_ROWS = 2;
const TRANSPORT_HEADER = '| agui-mock, by transport |';

test('the comparison script prints every measure for the three servers', { timeout: 240_000 }, async () => {
  const { stdout } = await promisify(execFile)('bash', ['bench/compare.sh'], {
    cwd: REPO_ROOT,
    env: { ...process.env, QUICK: '1', ROUNDS: '1' },
    timeout: 230_000,
    maxBuffer: 1 << 20,
  });
  const [servers, transports] = stdout.split(TRANSPORT_HEADER);
  assert.ok(transports, `no table of the transports in:\n${stdout}`);
  const tableRows = (text) => text.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| measure') && !line.startsWith('| ---'));
  const rows = tableRows(servers);
  assert.equal(rows.length, ROWS, stdout);
  for (const row of rows) {
    const [label, mock, aimock, floor, toFloor, toAimock] = row.split('|').slice(1, -1).map((cell) => cell.trim());
    if (label.includes('server CPU')) {
      // /proc counts CPU time in hundredths of a second: a load this small may spend
      // less than one on a server, which then has no figure (—), nor its ratios
      for (const value of [mock, aimock, floor]) assert.match(value, /^([\d,.]+ µs|—)$/, `${label}: ${row}`);
      for (const ratio of [toFloor, toAimock]) assert.match(ratio, /^(\d+\.\d\d×|—)$/, `${label}: ${row}`);
      continue;
    }
    for (const value of [mock, aimock, floor]) assert.match(value, /^[\d,.]+( ms| KiB)?$/, `${label}: ${row}`);
    if (label.includes('failed')) {
      // agui-mock and the floor must not fail; how aimock fares is what the row reports
      assert.deepEqual([mock, floor], ['0', '0'], `${label}: ${row}`);
    } else {
      for (const ratio of [toFloor, toAimock]) assert.match(ratio, /^\d+\.\d\d×$/, `${label}: ${row}`);
    }
  }
  const byTransport = tableRows(transports);
  assert.equal(byTransport.length, TRANSPORT_ROWS, stdout);
  for (const row of byTransport) {
    const [label, sse, proto, ratio] = row.split('|').slice(1, -1).map((cell) => cell.trim());
    for (const value of [sse, proto]) assert.match(value, /^[\d,.]+$/, `${label}: ${row}`);
    assert.match(ratio, /^\d+\.\d\d×$/, `${label}: ${row}`);
  }
});
