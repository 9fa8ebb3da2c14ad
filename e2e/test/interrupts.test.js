// (g) Human-in-the-loop interrupts as the seed's client loops drive them: a first run of
// media-management pauses with two interrupts (trim, watermark); the next run on the
// thread answers both in resume, each answer picking its branch. Driven by the real
// HttpAgent of each client version (agent.pendingInterrupts, runAgent({resume})) and by
// the seed's literal request bodies; and the answers the server refuses.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation, messagesOf } from './clients.js';
import { expiringScenarioDir } from './fixtures.js';
import { startServer, useServer } from './harness.js';
import {
  assertHistoryMatchesClient,
  postRun,
  runOutcomes,
  streamedTexts,
  streamedToolCalls,
  streamedToolResults,
  threadHistory,
} from './threads.js';

const server = useServer();
// A server with only a confirmation that expires 50 ms after its run began.
const expiring = useServer(['--no-builtin', '--scenarios', expiringScenarioDir()]);

// The first run of the seed's client loops.
const FIRST_MESSAGE = 'Search for ocean wave videos and trim the first 10 seconds';
const FIRST_PROPS = { approval_mode: 'level:low', scenario_name: 'media_management' };

const TRIM = 'interruptId-001';
const WATERMARK = 'interruptId-002';
const RESPONSE_SCHEMA = { type: 'object', properties: { feedback: { type: 'string' } }, additionalProperties: false };

// What the first run says before it pauses, and what the resume run says after the branches.
const FIRST_TEXTS = [
  "I'll search the library first.",
  'I found "Ocean waves at dawn". Trimming and watermarking change the file, so I need your approval for each.',
];
const CLOSING = `That's everything for "Ocean waves at dawn". Anything else?`;

// What each answer plays: the result of the approved or skipped tool call and a text.
const TRIMMED = { result: { status: 'trimmed', fileId: 'vod-file-001', removedSeconds: 10 }, text: 'Trimmed the first 10 seconds.' };
const WATERMARKED = { result: { status: 'watermarked', fileId: 'vod-file-001' }, text: 'Added the watermark.' };
const untrimmed = (feedback) => ({ result: { status: 'skipped' }, text: `Left the video untrimmed ("${feedback}").` });
const noWatermark = (feedback) => ({ result: { status: 'skipped' }, text: `No watermark ("${feedback}").` });

// The seed's three resume variants: the answer to each interrupt and the branch it picks.
const VARIANTS = [
  {
    name: 'both resolved',
    answers: { [TRIM]: { status: 'resolved' }, [WATERMARK]: { status: 'resolved' } },
    branches: [TRIMMED, WATERMARKED],
  },
  {
    name: 'both cancelled with feedback',
    answers: {
      [TRIM]: { status: 'cancelled', payload: { feedback: 'No cropping needed' } },
      [WATERMARK]: { status: 'cancelled', payload: { feedback: 'No watermark needed' } },
    },
    branches: [untrimmed('No cropping needed'), noWatermark('No watermark needed')],
  },
  {
    name: 'one resolved, one cancelled',
    answers: {
      [TRIM]: { status: 'resolved' },
      [WATERMARK]: { status: 'cancelled', payload: { feedback: 'Do not add a watermark' } },
    },
    branches: [TRIMMED, noWatermark('Do not add a watermark')],
  },
];

/** The resume entries an app builds from the interrupts it was given, in their order. */
function resumeFor(interrupts, answers) {
  return interrupts.map((intr) => ({ interruptId: intr.id, ...answers[intr.id] }));
}

/**
 * Asserts the interrupts of the first run: trim then watermark, each bound to its tool
 * call, with its prompt and the schema of the answer's payload.
 */
