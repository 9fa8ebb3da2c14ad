// Per-test isolation by X-Test-Id: two tests running at once against one server, with
// the same thread ids, never see each other's threads, journal entries, forced
// scenarios, faults or breakpoints; POST /_mock/reset forgets one test's state only.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation, messagesOf } from './clients.js';
import { admin, adminOK, journalEntries, newTestId, openRun, runInput, TEST_ID_HEADER } from './admin.js';
import { useServer } from './harness.js';
import { postJSON } from './threads.js';

const server = useServer();
const [current, legacy] = CLIENTS;

/** A conversation of client scoped to testId, on threadId when given. */
const conversationOf = (client, testId, threadId) =>
  new Conversation(client, { url: server.url, headers: { [TEST_ID_HEADER]: testId }, threadId });

const lastText = (run) => messagesOf(run, 'assistant').at(-1)?.content;
const EXPLICIT = 'Every event exactly as written.';

/** The history of a thread as testId sees it: {status, body}. */
const historyOf = (threadId, testId) =>
  postJSON(server, '/agui/history', { threadId }, testId === undefined ? {} : { [TEST_ID_HEADER]: testId });

describe('isolation between two tests running at once', () => {
  test('the same threadId in two tests is two threads: no run_in_progress, separate histories, separate cancel', async () => {
    const [a, b] = [newTestId('iso-a'), newTestId('iso-b')];
    const threadId = 'shared-thread';
    const { id } = await adminOK(server, 'POST', '/breakpoints', { testId: a, body: { scenario: 'showcase', step: 'answer' } }, 201);
    const convA = conversationOf(current, a, threadId);
    const runningA = convA.send('showcase', { runId: 'run-of-a' });
    await adminOK(server, 'GET', `/breakpoints/${id}?wait=10s`);

    // A's run is paused mid-stream on "shared-thread"; B runs on a thread of the same id.
    const runB = await conversationOf(legacy, b, threadId).send('explicit please');
    assertCleanRun(runB);
    assert.equal(lastText(runB), EXPLICIT);

    const historyB = await historyOf(threadId, b);
    assert.equal(historyB.status, 200);
    assert.equal(historyB.body.threadId, threadId);
    assert.equal(historyB.body.running, null);
    assert.deepEqual(historyB.body.messages.map((m) => m.content), ['explicit please', EXPLICIT]);
    const historyA = await historyOf(threadId, a);
    assert.equal(historyA.body.running?.runId, 'run-of-a', "A's run is still streaming");
    assert.equal((await historyOf(threadId)).status, 404, 'requests without a test id have threads of their own');

    const cancelB = await postJSON(server, '/agui/cancel', { threadId }, { [TEST_ID_HEADER]: b });
    assert.equal(cancelB.body.cancelled, false, "B's cancel does not reach A's run");

    await adminOK(server, 'POST', `/breakpoints/${id}/release`);
    const runA = await runningA;
    assertCleanRun(runA);
    assert.match(lastText(runA), /^Here is what I found/);
  });

  test('journal, forced scenarios, faults and breakpoints of one test do not reach the other', async () => {
    const [a, b] = [newTestId('leak-a'), newTestId('leak-b')];
    await adminOK(server, 'POST', '/force', { testId: a, body: { scenario: 'explicit-events', times: 0 } });
    await adminOK(server, 'POST', '/faults', { testId: a, body: { kind: 'runError', after: 1, message: 'only for A', times: 0 } }, 201);
    const { id } = await adminOK(server, 'POST', '/breakpoints', { testId: a, body: { event: 0 } }, 201);

    // B first, alone: none of A's settings touch it.
    const convB = conversationOf(legacy, b);
    const showcase = await convB.send('showcase');
    assertCleanRun(showcase);
    assert.match(lastText(showcase), /^Here is what I found/);
    const search = await convB.send('Search for ocean wave videos', { forwardedProps: { scenario_name: 'video-mixcut' } });
    assertCleanRun(search);
    assert.equal(lastText(search), "I'll help you search.");
    assert.equal((await adminOK(server, 'GET', `/breakpoints/${id}`)).reached, false);

    // Then A and B at once: A is paused at its breakpoint while B runs to the end.
    const runningA = conversationOf(current, a).send('showcase');
    await adminOK(server, 'GET', `/breakpoints/${id}?wait=10s`);
    const runB = await convB.send('explicit please');
    assertCleanRun(runB);
    await adminOK(server, 'POST', `/breakpoints/${id}/release`);
    const runA = await runningA;
    // A played its forced scenario and its fault.
    assert.deepEqual(runA.events.map((e) => e.type), ['RUN_STARTED', 'RUN_ERROR']);
    assert.equal(runA.events[1].message, 'only for A');

    const journalA = await journalEntries(server, {}, a);
    const journalB = await journalEntries(server, { testId: b });
    assert.deepEqual(journalA.map((e) => [e.scenario, e.outcome]), [['explicit-events', 'error']]);
    assert.deepEqual(journalB.map((e) => [e.scenario, e.outcome]), [
      ['showcase', 'success'],
      ['video-mixcut-search', 'success'],
      ['explicit-events', 'success'],
    ]);
    assert.ok(journalB.every((e) => e.testId === b));
    await adminOK(server, 'POST', '/reset', { testId: a }, 204);
  });

  test('POST /_mock/reset with X-Test-Id forgets that test\'s threads, journal, forcing, faults and breakpoints only', async () => {
    const [a, b] = [newTestId('reset-a'), newTestId('reset-b')];
    const setUp = async (testId) => {
      const conversation = conversationOf(current, testId, 'same-thread');
      assertCleanRun(await conversation.send('explicit please'));
      await adminOK(server, 'POST', '/force', { testId, body: { scenario: 'explicit-events', times: 0 } });
      await adminOK(server, 'POST', '/faults', { testId, body: { kind: 'status', status: 503, times: 0 } }, 201);
      return (await adminOK(server, 'POST', '/breakpoints', { testId, body: { scenario: 'showcase', event: 3 } }, 201)).id;
    };
    const bpA = await setUp(a);
    const bpB = await setUp(b);
    // A stream of A's paused at its breakpoint is let go by the reset.
    await adminOK(server, 'DELETE', '/faults', { testId: a }, 204);
    await adminOK(server, 'DELETE', '/force', { testId: a }, 204);
    const paused = openRun(server, runInput('showcase'), { headers: { [TEST_ID_HEADER]: a } });
    await adminOK(server, 'GET', `/breakpoints/${bpA}?wait=10s`);
    await adminOK(server, 'POST', '/faults', { testId: a, body: { kind: 'status', status: 503, times: 0 } }, 201);
    await adminOK(server, 'POST', '/force', { testId: a, body: { scenario: 'explicit-events', times: 0 } });

    await adminOK(server, 'POST', '/reset', { testId: a }, 204);
    // The reset cancels A's streaming run: its open step is closed and it ends cancelled
    // (RUN_ERROR code cancelled, since this plain request declares no protocolVersion).
    const { events } = await paused.done;
    assert.deepEqual(events.slice(-2).map((e) => e.type), ['STEP_FINISHED', 'RUN_ERROR']);
    assert.equal(events.at(-1).code, 'cancelled');

    // Only the cancelled run may be journaled again: it can end just after the reset.
    const leftA = await journalEntries(server, {}, a);
    assert.deepEqual(leftA.filter((e) => e.outcome !== 'cancelled'), [], JSON.stringify(leftA));
    assert.equal((await historyOf('same-thread', a)).status, 404, "A's thread is forgotten");
    assert.equal((await admin(server, 'GET', `/breakpoints/${bpA}`)).status, 404);
    const after = await conversationOf(legacy, a).send('showcase');
    assertCleanRun(after);
    assert.match(lastText(after), /^Here is what I found/, 'neither forced, nor failed, nor paused');

    // B kept everything.
    assert.equal((await historyOf('same-thread', b)).status, 200);
    assert.equal((await admin(server, 'GET', `/breakpoints/${bpB}`)).status, 200);
    assert.equal((await journalEntries(server, { route: '/agui/chat' }, b)).length, 1);
    const stillFailing = await conversationOf(legacy, b).send('showcase');
    assert.equal(stillFailing.rejection?.status, 503, "B's fault is still queued");

    // Without a test id, everybody's state goes.
    await adminOK(server, 'POST', '/reset', {}, 204);
    assert.deepEqual(await journalEntries(server), []);
    assert.equal((await historyOf('same-thread', b)).status, 404);
    assert.equal((await admin(server, 'GET', `/breakpoints/${bpB}`)).status, 404);
    const clean = await conversationOf(current, b).send('showcase');
    assertCleanRun(clean);
    assert.match(lastText(clean), /^Here is what I found/);
  });

  test(
    'DELETE /_mock/journal and /_mock/faults without X-Test-Id treat other tests alike',
    async () => {
      const a = newTestId('untagged-delete');
      assertCleanRun(await conversationOf(current, a).send('explicit please'));
      await adminOK(server, 'POST', '/faults', { testId: a, body: { kind: 'status', status: 500 } }, 201);
      await adminOK(server, 'DELETE', '/faults', {}, 204);
      await adminOK(server, 'DELETE', '/journal', {}, 204);
      const failed = await conversationOf(current, a).send('explicit please');
      assert.equal(failed.rejection?.status, 500, "A's fault survives an untagged DELETE /_mock/faults");
      assert.equal((await journalEntries(server, {}, a)).length, 2, "A's journal survives an untagged DELETE /_mock/journal");
    },
  );
});
