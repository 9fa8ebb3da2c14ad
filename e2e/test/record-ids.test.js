// A session with the real LangGraph JS graph (e2e/agents/langgraph-graph.mjs behind
// @ag-ui/langgraph, on a fake model) recorded through `agui-mock record` with the
// official HttpAgent, then replayed to a new HttpAgent: the replay has one id per
// message, as the live stream had — where the live stream carried the client's own id
// (MESSAGES_SNAPSHOT, STATE_SNAPSHOT.snapshot.messages, RAW payloads), the replay
// carries the replaying client's, never the recording session's — and every object of
// every event comes with its members in the order the live agent wrote them.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { agentsInstalled, startAgent } from './agents.js';
import { CLIENTS, Conversation } from './clients.js';
import { makeTempDir } from './harness.js';
import { assertAccepted, onInterrupts, recordedLines } from './realagents.js';
import { recordings, startRecorder, startReplay } from './recording.js';

const [current] = CLIENTS;

/**
 * A fetch for HttpAgent that keeps, in frames, the data of every SSE frame of each
 * answer as it came over the wire (a list per request), before the client parses it.
 */
function teeFetch(frames) {
  return async (url, init) => {
    const res = await fetch(url, init);
    const [mine, theirs] = res.body.tee();
    const run = [];
    frames.push(run);
    const read = (async () => {
      let text = '';
      const decoder = new TextDecoder();
      for await (const chunk of theirs) text += decoder.decode(chunk, { stream: true });
      for (const block of text.split(/\r?\n\r?\n/)) {
        const data = block
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        if (data) run.push(data);
      }
    })();
    frames.reads = [...(frames.reads ?? []), read];
    return new Response(mine, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** A session: the first run raises the approval interrupt, the second approves it. */
async function session(url) {
  const frames = [];
  const conv = new Conversation(current, { url, speed: null });
  conv.agent.fetch = teeFetch(frames);
  const first = await conv.send('Book me a flight', { runId: randomUUID() });
  assertAccepted(first);
  const [value] = onInterrupts(first);
  assert.ok(value, 'the graph raised its interrupt');
  const second = await conv.continue({ runId: randomUUID(), forwardedProps: { command: { resume: { approved: true }, interruptEvent: value } } });
  assertAccepted(second);
  await Promise.all(frames.reads);
  return { userID: first.userMessage.id, frames, runs: [first, second] };
}

/** The strings of a JSON value, each with its path. */
function strings(value, path = '', out = []) {
  if (typeof value === 'string') out.push([path, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => strings(v, `${path}/${i}`, out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) strings(v, `${path}/${k}`, out);
  return out;
}

/** Each object of a JSON text with its members in the order written (the event's time stamp left out). */
function memberOrders(data) {
  const out = [];
  const walk = (value, path) => {
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}/${i}`));
    else if (value && typeof value === 'object') {
      const keys = Object.keys(value).filter((k) => path !== '' || k !== 'timestamp');
      out.push(`${path || '/'}: ${keys.join(',')}`);
      for (const k of keys) walk(value[k], `${path}/${k}`);
    }
  };
  walk(JSON.parse(data), '');
  return out;
}

/** Whether a JSON text's objects have keys a JavaScript object would not keep in order (integer-like). */
const integerKeys = (data) => /"\d+":/.test(data);

/** The ids a live run established: the client's message ids, and those of the agent's messages and tool calls. */
function establishedIDs(frames, userID) {
  const ids = new Set([userID]);
  for (const data of frames) {
    const ev = JSON.parse(data);
    for (const k of ['messageId', 'toolCallId']) if (typeof ev[k] === 'string') ids.add(ev[k]);
    if (ev.type === 'MESSAGES_SNAPSHOT') {
      for (const m of ev.messages) {
        ids.add(m.id);
        for (const c of m.toolCalls ?? []) ids.add(c.id);
        if (m.toolCallId) ids.add(m.toolCallId);
      }
    }
  }
  return ids;
}

if (agentsInstalled('a real LangGraph agent, recorded and replayed with its ids and member order')) {
  describe('a LangGraph session recorded and replayed: one id per message, members in the agent\'s order', () => {
    let agent;
    let live;
    let replayed;
    const fixtures = makeTempDir('agui-mock-record-ids-');
    before(async () => {
      agent = await startAgent('langgraph-agent.js');
      const recorder = await startRecorder(agent.url, fixtures);
      try {
        live = await session(recorder.url);
        const lines = await recordedLines(recorder, 2);
        assert.equal(lines.length, 2, recorder.output.join('\n'));
      } finally {
        await recorder.stop();
      }
      assert.equal(recordings(fixtures).length, 1, `recordings: ${recordings(fixtures)}`);
      const replay = await startReplay(fixtures);
      try {
        replayed = await session(replay.url);
      } finally {
        await replay.stop();
      }
    });
    after(() => agent?.stop());

    test('the live stream carries the client\'s id in its snapshots and raw payloads (the ground truth)', () => {
      const text = live.frames.flat().filter((data) => /"type":"(STATE_SNAPSHOT|RAW)"/.test(data));
      assert.ok(text.some((data) => data.includes(live.userID)), 'no STATE_SNAPSHOT or RAW event carries the client\'s id');
      assert.notEqual(replayed.userID, live.userID);
    });

    test('the replay has one id per message: the replaying client\'s where the live stream had the client\'s, no recording session\'s id', () => {
      for (const [run, frames] of live.frames.entries()) {
        const again = replayed.frames[run];
        assert.equal(again.length, frames.length, `run ${run}: ${again.length} events replayed of ${frames.length}`);
        const ids = establishedIDs(frames, live.userID);
        const replayText = again.join('\n');
        for (const id of ids) assert.ok(!replayText.includes(JSON.stringify(id)), `run ${run}: the recording session's id ${id} is replayed`);
        const mapped = new Map([[live.userID, replayed.userID]]);
        for (const [i, data] of frames.entries()) {
          const at = new Map(strings(JSON.parse(again[i])));
          for (const [path, value] of strings(JSON.parse(data))) {
            if (!ids.has(value)) continue;
            const now = at.get(path);
            if (!mapped.has(value)) mapped.set(value, now);
            assert.equal(now, mapped.get(value), `run ${run} event ${i} (${JSON.parse(data).type}) ${path}: ${value} replayed as ${now}, elsewhere as ${mapped.get(value)}`);
          }
        }
      }
    });

    test('LangGraph\'s own run id in RUN_FINISHED replays as a fresh id per run, wherever the live run carried it', () => {
      const seen = new Set();
      for (const [run, frames] of live.frames.entries()) {
        const finished = (list) => JSON.parse(list.find((data) => JSON.parse(data).type === 'RUN_FINISHED'));
        const own = finished(frames).runId;
        const again = finished(replayed.frames[run]).runId;
        assert.notEqual(own, live.runs[run].runId, `run ${run}: the live graph ends with a run id of its own`);
        assert.notEqual(again, replayed.runs[run].runId, `run ${run}: the replay keeps the break, not the request's run id`);
        assert.notEqual(again, own, `run ${run}: the recording session's run id is not replayed`);
        assert.ok(!seen.has(again), `run ${run}: ${again} ended an earlier replayed run`);
        seen.add(again);
        for (const [i, data] of frames.entries()) {
          const at = new Map(strings(JSON.parse(replayed.frames[run][i])));
          for (const [path, value] of strings(JSON.parse(data))) {
            if (value === own) assert.equal(at.get(path), again, `run ${run} event ${i} (${JSON.parse(data).type}) ${path}`);
          }
        }
      }
    });

    test('every replayed event has its objects\' members in the order the live agent wrote them', () => {
      for (const [run, frames] of live.frames.entries()) {
        for (const [i, data] of frames.entries()) {
          if (integerKeys(data)) continue; // JavaScript puts such keys first: not the wire's order
          assert.deepEqual(memberOrders(replayed.frames[run][i]), memberOrders(data), `run ${run} event ${i} (${JSON.parse(data).type})`);
        }
      }
    });
  });
}
