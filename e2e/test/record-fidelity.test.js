// (r) Recording fidelity: what a recording keeps of a session, and what its replay
// sends, against a scripted agent standing in for the agents teams run (LangGraph
// behind @ag-ui/langgraph, servers that declare no protocol version), recorded and
// replayed through the real HttpAgent 1.0.0.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { CLIENTS, Conversation, eventsOf, toolDefinitions } from './clients.js';
import { makeTempDir } from './harness.js';
import { beginStream, recordings, startFakeUpstream, startRecorder, startReplay, writeEvent } from './recording.js';

const [current] = CLIENTS;

/** Streams events as one run's answer. */
function answer(res, events) {
  beginStream(res);
  for (const event of events) writeEvent(res, event);
  res.end();
}

/** A text message of the agent's. */
function text(messageId, delta) {
  return [
    { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId, delta },
    { type: 'TEXT_MESSAGE_END', messageId },
  ];
}

/** Records with one recorder on upstream into a fresh directory; resolves with {dir, recorder, stop()}. */
async function recording(handler) {
  const upstream = await startFakeUpstream(handler);
  const dir = makeTempDir('agui-mock-fidelity-');
  const recorder = await startRecorder(upstream.url, dir);
  return { dir, recorder, upstream, stop: () => Promise.all([recorder.stop(), upstream.close()]) };
}

/** Waits for the recorder's line of the count-th recorded run. */
async function recordedRuns(recorder, count) {
  await recorder.waitForOutput(() => recorder.output.filter((l) => l.startsWith('recorded run')).length >= count, 5_000);
  return recorder.output.filter((l) => l.startsWith('recorded run'));
}

/** Plays one replay of dir with drive(url) and stops it. */
async function replayed(dir, drive) {
  const replay = await startReplay(dir);
  try {
    return await drive(replay.url);
  } finally {
    await replay.stop();
  }
}

describe('a recording never replaces what it holds', () => {
  // Two frontend tool calls; a run that brings tool results is answered; any other run greeted.
  const agent = ({ body }, res) => {
    const { threadId, runId, messages } = body;
    const results = messages.filter((m) => m.role === 'tool').length;
    const last = messages.at(-1);
    let middle;
    if (results > 0) middle = text('up-answer', `answered ${results} result(s)`);
    else if (last.role === 'user' && last.content === 'pick two') {
      middle = ['up-call-a', 'up-call-b'].flatMap((toolCallId) => [
        { type: 'TOOL_CALL_START', toolCallId, toolCallName: 'choose' },
        { type: 'TOOL_CALL_ARGS', toolCallId, delta: '{}' },
        { type: 'TOOL_CALL_END', toolCallId },
      ]);
    } else middle = text('up-hello', `greeting ${messages.length} message(s)`);
    answer(res, [{ type: 'RUN_STARTED', threadId, runId }, ...middle, { type: 'RUN_FINISHED', threadId, runId }]);
  };

  for (const { name, first, later } of [
    {
      name: 'a run answering one of two tool calls',
      first: (c) => c.send('pick two', { tools: ['choose'] }),
      later: (c) => {
        c.agent.addMessage({ id: 'tool-a', role: 'tool', toolCallId: 'up-call-a', content: 'a' });
        return c.continue({ tools: ['choose'] });
      },
    },
    { name: 'a run bringing no new user message', first: (c) => c.send('hello'), later: (c) => c.continue() },
  ]) {
    test(`${name} is recorded in a file of its own, keyed by its conversation; each run replays for its own request`, async () => {
      const rec = await recording(agent);
      try {
        const conversation = new Conversation(current, { url: rec.recorder.url, speed: null });
        await first(conversation);
        const [firstLine] = await recordedRuns(rec.recorder, 1);
        const [firstFile] = recordings(rec.dir);
        const before = readFileSync(path.join(rec.dir, firstFile), 'utf8');
        const laterRun = await later(conversation);
        const lines = await recordedRuns(rec.recorder, 2);
        const files = recordings(rec.dir);
        assert.equal(files.length, 2, `files ${files}; ${lines.join('\n')}`);
        assert.equal(readFileSync(path.join(rec.dir, firstFile), 'utf8'), before, "the first run's file is unchanged");
        const laterFile = files.find((f) => f !== firstFile);
        assert.ok(lines[1].endsWith(laterFile), `${lines[1]} names ${laterFile}`);
        assert.ok(firstLine.endsWith(firstFile));
        const laterFixture = readFileSync(path.join(rec.dir, laterFile), 'utf8');
        assert.match(laterFixture, /^match:\n(  .*\n)*  conversation:\n    - user: /m, laterFixture);
        assert.match(laterFixture, /^examples:\n  - conversation:\n/m, laterFixture);

        // The first request still replays the first run, and the later request, on a
        // server that keeps nothing of the thread, the later run.
        const run = await replayed(rec.dir, (url) => new Conversation(current, { url }).send(conversation.agent.messages[0].content));
        assert.equal(run.failure, undefined, `the replay failed: ${run.failure}`);
        assert.deepEqual(
          eventsOf(run, 'TEXT_MESSAGE_CONTENT').concat(eventsOf(run, 'TOOL_CALL_START')).map((e) => e.delta ?? e.toolCallName),
          name.includes('tool') ? ['choose', 'choose'] : ['greeting 1 message(s)'],
        );
        const again = await replayed(rec.dir, (url) => {
          const c = new Conversation(current, { url });
          c.agent.messages = structuredClone(laterRun.input.messages);
          return c.continue({ tools: ['choose'] });
        });
        assert.equal(again.failure, undefined, `the replay failed: ${again.failure}`);
        assert.deepEqual(eventsOf(again, 'TEXT_MESSAGE_CONTENT').map((e) => e.delta), [name.includes('tool') ? 'answered 1 result(s)' : 'greeting 2 message(s)']);
      } finally {
        await rec.stop();
      }
    });
  }
});

