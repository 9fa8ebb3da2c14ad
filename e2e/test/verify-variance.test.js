// `agui-mock verify` against a real LangGraph JS graph that answers a later turn from the
// whole conversation and varies from run to run in its scheduling
// (e2e/agents/langgraph-variance-graph.mjs behind @ag-ui/langgraph, AGENT_GRAPH=variance):
// a session of two turns on one thread is recorded with `agui-mock record`, then verified
// against the unchanged graph several times, and against the graph with its tool renamed.
//
// The follow-up turn ("What did I book?") calls a tool only when the thread mentioned a
// flight before, so verify passes it only by sending the whole recorded conversation.
// Each run's two parallel branches interleave their events at random, so the adapter's
// STATE_SNAPSHOT and MESSAGES_SNAPSHOT events change in number and place from run to
// run while everything else stays the same: verify must not take that for drift. A
// renamed tool still is.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { agentsInstalled, startAgent } from './agents.js';
import { CLIENTS, Conversation } from './clients.js';
import { makeTempDir } from './harness.js';
import { assertAccepted, recordedLines, shown, verify } from './realagents.js';
import { assertValid, recordings, startRecorder } from './recording.js';

const [current] = CLIENTS;
const FIRST = 'Book me a flight to Paris';
const FOLLOW_UP = 'What did I book?';
const VERIFY_RUNS = 4;

/** What the user sees after both turns: the follow-up looks the booking up. */
const bothTurns = (toolName = 'lookup_booking') => [
  { role: 'user', content: FIRST },
  { role: 'assistant', content: 'Booked flight AF1234 to Paris.' },
  { role: 'user', content: FOLLOW_UP },
  { role: 'assistant', toolCalls: [[toolName, { flight: 'AF1234' }]] },
  { role: 'tool', content: 'AF1234 to Paris, 9:15' },
  { role: 'assistant', content: 'You booked AF1234 to Paris at 9:15.' },
];

/**
 * Starts a loopback proxy to upstream that keeps every run it passes on: the request's
 * RunAgentInput and the events of the agent's answer. Resolves with {url, runs, close()}.
 */
