// A real LangGraph JS graph (e2e/agents/langgraph-graph.mjs: FakeListChatModel, an
// interrupt() approval and a tool call) on the in-memory LangGraph API server, behind the
// official @ag-ui/langgraph adapter: both branches of its approval are recorded with
// `agui-mock record`, replayed to the real HttpAgent and through the CopilotKit runtime,
// and verified against the live graph (pass) and against a graph whose tool was renamed
// (drift).

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

/** Holds one conversation of the branch with url (an agent, a recorder or a replay). */
async function converse(url, branch, check = assertAccepted) {
  const conv = new Conversation(current, { url, speed: null });
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
        assert.ok(lines.every((line) => line.includes('complete')), lines.join('\n'));
      } finally {
        await recorder.stop();
      }
      assert.equal(recordings(fixtures).length, 1, `recordings: ${recordings(fixtures)}`);
      await assertValid(fixtures);
      const text = readFileSync(path.join(fixtures, recordings(fixtures)[0]), 'utf8');
      assert.match(text, /^dialect: langgraph$/m);
      assert.doesNotMatch(text, /runId: '?[0-9a-f]{8}-/, "no literal run id: LangGraph's own is templated");
    });

    test('the fixture replays both branches to @ag-ui/client 1.0.0, with the client\'s own messages', async () => {
      const replay = await startReplay(fixtures);
      try {
        for (const branch of BRANCHES) {
          const { conv, first, second } = await converse(replay.url, branch, assertReplayed);
          assert.deepEqual(shown(conv.agent.messages), conversation(branch), `${branch.name}: replayed`);
          const user = conv.agent.messages.filter((m) => m.role === 'user');
          assert.deepEqual(user.map((m) => m.id), [first.userMessage.id], "the snapshot keeps the client's message and its id");
          assert.equal(first.events.find((e) => e.type === 'RUN_STARTED').protocolVersion, undefined, 'the agent declared no version');
          assert.equal(second.events.at(-1).runId, second.runId);
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

    test('verify: the fixture passes against the live graph', async () => {
      const { code, stdout, stderr } = await verify('--upstream', `${agent.url}/agui/chat`, fixtures);
      assert.equal(code, 0, stdout + stderr);
      assert.match(stdout, /1 scenario\(s\) verified: 1 pass, 0 drift, 0 error\n$/);
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
