// CopilotKit's BuiltInAgent (e2e/agents/builtin-agent.js: @copilotkit/runtime's v2
// agent running the ai package's mock language model, scripted) served as AG-UI: a plain
// answer, a server tool it runs between two model steps, follow-up turns on the same
// thread (the model is given the whole conversation), a run with no new user message,
// and a run the user stops before
// saying something else are recorded with `agui-mock record`, replayed to the real
// HttpAgent from the recorded directory served with the built-in scenarios, and verified
// against the live agent (pass) and against one whose tool was renamed (drift).
//
// The agent's RUN_FINISHED carries a finishReason, which @ag-ui/client 1.0.0 removes with
// a warning: every finished run, live or replayed, warns of it once and of nothing else.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describeRecordedAgent, GREETING, scriptedConversations } from './agentsuite.js';
import { CLIENTS, Conversation } from './clients.js';
import { shown } from './realagents.js';

const [current] = CLIENTS;

/** The conversation only this agent holds, besides the scripted ones. */
const BUILTIN_CONVERSATIONS = {
  // The app runs the agent again with no new user message: the run's request ends with
  // the agent's own answer, and its last user message is the first run's.
  async 'a run with no new user message'(url, check) {
    const conv = new Conversation(current, { url, speed: null });
    const runs = [await conv.send('Good evening', { runId: randomUUID() })];
    runs.push(await conv.continue({ runId: randomUUID() }));
    runs.forEach(check);
    assert.deepEqual(shown(conv.agent.messages), [
      { role: 'user', content: 'Good evening' },
      { role: 'assistant', content: GREETING },
      { role: 'assistant', content: 'Is there anything else?' },
    ]);
    return { conv, runs };
  },
};

/** The warning @ag-ui/client 1.0.0 writes for the finishReason of the agent's RUN_FINISHED. */
const FINISH_REASON_WARNING = /^\[ag-ui\]\[enforce\] Removed unrecognised material at '\/finishReason' on RUN_FINISHED\./;

/** check, for a run whose client warned of the RUN_FINISHED's finishReason once and of nothing else. */
const warnedOfFinishReason = (check) => (run) => {
  assert.deepEqual(run.consoleCalls.map((c) => c.level), ['warn'], `the client wrote ${JSON.stringify(run.consoleCalls)}`);
  assert.match(String(run.consoleCalls[0].args[0]), FINISH_REASON_WARNING);
  check({ ...run, consoleCalls: [] });
};

describeRecordedAgent({
  label: "CopilotKit's BuiltInAgent",
  title: "CopilotKit's BuiltInAgent on a scripted model",
  script: 'builtin-agent.js',
  tempPrefix: 'agui-mock-builtin-',
  conversations: {
    ...scriptedConversations((toolName, weather) => [
      { role: 'assistant', toolCalls: [[toolName, { city: 'Paris' }]] },
      { role: 'tool', content: weather },
      { role: 'assistant', content: 'It is 21 degrees and sunny in Paris.' },
    ]),
    ...BUILTIN_CONVERSATIONS,
  },
  recordedRuns: 9,
  check: warnedOfFinishReason,
  finishedWarnings: (warnings) => assert.deepEqual(warnings.map((w) => FINISH_REASON_WARNING.test(w)), [true], `the client wrote ${warnings}`),
});