describe('a recording never replaces what it holds, across a restart of the recorder', () => {
  test('a run answering tool calls of a run recorded before the restart does not replace that run, and replays after it', async () => {
    const upstream = await startFakeUpstream(({ body: { threadId, runId, messages } }, res) => {
      const answered = messages.some((m) => m.role === 'tool');
      const middle = answered
        ? text('up-answer', 'Both chosen.')
        : ['up-call-a', 'up-call-b'].flatMap((toolCallId) => [
            { type: 'TOOL_CALL_START', toolCallId, toolCallName: 'choose' },
            { type: 'TOOL_CALL_END', toolCallId },
          ]);
      answer(res, [{ type: 'RUN_STARTED', threadId, runId }, ...middle, { type: 'RUN_FINISHED', threadId, runId }]);
    });
    const dir = makeTempDir('agui-mock-fidelity-');
    let recorder = await startRecorder(upstream.url, dir);
    try {
      const conversation = new Conversation(current, { url: recorder.url, speed: null });
      const first = await conversation.send('pick two', { tools: ['choose'] });
      await recordedRuns(recorder, 1);
      const [firstFile] = recordings(dir);
      const before = readFileSync(path.join(dir, firstFile), 'utf8');
      await recorder.stop();

      recorder = await startRecorder(upstream.url, dir);
      const again = new Conversation(current, { url: recorder.url, speed: null, threadId: conversation.agent.threadId });
      again.agent.messages = structuredClone(conversation.agent.messages);
      for (const call of eventsOf(first, 'TOOL_CALL_START')) {
        again.agent.addMessage({ id: `result-${call.toolCallId}`, role: 'tool', toolCallId: call.toolCallId, content: 'a' });
      }
      const second = await again.continue({ tools: ['choose'] });
      assert.equal(second.failure, undefined);
      await recordedRuns(recorder, 1);
      assert.equal(readFileSync(path.join(dir, firstFile), 'utf8'), before, "the first run's file is unchanged");
      const files = recordings(dir);
      assert.equal(files.length, 2, `files ${files}`);
      const laterFixture = readFileSync(path.join(dir, files.find((f) => f !== firstFile)), 'utf8');
      assert.match(laterFixture, /^  conversation:\n/m, laterFixture);

      // A replay of the whole session plays it after the first run's pause.
      const replayedSecond = await replayed(dir, async (url) => {
        const c = new Conversation(current, { url, speed: null });
        const paused = await c.send('pick two', { tools: ['choose'] });
        for (const call of eventsOf(paused, 'TOOL_CALL_START')) {
          c.agent.addMessage({ id: `result-${call.toolCallId}`, role: 'tool', toolCallId: call.toolCallId, content: 'a' });
        }
        return c.continue({ tools: ['choose'] });
      });
      assert.equal(replayedSecond.failure, undefined, `the replay failed: ${replayedSecond.failure}`);
      assert.deepEqual(eventsOf(replayedSecond, 'TEXT_MESSAGE_CONTENT').map((e) => e.delta), ['Both chosen.']);
    } finally {
      await Promise.all([recorder.stop(), upstream.close()]);
    }
  });
});

