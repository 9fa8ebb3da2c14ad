// A real LangGraph JS graph (e2e/agents/langgraph-graph.mjs: FakeListChatModel, an
// interrupt() approval and a tool call) on the in-memory LangGraph API server, behind the
// official @ag-ui/langgraph adapter: both branches of its approval are recorded with
// `agui-mock record`, replayed to the real HttpAgent and through the CopilotKit runtime,
// and verified against the live graph (pass) and against a graph whose tool was renamed
// (drift). The adapter ends every run with LangGraph's own run id, breaking AG-UI's
// finished-run-id rule: the recording keeps it (mapped to a fresh id per replay) and is
// marked `breaks: [finished-run-id]`, the replay is accepted by each client as the live
// graph is, and verify passes with a warning naming the rule (--strict fails it).

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { agentsInstalled, startAgent } from './agents.js';
import { CLIENTS, Conversation } from './clients.js';
import { makeTempDir } from './harness.js';
import { assertAccepted, assertReplayed, copilotKitApp, onInterrupts, recordedLines, shown, verify } from './realagents.js';
import { assertValid, recordings, startRecorder, startReplay } from './recording.js';

const [current] = CLIENTS;
const FIRST = 'Book me a flight';
const INTERRUPT = { question: 'Book the 9:15 flight to Paris?', flight: 'AF1234' };
const BRANCHES = [
  { name: 'approve', resume: { approved: true }, said: 'Booked AF1234.', result: 'booked' },
  { name: 'reject', resume: { approved: false }, said: 'Not booked.', result: 'cancelled' },
];

/**
 * What the user sees after a branch: the conversation of the graph's last
 * MESSAGES_SNAPSHOT, in the order the adapter gives it (its streamed reply before the
 * tool call it made in the same node).
 */
const conversation = (branch, toolName = 'book_flight') => [
  { role: 'user', content: FIRST },
  { role: 'assistant', content: 'Flight AF1234 to Paris?' },
  { role: 'assistant', content: branch.said },
  { role: 'assistant', toolCalls: [[toolName, { flight: 'AF1234', approved: branch.resume.approved }]] },
  { role: 'tool', content: branch.result },
];

/** A replayed run's checks: LangGraph's own run id in RUN_FINISHED is replayed as a fresh id. */
const replayed = (run) => assertReplayed(run, { ownRunId: true });

/** Holds one conversation of the branch with url (an agent, a recorder or a replay). */
async function converse(url, branch, check = assertAccepted, client = current) {
  const conv = new Conversation(client, { url, speed: null });
  const first = await conv.send(FIRST, { runId: randomUUID() });
  check(first);
  const [value, ...more] = onInterrupts(first);
  assert.equal(more.length, 0);
  assert.deepEqual(JSON.parse(value), INTERRUPT);
  const second = await conv.continue({ runId: randomUUID(), forwardedProps: { command: { resume: branch.resume, interruptEvent: value } } });
  check(second);
  return { conv, first, second };
}