function assertSeedInterrupts(interrupts, calls) {
  const byName = Object.fromEntries(calls.map((c) => [c.name, c]));
  assert.deepEqual(interrupts, [
    {
      id: TRIM,
      reason: 'tool_call',
      message: 'Trim the first 10 seconds of "Ocean waves at dawn"?',
      toolCallId: byName.trim_video.id,
      responseSchema: RESPONSE_SCHEMA,
    },
    {
      id: WATERMARK,
      reason: 'tool_call',
      message: 'Add the watermark "© Media Library"?',
      toolCallId: byName.add_watermark.id,
      responseSchema: RESPONSE_SCHEMA,
    },
  ]);
}

/** Asserts what a resume run streams: each branch's tool result and text, then the closing text. */
function assertBranches(events, calls, branches) {
  const byName = Object.fromEntries(calls.map((c) => [c.name, c]));
  assert.deepEqual(streamedToolResults(events), [
    { toolCallId: byName.trim_video.id, content: branches[0].result },
    { toolCallId: byName.add_watermark.id, content: branches[1].result },
  ]);
  assert.deepEqual(streamedTexts(events), [branches[0].text, branches[1].text, CLOSING]);
  assert.deepEqual(streamedToolCalls(events), [], 'a resume run starts no new tool call');
}

/** The first run of the seed's loops over plain HTTP, on a new thread unless one is given. */
async function pauseThread(srv = server, threadId = `thread-${randomUUID()}`, runId = 'run-001') {
  const body = { threadId, runId, messages: [{ role: 'user', content: FIRST_MESSAGE }], forwardedProps: FIRST_PROPS };
  const { status, events } = await postRun(srv, body);
  assert.equal(status, 200);
  assert.equal(events.at(-1).outcome?.type, 'interrupt', JSON.stringify(events.at(-1)));
  return { threadId, events, interrupts: events.at(-1).outcome.interrupts };
}

/** A resume request as the seed's loops send it: an empty user message and the answers. */
function resumeBody(threadId, resume, runId = 'run-002') {
  return { threadId, runId, messages: [{ role: 'user', content: '' }], forwardedProps: { approval_mode: 'level:low' }, resume };
}