describe('recording an agent that finishes with its own run id, as @ag-ui/langgraph does', () => {
  // The agent breaks AG-UI's finished-run-id rule, which @ag-ui/client tolerates: the
  // recording keeps the break (the agent's run id as an id of the replay's own, not the
  // request's) and is marked with the rule, so that a replay sends what the agent sent.
  test('the run is relayed and recorded as sent, the run id templated, the scenario marked breaks: [finished-run-id]', async () => {
    const rec = await recording(({ body: { threadId, runId } }, res) =>
      answer(res, [{ type: 'RUN_STARTED', threadId, runId }, ...text('lg-msg', 'Hello from the graph.'), { type: 'RUN_FINISHED', threadId, runId: '1ef0-langgraph-run' }]),
    );
    try {
      const run = await new Conversation(current, { url: rec.recorder.url, speed: null }).send('hello graph');
      assert.equal(run.failure, undefined, `the client failed: ${run.failure}`);
      assert.equal(run.events.at(-1).runId, '1ef0-langgraph-run', 'the client gets the agent\'s RUN_FINISHED as sent');
      const [line] = await recordedRuns(rec.recorder, 1);
      assert.match(line, /, complete, nothing redacted, breaks finished-run-id → /);
      const warning = await rec.recorder.waitForLog((r) => r.level === 'WARN');
      assert.equal(warning.rules, 'finished-run-id');
      const [file] = recordings(rec.dir);
      const fixture = readFileSync(path.join(rec.dir, file), 'utf8');
      assert.ok(!fixture.includes('1ef0-langgraph-run'), fixture);
      assert.match(fixture, /^breaks: \[finished-run-id\]$/m, fixture);
      assert.match(fixture, /type: RUN_FINISHED, .*runId: '\{\{ id `r1` \}\}'/, fixture);

      const replay = await replayed(rec.dir, (url) => new Conversation(current, { url }).send('hello graph'));
      assert.equal(replay.failure, undefined);
      assert.equal(replay.rejection, undefined);
      const finished = replay.events.at(-1);
      assert.equal(finished.type, 'RUN_FINISHED');
      assert.ok(finished.runId && finished.runId !== replay.runId && finished.runId !== '1ef0-langgraph-run', `the replay ends with a run id of its own, as the agent did: ${finished.runId}`);
      assert.deepEqual(eventsOf(replay, 'TEXT_MESSAGE_CONTENT').map((e) => e.delta), ['Hello from the graph.']);
    } finally {
      await rec.stop();
    }
  });
});

describe('a replay sends what the agent sent', () => {
  test('an agent that declares no protocol version is replayed without one', async () => {
    const rec = await recording(({ body: { threadId, runId } }, res) =>
      answer(res, [{ type: 'RUN_STARTED', threadId, runId }, ...text('m', 'No version here.'), { type: 'RUN_FINISHED', threadId, runId }]),
    );
    try {
      const recorded = await new Conversation(current, { url: rec.recorder.url, speed: null }).send('which version');
      assert.equal(recorded.events[0].protocolVersion, undefined);
      await recordedRuns(rec.recorder, 1);
      const run = await replayed(rec.dir, (url) => new Conversation(current, { url }).send('which version'));
      assert.equal(run.failure, undefined);
      assert.equal(run.events[0].type, 'RUN_STARTED');
      assert.equal(run.events[0].protocolVersion, undefined, 'the replay declares no version the agent did not');
    } finally {
      await rec.stop();
    }
  });
});

