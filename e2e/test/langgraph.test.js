// Interrupts in the LangGraph dialect, as LangGraph agents behind CopilotKit raise them: a
// CUSTOM on_interrupt event whose value is the interrupt as a JSON string, the run
// finishing normally, and a next run that answers in forwardedProps.command.resume. Driven
// by the real HttpAgent of each client version, with scenarios of both dialects in one
// file; the errors of a run that answers wrongly; and a LangGraph upstream's session
// recorded and replayed.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation, eventsOf } from './clients.js';
import { MIXED_DIALECTS } from './fixtures.js';
import { useServer, writeTempFiles } from './harness.js';
import { assertValid, beginStream, recordings, startFakeUpstream, startRecorder, startReplay, writeEvent } from './recording.js';
import { postRun, streamedTexts, threadHistory } from './threads.js';

// A scenario that names no dialect: the server's --dialect decides.
const NO_DIALECT = `\
id: plain-confirm
steps:
  - interrupt:
      id: int-confirm
      message: Continue?
      on:
        resolved: [{text: "Continuing with {{ .answer.payload }}."}]
`;

const dir = writeTempFiles({ 'mixed.yaml': MIXED_DIALECTS, 'plain.yaml': NO_DIALECT });
const server = useServer(['--no-builtin', '--scenarios', dir]);
const langgraphByDefault = useServer(['--no-builtin', '--scenarios', dir, '--dialect', 'langgraph']);

/** The values of a run's on_interrupt events, as CopilotKit's useInterrupt reads them. */
function onInterrupts(run) {
  return eventsOf(run, 'CUSTOM')
    .filter((e) => e.name === 'on_interrupt')
    .map((e) => e.value);
}

test('agui-mock validate accepts both dialects in one file', async () => {
  await assertValid(path.join(dir, 'mixed.yaml'));
});

for (const client of CLIENTS) {
  describe(client.label, () => {
    test('a LangGraph interrupt is an on_interrupt event, and forwardedProps.command.resume answers it', async () => {
      for (const [answer, want] of [
        [JSON.stringify({ approved: true, title: 'Ocean waves' }), 'Published Ocean waves.'],
        ['no', 'Not published.'],
      ]) {
        const conv = new Conversation(client, { url: server.url });
        const first = await conv.send('publish');
        assertCleanRun(first);
        const [value, ...more] = onInterrupts(first);
        assert.equal(more.length, 0);
        assert.equal(typeof value, 'string', 'the value is a JSON string, as LangGraph sends it');
        const interrupt = JSON.parse(value);
        assert.equal(interrupt.message, 'Publish the post?');
        assert.deepEqual(interrupt.metadata, { draft: 'post-7' });
        assert.equal(first.events.at(-1).outcome, undefined, 'the run finishes normally');
        assert.equal(first.finished.outcome === 'interrupt', false);

        const history = await threadHistory(server, conv.agent.threadId);
        assert.deepEqual(history.interrupts.map((i) => i.id), ['int-publish'], 'history shows the waiting interrupt');

        const second = await conv.continue({ forwardedProps: { command: { resume: answer, interruptEvent: value } } });
        assertCleanRun(second);
        assert.deepEqual(streamedTexts(second.events), [want, 'Anything else?']);
        const texts = conv.agent.messages.filter((m) => m.role === 'assistant').map((m) => m.content);
        assert.deepEqual(texts, ['The draft is ready.', want, 'Anything else?'], 'what the user sees');
        assert.deepEqual((await threadHistory(server, conv.agent.threadId)).interrupts, []);
      }
    });

    test('the standard scenario of the same file keeps the interrupt outcome', async () => {
      const conv = new Conversation(client, { url: langgraphByDefault.url });
      const first = await conv.send('archive');
      assertCleanRun(first);
      assert.deepEqual(onInterrupts(first), []);
      if (client.protocolVersion) {
        assert.equal(first.finished.outcome, 'interrupt');
        assert.deepEqual(first.finished.interrupts.map((i) => i.id), ['int-archive']);
      }
      const second = await conv.continue({ resume: [{ interruptId: 'int-archive', status: 'cancelled' }] });
      assertCleanRun(second);
      assert.deepEqual(streamedTexts(second.events), ['Kept.']);
    });

    test('--dialect langgraph plays the scenarios that name none in the LangGraph dialect', async () => {
      const conv = new Conversation(client, { url: langgraphByDefault.url });
      const first = await conv.send('go');
      assertCleanRun(first);
      assert.equal(JSON.parse(onInterrupts(first)[0]).id, 'int-confirm');
      const second = await conv.continue({ forwardedProps: { command: { resume: 'yes' } } });
      assertCleanRun(second);
      assert.deepEqual(streamedTexts(second.events), ['Continuing with yes.']);
    });
  });
}