for (const client of CLIENTS) {
  describe(`the seed's TypeScript client loop with ${client.label}`, () => {
    for (const variant of VARIANTS) {
      test(`first run → interrupts → resume on the same agent: ${variant.name}`, async () => {
        const conversation = new Conversation(client, { url: server.url });
        const { agent } = conversation;
        assert.deepEqual(agent.pendingInterrupts, [], 'the agent has pendingInterrupts, empty at first');

        // The seed's subscriber: it prints texts and tool names and collects the
        // interrupts of RUN_FINISHED.
        const seen = { text: '', tools: [], interrupts: [] };
        const subscription = agent.subscribe({
          onEvent: ({ event }) => {
            switch (event.type) {
              case 'TEXT_MESSAGE_CONTENT':
                seen.text += event.delta;
                break;
              case 'TOOL_CALL_START':
                seen.tools.push(event.toolCallName);
                break;
              case 'RUN_FINISHED':
                if (event.outcome?.type === 'interrupt') seen.interrupts.push(...event.outcome.interrupts);
                break;
            }
          },
        });

        // 1. The first run pauses after the trim and watermark calls.
        const first = await conversation.send(FIRST_MESSAGE, { forwardedProps: FIRST_PROPS });
        assertCleanRun(first);
        const calls = streamedToolCalls(first.events);
        assert.deepEqual(
          calls.map((c) => [c.name, c.args]),
          [
            ['search_media_by_semantics', { query: 'ocean waves' }],
            ['trim_video', { fileId: 'vod-file-001', startSeconds: 10 }],
            ['add_watermark', { fileId: 'vod-file-001', text: '© Media Library' }],
          ],
        );
        assert.deepEqual(streamedTexts(first.events), FIRST_TEXTS);
        assert.equal(seen.text, FIRST_TEXTS.join(''));
        assert.deepEqual(seen.tools, ['search_media_by_semantics', 'trim_video', 'add_watermark']);
        assert.equal(streamedToolResults(first.events).length, 1, 'only the search has a result yet');

        const finished = first.events.at(-1);
        assert.equal(finished.type, 'RUN_FINISHED');
        assert.equal(finished.outcome.type, 'interrupt');
        assertSeedInterrupts(finished.outcome.interrupts, calls);
        assert.equal(first.finished.outcome, 'interrupt', 'onRunFinishedEvent reports the interrupt outcome');
        assert.deepEqual(first.finished.interrupts, finished.outcome.interrupts);
        assert.deepEqual(seen.interrupts, finished.outcome.interrupts);
        assert.deepEqual(agent.pendingInterrupts, finished.outcome.interrupts, 'the agent keeps the interrupts');

        let history = await threadHistory(server, agent.threadId);
        assertHistoryMatchesClient(history, agent);
        assert.deepEqual(history.interrupts, finished.outcome.interrupts, 'history lists the pending interrupts');
        assert.deepEqual(runOutcomes(history), ['interrupt']);

        // 2. Every interrupt answered on its own, 3. resumed on the same agent.
        const resume = resumeFor(agent.pendingInterrupts, variant.answers);
        const second = await conversation.continue({ forwardedProps: { approval_mode: 'level:low' }, resume });
        assertCleanRun(second);
        assert.equal(second.input.threadId, first.input.threadId, 'the resume run is on the same thread');
        assert.notEqual(second.input.runId, first.input.runId, 'the resume run is a new run');
        assert.deepEqual(second.input.resume, resume, 'the client sends the answers as given');
        assertBranches(second.events, calls, variant.branches);
        assert.equal(second.events.at(-1).type, 'RUN_FINISHED');
        assert.notEqual(second.events.at(-1).outcome?.type, 'interrupt');
        assert.equal(second.finished.outcome, 'success');
        assert.deepEqual(agent.pendingInterrupts, [], 'the agent cleared its pending interrupts');
        subscription.unsubscribe();

        // The client placed each result after the call it answers, then the texts.
        const withCalls = messagesOf(second, 'assistant').find((m) => m.toolCalls?.some((c) => c.function.name === 'trim_video'));
        const afterCalls = agent.messages.slice(agent.messages.indexOf(withCalls) + 1);
        assert.deepEqual(
          afterCalls.map((m) => [m.role, m.toolCallId ?? m.content]),
          [
            ['tool', withCalls.toolCalls[0].id],
            ['tool', withCalls.toolCalls[1].id],
            ['assistant', variant.branches[0].text],
            ['assistant', variant.branches[1].text],
            ['assistant', CLOSING],
          ],
        );

        // The server's history is what the client holds.
        history = await threadHistory(server, agent.threadId);
        assertHistoryMatchesClient(history, agent);
        assert.deepEqual(history.interrupts, []);
        assert.deepEqual(history.pendingToolCallIds, []);
        assert.equal(history.running, null);
        assert.deepEqual(
          history.runs.map((r) => [r.runId, r.scenario, r.outcome]),
          [
            [first.runId, 'media-management', 'interrupt'],
            [second.runId, 'media-management', 'success'],
          ],
        );
        for (const r of history.runs) {
          assert.ok(Date.parse(r.startedAt) <= Date.parse(r.endedAt), `${r.startedAt} .. ${r.endedAt}`);
        }
      });
    }

    test('an agent that picks up a paused thread without resume gets 409 interrupts_pending, then resumes', async () => {
      // E.g. the page was reloaded: the new agent knows the thread, not its interrupts.
      const { threadId, interrupts } = await pauseThread();
      const conversation = new Conversation(client, { url: server.url, threadId });
      const refused = await conversation.send('Hello again');

      assert.ok(refused.failure, 'onRunFailed was called');
      assert.equal(refused.rejection, refused.failure, 'runAgent rejected with the same error');
      assert.equal(refused.failure.status, 409);
      assert.equal(refused.failure.payload.error, 'interrupts_pending');
      assert.deepEqual(refused.failure.payload.details.interrupts, interrupts, 'the answer lists what to resume');
      assert.deepEqual(refused.events, []);
      assert.deepEqual(
        refused.consoleCalls.map((c) => [c.level, c.args[0]]),
        [['error', 'Agent execution failed:']],
      );

      const resume = resumeFor(refused.failure.payload.details.interrupts, VARIANTS[0].answers);
      const resumed = await conversation.continue({ resume });
      assertCleanRun(resumed);
      assert.deepEqual(streamedTexts(resumed.events), [TRIMMED.text, WATERMARKED.text, CLOSING]);
      assert.deepEqual(runOutcomes(await threadHistory(server, threadId)), ['interrupt', 'success']);
    });

    test('a payload that violates the responseSchema fails with 400 invalid_payload and can be answered again', async () => {
      const conversation = new Conversation(client, { url: server.url });
      const { agent } = conversation;
      const first = await conversation.send(FIRST_MESSAGE, { forwardedProps: FIRST_PROPS });
      assertCleanRun(first);
      const pending = structuredClone(agent.pendingInterrupts);

      const invalid = resumeFor(pending, { [TRIM]: { status: 'resolved', payload: { x: 1 } }, [WATERMARK]: { status: 'resolved' } });
      const refused = await conversation.continue({ resume: invalid });
      assert.ok(refused.failure, 'onRunFailed was called');
      assert.equal(refused.rejection, refused.failure);
      assert.equal(refused.failure.status, 400);
      assert.equal(refused.failure.payload.error, 'invalid_payload');
      assert.equal(refused.failure.payload.details.interruptId, TRIM);
      assert.deepEqual(agent.pendingInterrupts, pending, 'the agent still waits on both interrupts');

      const history = await threadHistory(server, agent.threadId);
      assert.deepEqual(history.interrupts, pending, 'the thread still waits on both interrupts');
      assert.deepEqual(runOutcomes(history), ['interrupt'], 'a refused resume is no run');

      const resumed = await conversation.continue({ resume: resumeFor(pending, VARIANTS[2].answers) });
      assertCleanRun(resumed);
      assertBranches(resumed.events, streamedToolCalls(first.events), VARIANTS[2].branches);
      assertHistoryMatchesClient(await threadHistory(server, agent.threadId), agent);
    });

    test('the client itself refuses a run that leaves pending interrupts unanswered', async () => {
      const conversation = new Conversation(client, { url: server.url });
      const { agent } = conversation;
      assertCleanRun(await conversation.send(FIRST_MESSAGE, { forwardedProps: FIRST_PROPS }));

      const refused = await conversation.send('never mind');
      assert.match(String(refused.rejection), /2 pending interrupt\(s\) not addressed by resume/);
      assert.deepEqual(refused.events, [], 'nothing was sent');
      assert.deepEqual(runOutcomes(await threadHistory(server, agent.threadId)), ['interrupt']);
    });
  });
}

