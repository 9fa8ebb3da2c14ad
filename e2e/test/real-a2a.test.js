// A real A2A agent (e2e/agents/a2a-agent.js: the @a2a-js/sdk server with a scripted
// executor) behind the official @ag-ui/a2a adapter, which streams the A2A task's status
// updates as AG-UI text and its tool-call and tool-result parts as tool events: a plain
// answer, a tool call, follow-up turns on the same thread (the A2A agent keeps the
// conversation of its context itself) and a run the user stops before saying something
// else are recorded with `agui-mock record`, replayed to the real HttpAgent from the
// recorded directory served with the built-in scenarios, and verified against the live
// agent (pass) and against one whose tool was renamed (drift).

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describeRecordedAgent } from './agentsuite.js';
import { CLIENTS, Conversation } from './clients.js';
import { shown } from './realagents.js';

const [current] = CLIENTS;
const GREETING = 'Hello! Ask me about the weather, or for a story.';
const WEATHER = { city: 'Paris', temperature: 21, conditions: 'sunny' };

/**
 * The conversations, each a function that holds it with url and resolves with its
 * conversation and runs, asserting what the user sees at its end. check asserts what
 * each run must be. Two of them ask the same follow-up question after different first
 * turns, and are answered from their own thread.
 */
const CONVERSATIONS = {
  async 'plain text'(url, check) {
    const conv = new Conversation(current, { url, speed: null });
    const runs = [await conv.send('Hello', { runId: randomUUID() })];
    runs.forEach(check);
    assert.deepEqual(shown(conv.agent.messages), [
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: GREETING },
    ]);
    return { conv, runs };
  },

  async 'tool call, then a follow-up'(url, check, toolName = 'get_weather') {
    const conv = new Conversation(current, { url, speed: null });
    const runs = [await conv.send('What is the weather in Paris?', { runId: randomUUID() })];
    runs.push(await conv.send('What did I say?', { runId: randomUUID() }));
    runs.forEach(check);
    // The adapter puts a task's status messages under one message id: the tool call and
    // the answer after its result are one assistant message.
    assert.deepEqual(shown(conv.agent.messages), [
      { role: 'user', content: 'What is the weather in Paris?' },
      { role: 'assistant', content: 'It is 21 degrees and sunny in Paris.', toolCalls: [[toolName, { city: 'Paris' }]] },
      { role: 'tool', content: JSON.stringify(WEATHER) },
      { role: 'user', content: 'What did I say?' },
      { role: 'assistant', content: 'You said: "What is the weather in Paris?".' },
    ]);
    return { conv, runs };
  },

  async 'follow-up'(url, check) {
    const conv = new Conversation(current, { url, speed: null });
    const runs = [await conv.send('Good morning', { runId: randomUUID() })];
    runs.push(await conv.send('What did I say?', { runId: randomUUID() }));
    runs.forEach(check);
    assert.deepEqual(shown(conv.agent.messages), [
      { role: 'user', content: 'Good morning' },
      { role: 'assistant', content: GREETING },
      { role: 'user', content: 'What did I say?' },
      { role: 'assistant', content: 'You said: "Good morning".' },
    ]);
    return { conv, runs };
  },
};

describeRecordedAgent({
  label: 'a real A2A agent',
  title: 'an A2A agent behind @ag-ui/a2a',
  script: 'a2a-agent.js',
  tempPrefix: 'agui-mock-a2a-',
  conversations: CONVERSATIONS,
  greeting: GREETING,
  recordedRuns: 7,
});
