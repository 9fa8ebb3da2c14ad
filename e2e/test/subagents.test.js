// Subagents and event metadata through the real HttpAgent of each client version, over
// SSE and protobuf: the documented examples of docs/scenarios.md (a planner delegating
// to nested subagents, one of which fails; an interrupt inside a subagent, answered
// both ways). @ag-ui/client 1.0.0 gets the lifecycle, the attribution and the
// metadata; 0.0.58 gets the same conversation without the subagent events or their
// attribution, and accepts it without a warning. The inspector's timeline draws each
// invocation from the run's record.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminOK, journalEntry, newTestId, TEST_ID_HEADER } from './admin.js';
import { assertCleanRun, CLIENTS, Conversation, eventsOf, messagesOf } from './clients.js';
import { SUBAGENT_SCENARIOS } from './fixtures.js';
import { useServer, writeTempFiles } from './harness.js';
import { streamedTexts } from './threads.js';
import { laneOf, subagentNote, subagentSpans } from '../../server/inspector/timeline.js';

const server = useServer(['--no-builtin', '--scenarios', writeTempFiles(SUBAGENT_SCENARIOS)]);

const TRIP_TEXTS = ['Let me ask my team.', 'Two flights to Lisbon on Friday.', 'The booking failed: try another card.'];
const SUBAGENT_TYPES = ['SUBAGENT_STARTED', 'SUBAGENT_FINISHED', 'SUBAGENT_ERROR'];

/** Each event as its type, with the name of the subagent invocation it belongs to after a slash. */
function lanes(events) {
  const names = new Map(eventsOf({ events }, 'SUBAGENT_STARTED').map((e) => [e.subagentRunId, e.name]));
  return events
    .map((e) => (e.subagentRunId ? `${e.type}/${names.get(e.subagentRunId)}` : e.type))
    .filter((lane, i, all) => lane !== all[i - 1]);
}

const current = CLIENTS.find((c) => c.protocolVersion);
const legacy = CLIENTS.find((c) => !c.protocolVersion);

for (const transport of ['sse', 'proto']) {
  describe(`subagents with ${current.label} over ${transport}`, () => {
    test('a delegation: nested subagents attribute their events, a failing one ends with SUBAGENT_ERROR, metadata rides along', async () => {
      const conversation = new Conversation(current, { url: server.url, transport });
      const run = await conversation.send('Plan a trip');
      assertCleanRun(run);
      assert.deepEqual(lanes(run.events), [
        'RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END',
        'SUBAGENT_STARTED/researcher',
        'TOOL_CALL_START/researcher', 'TOOL_CALL_ARGS/researcher', 'TOOL_CALL_END/researcher', 'TOOL_CALL_RESULT/researcher',
        'SUBAGENT_STARTED/writer', 'TEXT_MESSAGE_START/writer', 'TEXT_MESSAGE_CONTENT/writer', 'TEXT_MESSAGE_END/writer', 'SUBAGENT_FINISHED/writer',
        'SUBAGENT_FINISHED/researcher',
        'SUBAGENT_STARTED/booker', 'SUBAGENT_ERROR/booker',
        'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_FINISHED',
      ]);
      const [researcher, writer, booker] = eventsOf(run, 'SUBAGENT_STARTED');
      assert.equal(researcher.description, 'Finds flights');
      assert.equal(researcher.parentSubagentRunId, undefined);
      assert.equal(writer.parentSubagentRunId, researcher.subagentRunId);
      assert.equal(new Set([researcher, writer, booker].map((e) => e.subagentRunId)).size, 3, 'each invocation has an id of its own');
      const [writerDone, researcherDone] = eventsOf(run, 'SUBAGENT_FINISHED');
      assert.deepEqual(writerDone.outcome, { type: 'success' });
      assert.deepEqual(researcherDone.outcome, { type: 'success' });
      assert.deepEqual(researcherDone.result, { flights: 2 });
      const [failed] = eventsOf(run, 'SUBAGENT_ERROR');
      assert.deepEqual([failed.message, failed.code], ['card declined', 'payment']);

      assert.deepEqual(streamedTexts(run.events), TRIP_TEXTS);
      const assistant = messagesOf(run, 'assistant');
      assert.deepEqual(assistant.filter((m) => m.content).map((m) => m.content), TRIP_TEXTS);
      const first = assistant.find((m) => m.content === TRIP_TEXTS[0]);
      assert.deepEqual(first.metadata, { model: 'planner-large' }, "the client keeps the step's metadata on its message");
      for (const e of run.events.filter((e) => e.messageId === first.id)) {
        assert.deepEqual(e.metadata, { model: 'planner-large' }, `${e.type} carries the step's metadata`);
      }
      assert.equal(assistant.find((m) => m.content === TRIP_TEXTS[1]).subagentRunId, writer.subagentRunId, "the client attributes the writer's message");
      assert.equal(first.subagentRunId, undefined);
    });

    for (const [status, branch] of [['resolved', ['Paid.', 'Receipt sent.', 'Done.']], ['cancelled', ['Done.']]]) {
      test(`an interrupt inside a subagent suspends it; the answer (${status}) resumes the same invocation`, async () => {
        const conversation = new Conversation(current, { url: server.url, transport });
        const first = await conversation.send('Pay the hotel');
        assertCleanRun(first);
        assert.deepEqual(lanes(first.events), ['RUN_STARTED', 'SUBAGENT_STARTED/payer', 'SUBAGENT_FINISHED/payer', 'RUN_FINISHED']);
        const [payer] = eventsOf(first, 'SUBAGENT_STARTED');
        const [interrupt] = first.finished.interrupts;
        assert.equal(first.finished.outcome, 'interrupt');
        assert.equal(interrupt.subagentRunId, payer.subagentRunId, 'the interrupt belongs to the payer');
        assert.deepEqual(eventsOf(first, 'SUBAGENT_FINISHED')[0].outcome, { type: 'suspended', interruptIds: [interrupt.id] });

        const second = await conversation.continue({ resume: [{ interruptId: interrupt.id, status }] });
        assertCleanRun(second);
        const [again] = eventsOf(second, 'SUBAGENT_STARTED');
        assert.equal(again.subagentRunId, payer.subagentRunId, 'the continuing run announces the same invocation');
        assert.deepEqual(streamedTexts(second.events), branch);
        const end = second.events.find((e) => SUBAGENT_TYPES.slice(1).includes(e.type));
        if (status === 'resolved') {
          assert.deepEqual([end.type, end.outcome], ['SUBAGENT_FINISHED', { type: 'success' }]);
        } else {
          assert.deepEqual([end.type, end.message], ['SUBAGENT_ERROR', 'payment refused']);
        }
        assert.equal(second.finished.outcome, 'success');
        assert.deepEqual(conversation.agent.pendingInterrupts, []);
      });
    }
  });
}