describe("the seed's literal request bodies over plain fetch", () => {
  test("the Python loop: approve the first interrupt, reject the second, resume with an empty user message", async () => {
    const srv = await startServer(); // the loop's literal thread-001, on a server of its own
    try {
      // 1. First conversation: the loop collects the interrupts of RUN_FINISHED.
      const first = await pauseThread(srv, 'thread-001', 'run-001');
      const calls = streamedToolCalls(first.events);
      assertSeedInterrupts(first.interrupts, calls);
      assert.equal(first.events.at(-1).runId, 'run-001');

      // 2. An independent decision per tool, 3. resumed with the same approval_mode.
      const resume = first.interrupts.map((intr, i) =>
        i === 0
          ? { interruptId: intr.id, status: 'resolved' }
          : { interruptId: intr.id, status: 'cancelled', payload: { feedback: 'This operation is not needed' } },
      );
      const second = await postRun(srv, resumeBody('thread-001', resume));
      assert.equal(second.status, 200, JSON.stringify(second.body));
      assert.deepEqual([second.events[0].type, second.events[0].runId], ['RUN_STARTED', 'run-002']);
      assertBranches(second.events, calls, [TRIMMED, noWatermark('This operation is not needed')]);
      const finished = second.events.at(-1);
      assert.deepEqual([finished.type, finished.threadId, finished.runId], ['RUN_FINISHED', 'thread-001', 'run-002']);

      const history = await threadHistory(srv, 'thread-001');
      assert.deepEqual(
        history.runs.map((r) => [r.runId, r.outcome]),
        [
          ['run-001', 'interrupt'],
          ['run-002', 'success'],
        ],
      );
      assert.deepEqual(history.interrupts, []);
      // The messages without ids got ids from the server; the empty user message of the
      // resume is part of the thread, after the results of the calls it answered.
      assert.ok(history.messages.every((m) => typeof m.id === 'string' && m.id.length > 0));
      assert.deepEqual(
        history.messages.map((m) => m.role),
        ['user', 'reasoning', 'assistant', 'tool', 'assistant', 'tool', 'tool', 'user', 'assistant', 'assistant', 'assistant'],
      );
      assert.deepEqual(
        history.messages.filter((m) => m.role === 'user').map((m) => m.content),
        [FIRST_MESSAGE, ''],
      );
    } finally {
      await srv.stop();
    }
  });

  for (const variant of VARIANTS) {
    test(`the seed's resume body on my-thread-001: ${variant.name}`, async () => {
      const srv = await startServer(); // the seed's literal thread and run ids
      try {
        const first = await pauseThread(srv, 'my-thread-001', 'run-001');
        // The seed's body, which names another scenario: the paused one continues.
        const body = {
          ...resumeBody('my-thread-001', resumeFor(first.interrupts, variant.answers)),
          forwardedProps: { approval_mode: 'level:low', scenario_name: 'video-mixcut' },
        };
        const second = await postRun(srv, body);
        assert.equal(second.status, 200, JSON.stringify(second.body));
        assertBranches(second.events, streamedToolCalls(first.events), variant.branches);
        const history = await threadHistory(srv, 'my-thread-001');
        assert.deepEqual(
          history.runs.map((r) => [r.runId, r.scenario, r.outcome]),
          [
            ['run-001', 'media-management', 'interrupt'],
            ['run-002', 'media-management', 'success'],
          ],
        );
      } finally {
        await srv.stop();
      }
    });
  }
});

