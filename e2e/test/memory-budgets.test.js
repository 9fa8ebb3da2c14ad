// What a client can make the mock keep is bounded, as its users see it: with small
// budgets, runs that echo large messages leave the journal's run records and the
// threads within them — an evicted run's page says why its events went, a run past its
// share says it shows its first events, the oldest thread is forgotten and /metrics
// counts it — and a request with headers past --max-header-bytes is answered 431.
// Chromium comes from the lockfile.

import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { launchChromium } from '../browser/chromium.js';
import { adminOK, journalEntries, newTestId, runInput, TEST_ID_HEADER } from './admin.js';
import { startServer, writeTempFiles } from './harness.js';

const ECHO = `\
id: echo
match: {message: '(?s)^echo'}
steps: [{text: '{{ .message }}'}]
`;

const MiB = 1 << 20;

describe('the byte budgets and the header cap', () => {
  let mock;
  let browser;
  const testId = newTestId('budgets');

  before(async () => {
    mock = await startServer(['--no-builtin', '--metrics', '--scenarios', writeTempFiles({ 'echo.yaml': ECHO }),
      '--journal-max-bytes', String(MiB), '--threads-max-bytes', String(MiB), '--max-header-bytes', '8192']);
  });
  after(async () => {
    await browser?.close();
    await mock?.stop();
  });

  const echo = async (threadId, size) => {
    const res = await fetch(`${mock.url}/agui/chat`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [TEST_ID_HEADER]: testId, 'X-Agui-Mock-Speed': '0' },
      body: JSON.stringify(runInput(`echo ${'x'.repeat(size)}`, { threadId })),
    });
    assert.equal(res.status, 200);
    await res.text();
  };

  test("the journal's run records and the threads stay within their budgets, and say what went", async () => {
    await echo('first', 400 << 10); // past a quarter of the run records' budget
    for (let i = 0; i < 6; i++) await echo(`thread-${i}`, 200 << 10);
    const entries = (await journalEntries(mock, {}, testId)).sort((a, b) => a.seq - b.seq);
    assert.equal(entries.length, 7);
    const first = await adminOK(mock, 'GET', `/journal/${entries[0].seq}`);
    assert.equal(first.kept, false);
    assert.match(first.gone, /--journal-max-bytes/);
    const last = await adminOK(mock, 'GET', `/journal/${entries[6].seq}`);
    assert.equal(last.kept, true);

    const history = await fetch(`${mock.url}/agui/history`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [TEST_ID_HEADER]: testId },
      body: JSON.stringify({ threadId: 'first' }),
    });
    assert.equal(history.status, 404, 'the oldest thread is forgotten past --threads-max-bytes');
    assert.match((await history.json()).message, /--threads-max-bytes/);
    const metrics = await (await fetch(`${mock.url}/metrics`)).text();
    assert.match(metrics, /^agui_mock_threads_shed_total [1-9]\d*$/m);

    browser = await launchChromium();
    const page = await browser.newPage();
    await page.goto(`${mock.url}/_mock/ui#/run/${entries[0].seq}`);
    await page.waitForSelector('[data-note=gone]');
    assert.match(await page.textContent('[data-note=gone]'), /no longer kept: the journal's run records keep at most 1048576 bytes together \(--journal-max-bytes\)/);

    await echo('clipped', 400 << 10);
    const [clipped] = await journalEntries(mock, { thread: 'clipped' }, testId);
    const detail = await adminOK(mock, 'GET', `/journal/${clipped.seq}`);
    assert.equal(detail.kept, true);
    assert.match(detail.clipped, /the record keeps the first \d+ of the run's \d+ events/);
    await page.goto(`${mock.url}/_mock/ui#/run/${clipped.seq}`);
    await page.waitForSelector('[data-note=clipped]');
    assert.match(await page.textContent('[data-note=clipped]'), /Not every event of this run is shown/);
  });

  test('headers past --max-header-bytes are answered 431', async () => {
    const answer = await new Promise((resolve, reject) => {
      const socket = net.connect(new URL(mock.url).port, '127.0.0.1');
      let got = '';
      socket.on('data', (d) => { got += d; });
      socket.on('end', () => resolve(got));
      socket.on('error', reject);
      socket.write(`GET /_mock/healthz HTTP/1.1\r\nHost: localhost\r\nX-Filler: ${'f'.repeat(16 << 10)}\r\n\r\n`);
    });
    assert.match(answer, /^HTTP\/1\.1 431 /);
    const fine = await fetch(`${mock.url}/_mock/healthz`, { headers: { 'X-Filler': 'f'.repeat(4 << 10) } });
    assert.equal(fine.status, 200);
  });
});