if (agentsInstalled('a real LangGraph agent')) {
  describe('a LangGraph JS graph behind @ag-ui/langgraph', () => {
    let agent;
    const fixtures = makeTempDir('agui-mock-langgraph-');
    before(async () => {
      agent = await startAgent('langgraph-agent.js');
    });
    after(() => agent?.stop());

    test('the graph, asked directly, holds both branches (the ground truth)', async () => {
      for (const branch of BRANCHES) {
        const { conv, first } = await converse(agent.url, branch);
        assert.notEqual(first.events.at(-1).runId, first.runId, "RUN_FINISHED carries LangGraph's own run id");
        assert.deepEqual(shown(conv.agent.messages), conversation(branch));
      }
    });

    test('agui-mock record records both branches into one fixture', async () => {
      const recorder = await startRecorder(agent.url, fixtures);
      try {
        for (const branch of BRANCHES) {
          const { conv } = await converse(recorder.url, branch);
          assert.deepEqual(shown(conv.agent.messages), conversation(branch), `${branch.name}: through the recorder`);
        }
        const lines = await recordedLines(recorder, 4);
        assert.equal(lines.length, 4, recorder.output.join('\n'));
        assert.ok(lines.every((line) => line.includes('complete') && line.includes(', breaks finished-run-id → ')), lines.join('\n'));
        const warned = recorder.logs.filter((r) => r.level === 'WARN');
        assert.deepEqual(warned.map((r) => r.rules), Array(4).fill('finished-run-id'), `one warning per run, naming the rule: ${JSON.stringify(warned)}`);
        assert.equal(new Set(warned.map((r) => r.run)).size, 4, 'a warning per run');
      } finally {
        await recorder.stop();
      }
      assert.equal(recordings(fixtures).length, 1, `recordings: ${recordings(fixtures)}`);
      await assertValid(fixtures);
      const text = readFileSync(path.join(fixtures, recordings(fixtures)[0]), 'utf8');
      assert.match(text, /^dialect: langgraph$/m);
      assert.match(text, /^breaks: \[finished-run-id\]$/m, 'the scenario is marked with the rule the graph breaks');
      assert.doesNotMatch(text, /runId: '?[0-9a-f]{8}-/, "no literal run id: LangGraph's own is templated");
      // Every RUN_FINISHED keeps the agent's own run id, as a generated id: not the request's.
      const finished = text.split('\n').filter((line) => line.includes('type: RUN_FINISHED'));
      assert.equal(finished.length, 3, text);
      for (const line of finished) assert.match(line, /runId: '\{\{ id `r\d+` \}\}'/, line);
    });

    test('the fixture replays both branches to @ag-ui/client 1.0.0, with the client\'s own messages', async () => {
      const replay = await startReplay(fixtures);
      try {
        for (const branch of BRANCHES) {
          const { conv, first, second } = await converse(replay.url, branch, replayed);
          assert.deepEqual(shown(conv.agent.messages), conversation(branch), `${branch.name}: replayed`);
          const user = conv.agent.messages.filter((m) => m.role === 'user');
          assert.deepEqual(user.map((m) => m.id), [first.userMessage.id], "the snapshot keeps the client's message and its id");
          assert.equal(first.events.find((e) => e.type === 'RUN_STARTED').protocolVersion, undefined, 'the agent declared no version');
          // the agent's own run ids, mapped: fresh per replayed run, none the request's
          const ends = [first, second].map((run) => run.events.at(-1).runId);
          assert.notEqual(ends[0], ends[1], 'each replayed run ends with a run id of its own');
          assert.ok(!ends.includes(first.runId) && !ends.includes(second.runId), ends.join(', '));
        }
      } finally {
        await replay.stop();
      }
    });

    test('each client accepts the replay as it accepts the live graph (@ag-ui/client 1.0.0 and 0.0.58)', async () => {
      const replay = await startReplay(fixtures);
      try {
        for (const client of CLIENTS) {
          const outcome = (run) => ({ failure: run.failure, rejection: run.rejection, last: run.events.at(-1)?.type });
          const [branch] = BRANCHES;
          const live = await converse(agent.url, branch, () => {}, client);
          const again = await converse(replay.url, branch, () => {}, client);
          for (const turn of ['first', 'second']) {
            assert.deepEqual(outcome(again[turn]), outcome(live[turn]), `${client.version}, ${turn} run: the replay is taken as the live run is`);
            assert.notEqual(live[turn].events.at(-1).runId, live[turn].runId, `${client.version}: the live graph ends with its own run id`);
            replayed(again[turn]);
          }
          assert.deepEqual(shown(again.conv.agent.messages), shown(live.conv.agent.messages), `${client.version}: the same conversation`);
        }
      } finally {
        await replay.stop();
      }
    });

    test('the fixture replays both branches through the CopilotKit runtime', async () => {
      const replay = await startReplay(fixtures);
      try {
        for (const branch of BRANCHES) {
          const app = await copilotKitApp(replay.url);
          try {
            await app.say(FIRST);
            assert.deepEqual(app.seen.interrupts.map((v) => JSON.parse(v)), [INTERRUPT]);
            await app.resumeLangGraph(branch.resume);
            assert.deepEqual(app.seen.errors, []);
            assert.deepEqual(shown(app.agent.messages), conversation(branch), `${branch.name}: through CopilotKit`);
          } finally {
            await app.close();
          }
        }
      } finally {
        await replay.stop();
      }
    });

    test('verify: the fixture passes against the live graph, warning of the rule it breaks', async () => {
      const junit = path.join(makeTempDir('agui-mock-langgraph-junit-'), 'verify.xml');
      const { code, stdout, stderr } = await verify('--upstream', `${agent.url}/agui/chat`, '--junit', junit, fixtures);
      assert.equal(code, 0, stdout + stderr);
      assert.match(stdout, /: warning: scenario \S+: example 1, turn 1: the agent breaks rule finished-run-id .*, as the scenario marks\n/);
      assert.match(stdout, /1 scenario\(s\) verified: 1 pass, 0 drift, 0 error; 3 warning\(s\)\n$/);
      const report = readFileSync(junit, 'utf8');
      assert.match(report, /<property name="breaks" value="finished-run-id"><\/property>/, report);
      assert.match(report, /failures="0"/, report);
    });

    test('verify --strict: the rule the graph breaks fails the fixture', async () => {
      const { code, stdout, stderr } = await verify('--upstream', `${agent.url}/agui/chat`, '--strict', '--format', 'json', fixtures);
      assert.equal(code, 1, stdout + stderr);
      const [result] = JSON.parse(stdout).results;
      assert.equal(result.status, 'drift', stdout);
      assert.match(result.difference, /the agent breaks rule finished-run-id .*-strict fails every break/, result.difference);
      assert.ok(result.turns.every((t) => t.breaks.includes('finished-run-id')), stdout);
    });

    describe('after the graph renamed its tool', () => {
      let changed;
      before(async () => {
        changed = await startAgent('langgraph-agent.js', { AGENT_TOOL_NAME: 'reserve_flight' });
      });
      after(() => changed?.stop());

      test('verify reports the renamed tool as drift', async () => {
        const { code, stdout, stderr } = await verify('--upstream', `${changed.url}/agui/chat`, '--format', 'json', fixtures);
        assert.equal(code, 1, stdout + stderr);
        const [result] = JSON.parse(stdout).results;
        assert.equal(result.status, 'drift', stdout);
        assert.match(result.difference, /reserve_flight[\s\S]*book_flight/, result.difference);
      });
    });
  });
}