describe('answers the server refuses, over plain fetch', () => {
  /** Asserts an error answer: status, code, a message, and details naming the interrupt. */
  function assertRefusal(answer, status, error, interruptId) {
    assert.equal(answer.status, status, JSON.stringify(answer.body ?? answer.events?.at(-1)));
    const { body } = answer;
    assert.equal(body.error, error);
    assert.ok(typeof body.message === 'string' && body.message.length > 0);
    if (interruptId) assert.equal(body.details.interruptId, interruptId);
  }

  const answersOf = (...entries) => entries.map(([interruptId, status, payload]) => ({ interruptId, status, ...(payload && { payload }) }));

  const REFUSALS = [
    {
      what: 'a run without resume while interrupts are pending is 409 interrupts_pending',
      body: (threadId) => ({ threadId, runId: 'run-002', messages: [{ role: 'user', content: 'and now?' }] }),
      status: 409,
      error: 'interrupts_pending',
    },
    {
      what: 'a resume that leaves an interrupt unanswered is 400 interrupt_not_answered',
      body: (threadId) => resumeBody(threadId, answersOf([TRIM, 'resolved'])),
      status: 400,
      error: 'interrupt_not_answered',
      interruptId: WATERMARK,
    },
    {
      what: 'an answer to an interrupt that is not pending is 400 unknown_interrupt',
      body: (threadId) => resumeBody(threadId, answersOf([TRIM, 'resolved'], [WATERMARK, 'resolved'], ['interruptId-009', 'resolved'])),
      status: 400,
      error: 'unknown_interrupt',
      interruptId: 'interruptId-009',
    },
    {
      what: 'two answers to one interrupt are 400 duplicate_answer',
      body: (threadId) => resumeBody(threadId, answersOf([TRIM, 'resolved'], [TRIM, 'cancelled'], [WATERMARK, 'resolved'])),
      status: 400,
      error: 'duplicate_answer',
      interruptId: TRIM,
    },
    {
      what: 'a payload the responseSchema forbids ({"x":1}) is 400 invalid_payload',
      body: (threadId) => resumeBody(threadId, answersOf([TRIM, 'resolved', { x: 1 }], [WATERMARK, 'resolved'])),
      status: 400,
      error: 'invalid_payload',
      interruptId: TRIM,
    },
  ];

  for (const refusal of REFUSALS) {
    test(`${refusal.what}, and the thread still waits`, async () => {
      const { threadId, interrupts } = await pauseThread();
      const answer = await postRun(server, refusal.body(threadId));
      assertRefusal(answer, refusal.status, refusal.error, refusal.interruptId);
      assert.deepEqual(answer.body.details.interrupts, interrupts, 'the answer lists the pending interrupts');

      const history = await threadHistory(server, threadId);
      assert.deepEqual(history.interrupts, interrupts);
      assert.deepEqual(runOutcomes(history), ['interrupt']);
      // A proper answer still goes through.
      const resumed = await postRun(server, resumeBody(threadId, resumeFor(interrupts, VARIANTS[0].answers)));
      assert.equal(resumed.status, 200);
      assert.deepEqual(streamedTexts(resumed.events), [TRIMMED.text, WATERMARKED.text, CLOSING]);
    });
  }

  test('a resume on a thread that waits for nothing is 400 no_pending_interrupts', async () => {
    const fresh = await postRun(server, resumeBody(`thread-${randomUUID()}`, answersOf([TRIM, 'resolved'])));
    assertRefusal(fresh, 400, 'no_pending_interrupts');

    // Answering the same interrupts twice: the second time nothing is pending.
    const { threadId, interrupts } = await pauseThread();
    const resume = resumeFor(interrupts, VARIANTS[0].answers);
    assert.equal((await postRun(server, resumeBody(threadId, resume))).status, 200);
    assertRefusal(await postRun(server, resumeBody(threadId, resume, 'run-003')), 400, 'no_pending_interrupts');
    assert.deepEqual(runOutcomes(await threadHistory(server, threadId)), ['interrupt', 'success']);
  });

  test('an expired interrupt cannot be resolved (400 interrupt_expired) but can be cancelled', async () => {
    const threadId = `thread-${randomUUID()}`;
    const first = await postRun(expiring, { threadId, runId: 'run-001', messages: [{ role: 'user', content: 'publish now' }] });
    const [interrupt] = first.events.at(-1).outcome.interrupts;
    assert.equal(interrupt.id, 'publish-001');
    assert.equal(interrupt.reason, 'confirmation');
    const expiresAt = Date.parse(interrupt.expiresAt);
    assert.ok(Number.isFinite(expiresAt), `expiresAt ${interrupt.expiresAt} is an ISO-8601 time`);
    // expiresIn counts from the start of the run that raises the interrupt.
    const started = first.events[0].timestamp;
    assert.ok(expiresAt - 50 <= started + 1 && expiresAt - 50 > started - 1000, `expiresAt ${interrupt.expiresAt}, run started ${started}`);

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 20));
    const late = await postRun(expiring, resumeBody(threadId, answersOf(['publish-001', 'resolved'])));
    assertRefusal(late, 400, 'interrupt_expired', 'publish-001');

    const cancelled = await postRun(expiring, resumeBody(threadId, answersOf(['publish-001', 'cancelled'])));
    assert.equal(cancelled.status, 200);
    assert.deepEqual(streamedTexts(cancelled.events), ['Not published.', 'Done.']);
  });
});