async function startTap(upstream) {
  const runs = [];
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const answer = await fetch(upstream + req.url, {
      method: req.method,
      headers: { 'Content-Type': req.headers['content-type'], Accept: req.headers.accept },
      body,
    });
    res.writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'text/plain' });
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of answer.body) {
      res.write(chunk);
      text += decoder.decode(chunk, { stream: true });
    }
    res.end();
    const events = text
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => JSON.parse(frame.slice('data: '.length)));
    runs.push({ input: JSON.parse(body.toString('utf8')), events });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    runs,
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The events of a run by type (a step's by its name too), a run of deltas as one. */
function trace(events) {
  return events
    .map((e) => (e.stepName ? `${e.type} ${e.stepName}` : e.type))
    .filter((label, i, labels) => !(label === labels[i - 1] && /_CONTENT$|_ARGS$/.test(label)))
    .join('\n');
}

const SNAPSHOT = /^(STATE|MESSAGES)_SNAPSHOT$/;

/** The trace without its snapshots. */
const withoutSnapshots = (t) =>
  t
    .split('\n')
    .filter((label) => !SNAPSHOT.test(label))
    .join('\n');

/** Which turn of the session a request asks: by its last user message. */
const turnOf = (input) => input.messages.filter((m) => m.role === 'user').at(-1)?.content;

if (agentsInstalled('verify against a LangGraph graph that varies from run to run')) {
  describe('verify against a LangGraph graph that varies from run to run', () => {
    let agent;
    const fixtures = makeTempDir('agui-mock-variance-');
    before(async () => {
      agent = await startAgent('langgraph-agent.js', { AGENT_GRAPH: 'variance' });
    });
    after(() => agent?.stop());

    test('the graph, asked directly, answers the follow-up from the history (the ground truth)', async () => {
      const conv = new Conversation(current, { url: agent.url, speed: null });
      for (const message of [FIRST, FOLLOW_UP]) assertAccepted(await conv.send(message, { runId: randomUUID() }));
      assert.deepEqual(shown(conv.agent.messages), bothTurns());
      // the follow-up alone, on a thread of its own: plain text, no tool
      const alone = new Conversation(current, { url: agent.url, speed: null });
      assertAccepted(await alone.send(FOLLOW_UP, { runId: randomUUID() }));
      assert.deepEqual(shown(alone.agent.messages), [
        { role: 'user', content: FOLLOW_UP },
        { role: 'assistant', content: 'I have no booking of yours.' },
      ]);
    });

    test('agui-mock record records the first turn and the follow-up, keyed by its conversation', async () => {
      const recorder = await startRecorder(agent.url, fixtures);
      try {
        const conv = new Conversation(current, { url: recorder.url, speed: null });
        for (const message of [FIRST, FOLLOW_UP]) assertAccepted(await conv.send(message, { runId: randomUUID() }));
        assert.deepEqual(shown(conv.agent.messages), bothTurns(), 'through the recorder');
        const lines = await recordedLines(recorder, 2);
        assert.equal(lines.length, 2, recorder.output.join('\n'));
      } finally {
        await recorder.stop();
      }
      const files = recordings(fixtures);
      assert.equal(files.length, 2, `recordings: ${files}`);
      await assertValid(fixtures);
      const texts = files.map((f) => readFileSync(path.join(fixtures, f), 'utf8'));
      const followUp = texts.find((t) => t.includes('What did I book'));
      const first = texts.find((t) => t !== followUp);
      assert.ok(followUp && first, files.join(', '));
      // the follow-up is matched by the whole conversation, and its example sends it
      const block = (text, key) => text.split(/^(?=\S)/m).find((part) => part.startsWith(`${key}:`)) ?? '';
      assert.match(block(followUp, 'match'), /^ {2}conversation:\n {4}- user: .*Book me a flight to Paris.*\n {4}- assistant\n {4}- user: .*What did I book.*\n/m, followUp);
      assert.match(block(followUp, 'examples'), /^ {2}- conversation:\n/m, followUp);
      for (const content of [FIRST, 'Booked flight AF1234 to Paris.', FOLLOW_UP]) {
        assert.ok(block(followUp, 'examples').includes(content), `the example's conversation holds ${JSON.stringify(content)}:\n${followUp}`);
      }
      // the first turn is matched by its message alone
      assert.doesNotMatch(block(first, 'match'), /conversation:/, first);
    });

    test(`verify passes against the unchanged graph ${VERIFY_RUNS} times, whose snapshots differ from run to run`, async (t) => {
      const tap = await startTap(agent.url);
      try {
        for (let i = 1; i <= VERIFY_RUNS; i++) {
          const { code, stdout, stderr } = await verify('--upstream', `${tap.url}/agui/chat`, '--format', 'json', fixtures);
          assert.equal(code, 0, `verify run ${i}:\n${stdout}${stderr}`);
          const { results } = JSON.parse(stdout);
          assert.equal(results.length, 2, stdout);
          assert.deepEqual(
            results.map((r) => r.status),
            ['pass', 'pass'],
            `verify run ${i}:\n${stdout}`,
          );
        }
      } finally {
        await tap.close();
      }
      // verify asked the follow-up with the whole recorded conversation
      const followUps = tap.runs.filter((run) => turnOf(run.input) === FOLLOW_UP);
      assert.ok(followUps.length >= VERIFY_RUNS, `follow-up runs: ${followUps.length}`);
      for (const { input } of followUps) {
        assert.deepEqual(
          input.messages.map((m) => [m.role, m.content]),
          [
            ['user', FIRST],
            ['assistant', 'Booked flight AF1234 to Paris.'],
            ['user', FOLLOW_UP],
          ],
        );
      }
      // what verify saw: within each turn, traces that differ in their snapshots only
      const seen = [];
      for (const turn of [FIRST, FOLLOW_UP]) {
        const traces = tap.runs.filter((run) => turnOf(run.input) === turn).map((run) => trace(run.events));
        const counts = traces.map((one) => one.split('\n').filter((label) => label === 'MESSAGES_SNAPSHOT').length);
        seen.push({ turn, runs: traces.length, distinct: new Set(traces).size, messagesSnapshots: counts });
        const rest = [...new Set(traces.map(withoutSnapshots))];
        assert.equal(rest.length, 1, `${turn}: the runs differ in more than their snapshots:\n${rest.join('\n\n')}`);
      }
      assert.ok(
        seen.some((s) => s.distinct > 1),
        `the graph's runs all streamed the same snapshots: ${JSON.stringify(seen)}`,
      );
      t.diagnostic(`live traces seen by verify: ${JSON.stringify(seen)}`);
    });

    describe('after the graph renamed its tool', () => {
      let changed;
      before(async () => {
        changed = await startAgent('langgraph-agent.js', { AGENT_GRAPH: 'variance', AGENT_TOOL_NAME: 'reserve_lookup' });
      });
      after(() => changed?.stop());

      test('verify reports the renamed tool as drift', async () => {
        const { code, stdout, stderr } = await verify('--upstream', `${changed.url}/agui/chat`, '--format', 'json', fixtures);
        assert.equal(code, 1, stdout + stderr);
        const { results } = JSON.parse(stdout);
        const drifted = results.filter((r) => r.status === 'drift');
        assert.equal(drifted.length, 1, stdout);
        assert.match(drifted[0].difference, /reserve_lookup[\s\S]*lookup_booking/, drifted[0].difference);
        assert.deepEqual(results.filter((r) => r.status === 'pass').length, 1, 'the first turn calls no tool, and passes');
      });
    });
  });
}
