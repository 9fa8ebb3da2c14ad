// The journal holds every request the mock answers, refused ones included, with the
// error and its reason: a test can assert that the frontend sent its token, and sees it
// when the frontend did not. The real HttpAgent of each client version sends the runs.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { journalEntries, newTestId, TEST_ID_HEADER } from './admin.js';
import { assertCleanRun, CLIENTS, Conversation, DEFAULT_ROUTE } from './clients.js';
import { useServer } from './harness.js';

const TOKEN = 'e2e-journal-token';
const guarded = useServer(['--auth-token', TOKEN]);

/** What a test asserts of a journal entry. */
const summary = ({ method, path, status, error, reason }) => ({ method, path, status, error, reason });

for (const client of CLIENTS) {
  describe(`the journal of runs refused with 401, with ${client.label}`, () => {
    test('a missing token, a wrong token, then the right one: each run is journaled with its status and reason', async () => {
      const testId = newTestId('journal-401');
      const send = (authorization) =>
        new Conversation(client, {
          url: guarded.url,
          headers: { [TEST_ID_HEADER]: testId, ...(authorization && { Authorization: authorization }) },
        }).send('Hello there');

      const anonymous = await send();
      const wrong = await send('Bearer not-the-token');
      assert.deepEqual([anonymous.failure?.status, wrong.failure?.status], [401, 401]);
      assertCleanRun(await send(`Bearer ${TOKEN}`));

      const entries = await journalEntries(guarded, {}, testId);
      assert.deepEqual(entries.map(summary), [
        {
          method: 'POST',
          path: DEFAULT_ROUTE,
          status: 401,
          error: 'unauthorized',
          reason: 'missing Authorization header: send Authorization: Bearer <token>',
        },
        { method: 'POST', path: DEFAULT_ROUTE, status: 401, error: 'unauthorized', reason: 'the bearer token is not valid' },
        { method: 'POST', path: DEFAULT_ROUTE, status: 200, error: undefined, reason: undefined },
      ]);
      const journal = JSON.stringify(entries);
      for (const secret of ['not-the-token', TOKEN]) assert.ok(!journal.includes(secret), `the journal shows ${secret}`);
    });
  });
}
