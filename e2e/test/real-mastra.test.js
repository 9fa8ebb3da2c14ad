// A real Mastra agent (e2e/agents/mastra-agent.js: @mastra/core on the ai package's mock
// language model) behind the official @ag-ui/mastra adapter, whose interrupts are in the
// standard dialect (RUN_FINISHED outcome "interrupt", answered by RunAgentInput.resume):
// a server tool, a frontend tool the client offers, and an approval that suspends the
// run are recorded with `agui-mock record`, replayed to the real HttpAgent, and verified
// against the live agent (pass) and against one whose server tool was renamed (drift).

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { agentsInstalled, startAgent } from './agents.js';
import { CLIENTS, Conversation } from './clients.js';
import { makeTempDir } from './harness.js';
import { assertAccepted, assertReplayed, recordedLines, shown, verify } from './realagents.js';
import { assertValid, recordings, startRecorder, startReplay } from './recording.js';

const [current] = CLIENTS;

/**
 * The conversations, each a function that holds it with url and returns it, with what
 * the user sees at its end. check asserts what each run must be.
 */
const CONVERSATIONS = {
  async 'server tool'(url, check, toolName = 'get_weather') {
    const conv = new Conversation(current, { url, speed: null });
    check(await conv.send('What is the weather in Paris?', { runId: randomUUID() }));
    assert.deepEqual(shown(conv.agent.messages), [
      { role: 'user', content: 'What is the weather in Paris?' },
      { role: 'assistant', toolCalls: [[toolName, { city: 'Paris' }]] },
      { role: 'tool', content: JSON.stringify({ city: 'Paris', temperature: 21, conditions: 'sunny' }) },
      { role: 'assistant', content: 'It is 21 degrees and sunny in Paris.' },
    ]);
    return conv;
  },

  async 'frontend tool'(url, check) {
    const conv = new Conversation(current, { url, speed: null });
    const first = await conv.send('Change the background', { runId: randomUUID(), tools: ['change_background'] });
    check(first);
    const [call, ...more] = conv.agent.messages.flatMap((m) => m.toolCalls ?? []);
    assert.equal(more.length, 0);
    assert.equal(call.function.name, 'change_background', 'the agent calls the tool the client offered');
    assert.deepEqual(JSON.parse(call.function.arguments), { color: 'blue' });
    // the app runs the tool and runs the agent again with its result
    conv.agent.messages = [...conv.agent.messages, { id: `tool-${randomUUID()}`, role: 'tool', toolCallId: call.id, content: 'changed' }];
    check(await conv.continue({ runId: randomUUID(), tools: ['change_background'] }));
    assert.deepEqual(shown(conv.agent.messages).at(-1), { role: 'assistant', content: 'Done: the background is blue now.' });
    return conv;
  },

  async interrupt(url, check) {
    const conv = new Conversation(current, { url, speed: null });
    const first = await conv.send('Book a trip to Paris', { runId: randomUUID() });
    check(first);
    assert.equal(first.finished.outcome, 'interrupt', 'the standard dialect: RUN_FINISHED says interrupt');
    const [interrupt, ...more] = first.finished.interrupts;
    assert.equal(more.length, 0);
    assert.equal(interrupt.reason, 'mastra:tool_suspend');
    assert.deepEqual(interrupt.metadata.mastra.suspendPayload, { question: 'Book the trip to Paris?' });
    assert.deepEqual(interrupt.responseSchema.required, ['approved']);
    const second = await conv.continue({
      runId: randomUUID(),
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }],
    });
    check(second);
    assert.notEqual(second.finished.outcome, 'interrupt');
    assert.deepEqual(shown(conv.agent.messages).at(-1), { role: 'assistant', content: 'Your trip to Paris is booked.' });
    return conv;
  },
};

if (agentsInstalled('a real Mastra agent')) {
  describe('a Mastra agent behind @ag-ui/mastra', () => {
    let agent;
    const fixtures = makeTempDir('agui-mock-mastra-');
    const truth = {};
    before(async () => {
      agent = await startAgent('mastra-agent.js');
    });
    after(() => agent?.stop());

    test('the agent, asked directly, holds each conversation (the ground truth)', async () => {
      for (const [name, converse] of Object.entries(CONVERSATIONS)) truth[name] = shown((await converse(agent.url, assertAccepted)).agent.messages);
    });

    test('agui-mock record records each conversation', async () => {
      const recorder = await startRecorder(agent.url, fixtures);
      try {
        for (const [name, converse] of Object.entries(CONVERSATIONS)) {
          const conv = await converse(recorder.url, assertAccepted);
          assert.deepEqual(shown(conv.agent.messages), truth[name], `${name}: through the recorder`);
        }
        const lines = await recordedLines(recorder, 5);
        assert.equal(lines.length, 5, recorder.output.join('\n'));
      } finally {
        await recorder.stop();
      }
      assert.equal(recordings(fixtures).length, 3, `recordings: ${recordings(fixtures)}`);
      await assertValid(fixtures);
      const frontend = recordings(fixtures).find((f) => f.startsWith('change-the-background'));
      assert.ok(frontend, `recordings: ${recordings(fixtures)}`);
      const examples = /^examples:\n([\s\S]*?)^\S/m.exec(readFileSync(path.join(fixtures, frontend), 'utf8'))?.[1];
      assert.match(examples ?? '', /change_background/, 'the example keeps the tool the client offered');
    });

    test('the fixtures replay each conversation to @ag-ui/client 1.0.0', async () => {
      const replay = await startReplay(fixtures);
      try {
        for (const [name, converse] of Object.entries(CONVERSATIONS)) {
          const conv = await converse(replay.url, assertReplayed);
          assert.deepEqual(shown(conv.agent.messages), truth[name], `${name}: replayed`);
        }
      } finally {
        await replay.stop();
      }
    });

    test('verify: the fixtures pass against the live agent', async () => {
      const { code, stdout, stderr } = await verify('--upstream', `${agent.url}/agui/chat`, fixtures);
      assert.equal(code, 0, stdout + stderr);
      assert.match(stdout, /3 scenario\(s\) verified: 3 pass, 0 drift, 0 error\n$/);
    });

    describe('after the agent renamed its server tool', () => {
      let changed;
      before(async () => {
        changed = await startAgent('mastra-agent.js', { AGENT_TOOL_NAME: 'lookup_weather' });
      });
      after(() => changed?.stop());

      test('verify reports the drift of that conversation alone', async () => {
        const { code, stdout, stderr } = await verify('--upstream', `${changed.url}/agui/chat`, '--format', 'json', fixtures);
        assert.equal(code, 1, stdout + stderr);
        const results = JSON.parse(stdout).results;
        const byScenario = Object.fromEntries(results.map((r) => [r.scenario.replace(/-[0-9a-f]{8}$/, ''), r.status]));
        assert.deepEqual(
          byScenario,
          { 'rec-what-is-the-weather-in-paris': 'drift', 'rec-change-the-background': 'pass', 'rec-book-a-trip-to-paris': 'pass' },
          stdout,
        );
        const drift = results.find((r) => r.status === 'drift');
        assert.equal(drift.difference, 'example 1, turn 1: the agent now sends TOOL_CALL_START lookup_weather where the fixture has TOOL_CALL_START get_weather');
      });
    });
  });
}