describe(`subagents with ${legacy.label}`, () => {
  test('the delegation arrives without subagent events or attribution, metadata kept', async () => {
    const conversation = new Conversation(legacy, { url: server.url });
    const run = await conversation.send('Plan a trip');
    assertCleanRun(run);
    assert.deepEqual(run.events.filter((e) => SUBAGENT_TYPES.includes(e.type)), []);
    assert.deepEqual(run.events.filter((e) => 'subagentRunId' in e), []);
    assert.deepEqual(streamedTexts(run.events), TRIP_TEXTS);
    assert.deepEqual(eventsOf(run, 'TOOL_CALL_RESULT').map((e) => e.content), ['2 flights']);
    assert.deepEqual(eventsOf(run, 'TEXT_MESSAGE_START')[0].metadata, { model: 'planner-large' });
  });

  test('the interrupt inside a subagent pauses and resumes the conversation', async () => {
    const conversation = new Conversation(legacy, { url: server.url });
    const first = await conversation.send('Pay the hotel');
    assertCleanRun(first);
    assert.deepEqual(first.events.map((e) => e.type), ['RUN_STARTED', 'RUN_FINISHED']);
    const [interrupt] = first.events.at(-1).outcome.interrupts;
    assert.equal('subagentRunId' in interrupt, false, 'the interrupt comes without its attribution');
    const second = await conversation.continue({ resume: [{ interruptId: interrupt.id, status: 'resolved' }] });
    assertCleanRun(second);
    assert.deepEqual(streamedTexts(second.events), ['Paid.', 'Receipt sent.', 'Done.']);
  });
});

describe("the inspector's timeline", () => {
  /** The events of a run as the inspector reads them from the journal: [{atMs, event}]. */
  async function recorded(message, resume) {
    const testId = newTestId('subagents');
    const conversation = new Conversation(current, { url: server.url, headers: { [TEST_ID_HEADER]: testId } });
    const first = await conversation.send(message);
    let run = first;
    if (resume) run = await conversation.continue({ resume: resume(first) });
    const entry = await journalEntry(server, (e) => e.runId === run.runId, { testId });
    return (await adminOK(server, 'GET', `/journal/${entry.seq}`, { testId })).events;
  }

  test('each invocation is a bar in the subagents lane, nested ones deeper, ended as they ended', async () => {
    const events = await recorded('Plan a trip');
    const spans = subagentSpans(events);
    assert.deepEqual(spans.map((s) => [s.name, s.depth, s.ending]), [
      ['researcher', 0, 'success'],
      ['writer', 1, 'success'],
      ['booker', 0, 'error'],
    ]);
    assert.equal(spans[1].parent, spans[0].id);
    for (const s of spans) assert.ok(s.startMs <= s.endMs, `${s.name} ends after it starts`);
    assert.ok(spans[1].endMs <= spans[0].endMs, 'the writer ends within the researcher');
    const lanes = events.filter((e) => e.event.type.startsWith('SUBAGENT_')).map((e) => laneOf(e.event));
    assert.deepEqual([...new Set(lanes)], ['subagents']);
    const writerText = events.find((e) => e.event.type === 'TEXT_MESSAGE_START' && e.event.subagentRunId === spans[1].id);
    assert.equal(subagentNote(writerText.event, spans), 'in subagent writer');
    assert.equal(subagentNote(events[0].event, spans), '', 'RUN_STARTED belongs to no subagent');
  });

  test('a paused run shows its subagent suspended, and the run that answers it the same invocation again', async () => {
    const paused = subagentSpans(await recorded('Pay the hotel'));
    assert.deepEqual(paused.map((s) => [s.name, s.ending]), [['payer', 'suspended']]);
    const resumed = subagentSpans(await recorded('Pay the hotel', (first) => [{ interruptId: first.finished.interrupts[0].id, status: 'resolved' }]));
    assert.deepEqual(resumed.map((s) => [s.name, s.ending]), [['payer', 'success']]);
  });
});
