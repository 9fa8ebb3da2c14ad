// The trace comparison of trace.js on hand-made traces: ids renumbered consistently in
// the order first met (copies in snapshots and payloads included), timestamps left out,
// member order significant, and the first difference reported with its path and both
// values.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareTraces, describeDifference, firstDifference, Members, ordered, parseOrdered, renumber, toJSON } from './trace.js';

/** A small run of a thread: a message, a tool call, a state snapshot holding both ids, a RAW copy. */
function run({ thread, runId, msg, call, user, timestamp = 1, note = 'a note' }) {
  return [
    { type: 'RUN_STARTED', threadId: thread, runId, timestamp },
    { type: 'TEXT_MESSAGE_START', messageId: msg, role: 'assistant', timestamp: timestamp + 1 },
    { type: 'TEXT_MESSAGE_END', messageId: msg },
    { type: 'TOOL_CALL_START', toolCallId: call, toolCallName: 'book', parentMessageId: msg },
    { type: 'TOOL_CALL_END', toolCallId: call },
    { type: 'STATE_SNAPSHOT', snapshot: { messages: [{ id: user, role: 'user' }, { id: msg, tool_calls: [{ id: call }] }] } },
    { type: 'RAW', event: { data: { last: msg, note } } },
    { type: 'RUN_FINISHED', threadId: thread, runId, result: { pendingToolCallIds: [call] } },
  ];
}

