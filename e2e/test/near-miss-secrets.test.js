// A run sends real-looking credentials, and a long value, in headers past scenarios that
// match on headers: why each missed is told in the log, the journal's list and entry and
// the inspector's run page — the credentials by their length alone, the long value
// clipped to 80 bytes. A run forced onto one of them shows its header check, never the
// value. The runs are sent by the official @ag-ui/client; Chromium comes from the lockfile.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HttpAgent } from '@ag-ui/client';
import { launchChromium } from '../browser/chromium.js';
import { adminOK, journalEntries, newTestId, TEST_ID_HEADER } from './admin.js';
import { startServer, writeTempFiles } from './harness.js';

const HEADERS = `\
id: staging
match: {headers: {authorization: '^Bearer test-'}}
steps: [{text: staging}]
---
id: keyed
match: {headers: {x-api-key: '^k-'}}
steps: [{text: keyed}]
---
id: tenant
match: {headers: {x-tenant: '^acme$'}}
steps: [{text: tenant}]
`;

const TOKEN = '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';
const API_KEY = 'sk-live-Zr8sT2uV4wX6yZ8aB0cD2eF4gH6iJ8kL0m';
const TAIL = 'END-OF-A-LONG-TENANT';

describe('no credential of a request header in a near miss', () => {
  let mock;
  let browser;
  const testId = newTestId('near-miss-secrets');

  before(async () => {
    mock = await startServer(['--scenarios', writeTempFiles({ 'headers.yaml': HEADERS })]);
  });
  after(async () => {
    await browser?.close();
    await mock?.stop();
  });

  test('the log, the journal and the inspector show lengths and clipped values', async () => {
    const headers = {
      [TEST_ID_HEADER]: testId, 'X-Agui-Mock-Speed': '0',
      Authorization: `Bearer ${TOKEN}`, 'X-Api-Key': API_KEY, 'X-Tenant': `${'t'.repeat(4000)}${TAIL}`,
    };
    const missed = new HttpAgent({ url: `${mock.url}/agui/chat`, headers, threadId: 'missed' });
    missed.messages = [{ id: 'm1', role: 'user', content: 'hello' }];
    await missed.runAgent({}); // the built-in catch-all answers
    const forced = new HttpAgent({ url: `${mock.url}/agui/chat`, headers: { ...headers, 'X-Agui-Mock-Scenario': 'staging' }, threadId: 'forced' });
    forced.messages = [{ id: 'm1', role: 'user', content: 'hello' }];
    await forced.runAgent({});

    const warning = await mock.waitForLog((r) => r.level === 'WARN' && r.scenario === 'catch-all');
    assert.match(warning.nearest, /header authorization \(47 bytes, not shown: it holds a credential\) does not match/);
    assert.match(warning.nearest, /header x-tenant "t{80}…" does not match/);

    const entries = await journalEntries(mock, {}, testId);
    assert.equal(entries.length, 2);
    const pages = [];
    for (const e of entries) pages.push(await adminOK(mock, 'GET', `/journal/${e.seq}`));
    const forcedPage = pages.find((p) => p.entry.scenario === 'staging');
    assert.match(JSON.stringify(forcedPage.match), /header authorization \(47 bytes, not shown/);

    browser = await launchChromium();
    const page = await browser.newPage();
    const shown = [];
    for (const e of entries) {
      await page.goto(`${mock.url}/_mock/ui#/run/${e.seq}`);
      await page.waitForSelector('#view-run:not([hidden]) .facts');
      await page.waitForFunction(() => /does not match/.test(document.querySelector('#run-body').textContent));
      shown.push(await page.textContent('#run-body'));
    }
    assert.match(shown.join('\n'), /47 bytes, not shown: it holds a credential/);

    const outputs = {
      log: mock.logs.map((r) => JSON.stringify(r)).join('\n'),
      'journal list': JSON.stringify(entries),
      'journal entries': JSON.stringify(pages),
      inspector: shown.join('\n'),
    };
    for (const [where, text] of Object.entries(outputs)) {
      for (const secret of [TOKEN, TOKEN.slice(0, 16), API_KEY.slice(0, 16), TAIL, 't'.repeat(200)]) {
        assert.ok(!text.includes(secret), `${where} shows ${secret.slice(0, 24)}…`);
      }
    }
  });
});