test('a LangGraph answer gets the errors of the standard dialect', async () => {
  const threadId = `lg-${randomUUID()}`;
  const first = await postRun(server, { threadId, runId: 'r1', messages: [{ id: 'u1', role: 'user', content: 'publish' }] });
  assert.equal(first.status, 200);

  const nothing = await postRun(server, { threadId, runId: 'r2', messages: [] });
  assert.equal(nothing.status, 409);
  assert.equal(nothing.body.error, 'interrupts_pending');
  assert.match(nothing.body.message, /forwardedProps\.command\.resume/);

  const other = await postRun(server, {
    threadId,
    runId: 'r2',
    messages: [],
    forwardedProps: { command: { resume: 'yes', interruptEvent: JSON.stringify({ id: 'int-gone' }) } },
  });
  assert.equal(other.status, 400);
  assert.equal(other.body.error, 'unknown_interrupt');
  assert.equal(other.body.details.interruptId, 'int-gone');

  const idle = await postRun(server, { threadId: `idle-${randomUUID()}`, runId: 'r1', messages: [], forwardedProps: { command: { resume: 'yes' } } });
  assert.equal(idle.status, 400);
  assert.equal(idle.body.error, 'no_pending_interrupts');
});

describe('record → replay of a LangGraph session', () => {
  let upstream;
  before(async () => {
    // answers as LangGraph's AG-UI bridge does: on_interrupt with the graph's value (no
    // id), then the text the resume chose
    upstream = await startFakeUpstream((req, res) => {
      const { threadId, runId, forwardedProps, protocolVersion } = req.body;
      beginStream(res);
      writeEvent(res, { type: 'RUN_STARTED', threadId, runId, protocolVersion });
      const resume = forwardedProps?.command?.resume;
      if (resume === undefined) {
        writeEvent(res, { type: 'CUSTOM', name: 'on_interrupt', value: JSON.stringify({ question: 'Send the newsletter?' }) });
      } else {
        const text = JSON.parse(resume).send ? 'Newsletter sent.' : 'Newsletter held back.';
        writeEvent(res, { type: 'TEXT_MESSAGE_START', messageId: 'lg-1', role: 'assistant' });
        writeEvent(res, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'lg-1', delta: text });
        writeEvent(res, { type: 'TEXT_MESSAGE_END', messageId: 'lg-1' });
      }
      writeEvent(res, { type: 'RUN_FINISHED', threadId, runId });
      res.end();
    });
  });
  after(() => upstream.close());

  /** Raises the interrupt and answers it as useInterrupt does, through the real client. */
  async function session(url, send) {
    const conv = new Conversation(CLIENTS[0], { url });
    const first = await conv.send('newsletter');
    assertCleanRun(first);
    const [value] = onInterrupts(first);
    assert.deepEqual(JSON.parse(value), { question: 'Send the newsletter?' });
    const second = await conv.continue({ forwardedProps: { command: { resume: JSON.stringify({ send }), interruptEvent: value } } });
    assertCleanRun(second);
    return streamedTexts(second.events);
  }

  test('is one fixture in the langgraph dialect, and replays each answer', async () => {
    const out = writeTempFiles({});
    const recorder = await startRecorder(upstream.url, out, ['--dedupe']);
    try {
      assert.deepEqual(await session(recorder.url, true), ['Newsletter sent.']);
      assert.deepEqual(await session(recorder.url, false), ['Newsletter held back.']);
    } finally {
      await recorder.stop();
    }
    const files = recordings(out);
    assert.equal(files.length, 1, `one fixture: ${files}`);
    const fixture = readFileSync(path.join(out, files[0]), 'utf8');
    assert.match(fixture, /^dialect: langgraph$/m);
    await assertValid(out);

    const replay = await startReplay(out);
    try {
      assert.deepEqual(await session(replay.url, true), ['Newsletter sent.']);
      assert.deepEqual(await session(replay.url, false), ['Newsletter held back.']);
    } finally {
      await replay.stop();
    }
  });
});