describe('trace comparison', () => {
  test('parseOrdered keeps every member in the order written, integer-like names too', () => {
    const value = parseOrdered('{"b":1,"10":[true,null,-2.5e3],"a":{"2":"x\\"y","1":"z"}}');
    assert.ok(value instanceof Members);
    assert.deepEqual(
      value.entries.map(([k]) => k),
      ['b', '10', 'a'],
    );
    assert.equal(toJSON(value), '{"b":1,"10":[true,null,-2500],"a":{"2":"x\\"y","1":"z"}}');
    assert.throws(() => parseOrdered('{"a":1,}'), SyntaxError);
    assert.throws(() => parseOrdered('{"a":1} x'), SyntaxError);
  });

  test('renumbers ids in the order first met, the same id the same number everywhere, and drops timestamps', () => {
    const [events] = renumber([run({ thread: 't-9', runId: 'r-9', msg: 'm-9', call: 'c-9', user: 'u-9', note: 'about m-9' }).map(ordered)]);
    const text = events.map(toJSON);
    assert.equal(text[0], '{"type":"RUN_STARTED","threadId":"<id1>","runId":"<id2>"}');
    assert.equal(text[3], '{"type":"TOOL_CALL_START","toolCallId":"<id4>","toolCallName":"book","parentMessageId":"<id3>"}');
    // the user's id, met first in the snapshot, is numbered there; copies of the message id keep its number
    assert.equal(text[5], '{"type":"STATE_SNAPSHOT","snapshot":{"messages":[{"id":"<id5>","role":"user"},{"id":"<id3>","tool_calls":[{"id":"<id4>"}]}]}}');
    // a whole string equal to an id is renumbered; an id inside a longer text is not
    assert.equal(text[6], '{"type":"RAW","event":{"data":{"last":"<id3>","note":"about m-9"}}}');
    assert.equal(text[7], '{"type":"RUN_FINISHED","threadId":"<id1>","runId":"<id2>","result":{"pendingToolCallIds":["<id4>"]}}');
    // a later run numbers its own new ids afresh, and names those an earlier run met first by that run
    const [, second] = renumber([run({ thread: 't-9', runId: 'r-9', msg: 'm-9', call: 'c-9', user: 'u-9' }), run({ thread: 't-9', runId: 'r-10', msg: 'm-10', call: 'c-9', user: 'u-9' })].map((r) => r.map(ordered)));
    assert.equal(toJSON(second[0]), '{"type":"RUN_STARTED","threadId":"<run1.id1>","runId":"<id1>"}');
    assert.equal(toJSON(second[3]), '{"type":"TOOL_CALL_START","toolCallId":"<run1.id4>","toolCallName":"book","parentMessageId":"<id2>"}');
  });

  test('two traces that differ only in their ids and times are equal, run by run, across runs', () => {
    const live = [run({ thread: 'T', runId: 'R1', msg: 'M1', call: 'C1', user: 'U1' }), run({ thread: 'T', runId: 'R2', msg: 'M2', call: 'C2', user: 'U1' })];
    const replayed = [
      run({ thread: 'x', runId: 'y1', msg: 'z1', call: 'w1', user: 'v1', timestamp: 99 }),
      run({ thread: 'x', runId: 'y2', msg: 'z2', call: 'w2', user: 'v1', timestamp: 500 }),
    ];
    assert.deepEqual(
      compareTraces(live, replayed).map((r) => [r.run, r.match]),
      [
        [0, true],
        [1, true],
      ],
    );
  });

  test('ids are renumbered consistently: a replay that confuses two ids, or changes a run\'s thread, differs', () => {
    const live = [run({ thread: 'T', runId: 'R1', msg: 'M1', call: 'C1', user: 'U1' }), run({ thread: 'T', runId: 'R2', msg: 'M2', call: 'C2', user: 'U1' })];
    // one id for the message and the tool call where the live run had two
    const confused = run({ thread: 'x', runId: 'y1', msg: 'z1', call: 'z1', user: 'v1' });
    const [first] = compareTraces(live.slice(0, 1), [confused]);
    assert.equal(first.match, false);
    assert.equal(first.text, 'event 3 (TOOL_CALL_START) /3/toolCallId: live "<id4>", replayed "<id3>"');
    // the second run in another thread: equal on its own, different in the conversation
    const moved = [run({ thread: 'x', runId: 'y1', msg: 'z1', call: 'w1', user: 'v1' }), run({ thread: 'other', runId: 'y2', msg: 'z2', call: 'w2', user: 'v1' })];
    const results = compareTraces(live, moved);
    assert.deepEqual(
      results.map((r) => r.match),
      [true, false],
    );
    assert.equal(results[1].text, 'event 0 (RUN_STARTED) /0/threadId: live "<run1.id1>", replayed "<id1>"');
    // a run's own new ids are numbered afresh: an extra id at the end of the first run shifts no number of the second
    const extra = [[...moved[0], { type: 'CUSTOM', name: 'note', value: { runId: 'another' } }], run({ thread: 'x', runId: 'y2', msg: 'z2', call: 'w2', user: 'v1' })];
    const shifted = compareTraces(live, extra);
    assert.deepEqual(
      shifted.map((r) => r.match),
      [false, true],
    );
    assert.equal(shifted[0].text, 'event 8 (CUSTOM) /8 (8 vs 9 items): live (nothing), replayed {"type":"CUSTOM","name":"note","value":{"runId":"<id6>"}}');
  });

  test('member order is significant, at any depth', () => {
    const live = [[{ type: 'STATE_SNAPSHOT', snapshot: { b: 1, a: 2 } }]];
    const replayed = [[{ type: 'STATE_SNAPSHOT', snapshot: { a: 2, b: 1 } }]];
    const [result] = compareTraces(live, replayed);
    assert.equal(result.match, false);
    assert.equal(result.text, 'event 0 (STATE_SNAPSHOT) /0/snapshot: members in another order: live ["b","a"], replayed ["a","b"]');
    // integer-like names too, as parsed from the wire
    const wire = (text) => [[parseOrdered(text)]];
    assert.equal(compareTraces(wire('{"type":"RAW","event":{"2":0,"1":0}}'), wire('{"type":"RAW","event":{"1":0,"2":0}}'))[0].match, false);
    assert.equal(compareTraces(wire('{"type":"RAW","event":{"2":0,"1":0}}'), wire('{"type":"RAW","event":{"2":0,"1":0}}'))[0].match, true);
    // the top-level timestamp is left out wherever it stands
    assert.equal(compareTraces([[{ timestamp: 1, type: 'CUSTOM' }]], [[{ type: 'CUSTOM', timestamp: 2 }]])[0].match, true);
  });

  test('the first difference is reported readably: its path and both values', () => {
    const live = [[{ type: 'RUN_STARTED', threadId: 't', runId: 'r' }, { type: 'CUSTOM', name: 'on_interrupt', value: { question: 'Book it?', n: 1 } }]];
    const changed = [[{ type: 'RUN_STARTED', threadId: 'a', runId: 'b' }, { type: 'CUSTOM', name: 'on_interrupt', value: { question: 'Book it now?', n: 1 } }]];
    assert.equal(compareTraces(live, changed)[0].text, 'event 1 (CUSTOM) /1/value/question: live "Book it?", replayed "Book it now?"');
    const missing = [[{ type: 'RUN_STARTED', threadId: 'a', runId: 'b' }]];
    assert.equal(compareTraces(live, missing)[0].text, 'event 1 (CUSTOM) /1 (2 vs 1 items): live {"type":"CUSTOM","name":"on_interrupt","value":{"question":"Book it?","n":1}}, replayed (nothing)');
    const extra = [[{ type: 'RUN_STARTED', threadId: 'a', runId: 'b', outcome: 'x' }, live[0][1]]];
    assert.equal(compareTraces(live, extra)[0].text, 'event 0 (RUN_STARTED) /0/outcome: live (nothing), replayed "x"');
    assert.equal(compareTraces(live, [...missing, []])[1].text, 'the live trace has no run 2');
    assert.equal(describeDifference(firstDifference(ordered({ a: [1, 2] }), ordered({ a: [1, 3] })), ['A', 'B']), '/a/1: A 2, B 3');
  });
});