describe('a replayed MESSAGES_SNAPSHOT carries the client\'s own messages', () => {
  // Ends every run as LangGraph does: a snapshot of the thread — the client's messages
  // as the agent keeps them, its reply, a tool it ran itself and the tool's result.
  const graph = ({ body: { threadId, runId, messages } }, res) =>
    answer(res, [
      { type: 'RUN_STARTED', threadId, runId },
      ...text('lg-ai-1', 'Looking it up.'),
      {
        type: 'MESSAGES_SNAPSHOT',
        messages: [
          ...messages.map(({ id, role, content }) => ({ id, role, content })),
          {
            id: 'lg-ai-1',
            role: 'assistant',
            content: 'Looking it up.',
            toolCalls: [{ id: 'lg-call-1', type: 'function', function: { name: 'lookup', arguments: '{"q":"tea"}' } }],
          },
          { id: 'lg-tool-1', role: 'tool', toolCallId: 'lg-call-1', content: 'found tea' },
        ],
      },
      { type: 'RUN_FINISHED', threadId, runId },
    ]);

  test('the user\'s message keeps its id and its place above the reply; the agent\'s ids are fresh', async () => {
    const rec = await recording(graph);
    try {
      await new Conversation(current, { url: rec.recorder.url, speed: null }).send('find tea');
      await recordedRuns(rec.recorder, 1);
      const [file] = recordings(rec.dir);
      const fixture = readFileSync(path.join(rec.dir, file), 'utf8');
      for (const id of ['lg-ai-1', 'lg-call-1', 'lg-tool-1']) assert.ok(!fixture.includes(id), `the fixture keeps ${id}:\n${fixture}`);

      const conversation = await replayed(rec.dir, async (url) => {
        const c = new Conversation(current, { url });
        await c.send('find tea', { messageId: 'my-question' });
        return c;
      });
      const messages = conversation.agent.messages;
      assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant', 'tool'], JSON.stringify(messages));
      assert.deepEqual(messages[0], { id: 'my-question', role: 'user', content: 'find tea' });
      const [call] = messages[1].toolCalls;
      assert.notEqual(messages[1].id, 'lg-ai-1');
      assert.notEqual(call.id, 'lg-call-1');
      assert.equal(messages[2].toolCallId, call.id);
    } finally {
      await rec.stop();
    }
  });
});

describe('a recorded example keeps what the client offered', () => {
  test('tools, context, state and forwardedProps of the first request are in the example', async () => {
    const rec = await recording(({ body: { threadId, runId } }, res) =>
      answer(res, [{ type: 'RUN_STARTED', threadId, runId }, ...text('m', 'Noted.'), { type: 'RUN_FINISHED', threadId, runId }]),
    );
    try {
      const conversation = new Conversation(current, { url: rec.recorder.url, speed: null, state: { cart: ['tea'] } });
      conversation.agent.messages = [{ id: 'u1', role: 'user', content: 'check out' }];
      await conversation.agent.runAgent({
        tools: toolDefinitions(['confirm']),
        context: [{ description: 'the page', value: 'checkout' }],
        forwardedProps: { theme: 'dark' },
      });
      await recordedRuns(rec.recorder, 1);
      const examples = await replayed(rec.dir, async (url) => {
        const list = await (await fetch(`${url}/_mock/scenarios`)).json();
        return (Array.isArray(list) ? list : list.scenarios)[0].examples;
      });
      const offered = {
        tools: toolDefinitions(['confirm']),
        context: [{ description: 'the page', value: 'checkout' }],
        state: { cart: ['tea'] },
        forwardedProps: { theme: 'dark' },
      };
      // The admin API lists each example with the run request it stands for (input).
      assert.deepEqual(
        examples.map(({ input, ...example }) => example),
        [{ message: 'check out', ...offered }],
      );
      const { input } = examples[0];
      assert.deepEqual(
        { tools: input.tools, context: input.context, state: input.state, forwardedProps: input.forwardedProps },
        offered,
      );
    } finally {
      await rec.stop();
    }
  });
});
