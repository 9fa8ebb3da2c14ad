// The CopilotKit path end to end: the client a CopilotKit app runs (@copilotkit/core)
// talks to a CopilotKit runtime (@copilotkit/runtime, v2 endpoints) whose agent is an AG-UI
// HttpAgent pointed at agui-mock. Each flow asserts what the user would see: the
// conversation's messages, the interrupt as the app is given it, and the answer after it
// is resumed. The runtime's HttpAgent is of the 0.0.x line, which knows no subagents:
// a scenario with subagents reaches the app as the conversation without them. Interrupt answers are built by the core's own interrupt state, which
// CopilotKit's useInterrupt drives in an app, in both dialects.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { ɵInterruptState as InterruptState } from '@copilotkit/core';
import { agentOf, CopilotKitCore, startRuntime } from './copilotkit.js';
import { adminOK, journalEntries, newTestId, TEST_ID_HEADER } from './admin.js';
import { MIXED_DIALECTS, SUBAGENT_SCENARIOS } from './fixtures.js';
import { REPO_ROOT, useServer, writeTempFiles } from './harness.js';

const GREETING = 'id: greeting\nmatch: {message: ^Hello}\nsteps: [{text: Hello from the mock.}]\n';
// what a CopilotKit app sends besides its messages: useCopilotReadable's context and the
// app's instructions as a system message; the run reports its token usage
const CONCIERGE = `\
id: concierge
match:
  message: ^Where
  system: (?i)hotel concierge
  context: [{description: "(?i)room number", value: ^\\d+$}]
usage: {provider: openai, model: gpt-4o, inputTokens: 900, outputTokens: 12, totalTokens: 912}
steps: [{text: "Breakfast is served on floor 2, room {{ (index .context 0).value }}."}]
`;
const A2UI = readFileSync(path.join(REPO_ROOT, 'examples', 'a2ui-surface.yaml'), 'utf8');
const mock = useServer(['--scenarios', writeTempFiles({ 'mixed.yaml': MIXED_DIALECTS, 'greeting.yaml': GREETING, 'concierge.yaml': CONCIERGE, 'a2ui.yaml': A2UI, ...SUBAGENT_SCENARIOS })]);

const FIRST_MESSAGE = 'Search for ocean wave videos and trim the first 10 seconds';
const FIRST_PROPS = { approval_mode: 'level:low', scenario_name: 'media_management' };
const CLOSING = `That's everything for "Ocean waves at dawn". Anything else?`;

// The runtimes start with the first app that needs each, once the mock's before hook has
// given its URL: a plain one, and one that applies the A2UI middleware (a2ui: {}).
const runtimes = {};
after(() => Promise.all(Object.values(runtimes).map((r) => r.close())));


/**
 * A CopilotKit app's client with the runtime's default agent on a new thread: what the
 * app shows is the agent's messages, and the interrupt its useInterrupt would render.
 */
async function app({ headers, a2ui = false } = {}) {
  const kind = a2ui ? 'a2ui' : 'plain';
  runtimes[kind] ??= await startRuntime(mock.url, undefined, a2ui ? { a2ui: {} } : {});
  const core = new CopilotKitCore({ runtimeUrl: runtimes[kind].url, headers });
  const agent = await agentOf(core);
  agent.threadId = `ck-${randomUUID()}`;
  const seen = { interrupts: new InterruptState(), outcomes: [], errors: [] };
  agent.subscribe({
    onCustomEvent: ({ event }) => {
      if (event.name === 'on_interrupt') seen.interrupts.setLegacy(event);
    },
    onRunFinishedEvent: ({ event, outcome, interrupts }) => {
      seen.lastRunId = event.runId;
      seen.usage = event.usage;
      seen.outcomes.push(outcome);
      if (outcome === 'interrupt') seen.interrupts.setStandard(interrupts);
    },
    onRunFailed: ({ error }) => seen.errors.push(error),
  });
  return {
    core,
    agent,
    seen,
    async say(content, forwardedProps) {
      agent.addMessage({ id: `user-${randomUUID()}`, role: 'user', content });
      await core.runAgent({ agent, forwardedProps });
    },
    /**
     * Runs the resume the interrupt state built, as useInterrupt does: on the run that
     * raised the interrupt (its runId), with a tool message answering each tool-bound
     * interrupt's call besides the standard resume.
     */
    async resume(action) {
      seen.interrupts.clear();
      const runId = seen.lastRunId;
      if (action.kind === 'legacy-resume') {
        await core.runAgent({ agent, runId, forwardedProps: { command: { resume: action.payload, interruptEvent: action.interruptValue } } });
        return;
      }
      assert.equal(action.kind, 'resume', `the interrupt state answered ${JSON.stringify(action)}`);
      for (const { toolCallId, content } of action.toolResults) agent.addMessage({ id: randomUUID(), role: 'tool', toolCallId, content });
      await core.runAgent({ agent, runId, resume: action.resume });
    },
    /** The texts of the assistant's messages, as the chat shows them. */
    texts() {
      return agent.messages.filter((m) => m.role === 'assistant' && m.content).map((m) => m.content);
    },
  };
}

test('a plain run without interrupts', async () => {
  const { say, texts, seen } = await app();
  await say('Hello!');
  assert.deepEqual(seen.errors, []);
  assert.deepEqual(seen.outcomes, ['success']);
  assert.deepEqual(texts(), ['Hello from the mock.']);
});

test("the app's X-Test-Id reaches the mock through the runtime, so tests steer it per test", async () => {
  const testId = newTestId('copilotkit');
  await adminOK(mock, 'POST', '/force', { testId, body: { scenario: 'greeting' } });
  const { say, texts, seen } = await app({ headers: { [TEST_ID_HEADER]: testId } });
  await say('Search for ocean wave videos', FIRST_PROPS);
  assert.deepEqual(seen.errors, []);
  assert.deepEqual(texts(), ['Hello from the mock.'], 'the forced scenario played');
});

describe('standard interrupts (media-management, two interrupts)', () => {
  for (const variant of [
    {
      name: 'all resolved',
      answer: (state, [trim, watermark]) => (state.resolve(undefined, trim.id), state.resolve(undefined, watermark.id)),
      texts: ['Trimmed the first 10 seconds.', 'Added the watermark.'],
    },
    {
      name: 'mixed: one resolved, one cancelled',
      answer: (state, [trim, watermark]) => (state.resolve(undefined, trim.id), state.cancel(watermark.id)),
      texts: ['Trimmed the first 10 seconds.', /^No watermark/],
    },
  ]) {
    test(variant.name, async () => {
      const { agent, say, resume, texts, seen } = await app();
      await say(FIRST_MESSAGE, FIRST_PROPS);
      assert.deepEqual(seen.errors, []);
      assert.deepEqual(seen.outcomes, ['interrupt']);
      const pending = seen.interrupts.pending;
      assert.equal(pending.kind, 'standard');
      assert.deepEqual(pending.interrupts.map((i) => [i.id, i.reason]), [
        ['interruptId-001', 'tool_call'],
        ['interruptId-002', 'tool_call'],
      ]);
      assert.match(pending.interrupts[0].message, /^Trim the first 10 seconds/);
      const before = texts().length;

      await resume(variant.answer(seen.interrupts, pending.interrupts));
      assert.deepEqual(seen.errors, []);
      assert.deepEqual(seen.outcomes, ['interrupt', 'success']);
      const after = texts().slice(before);
      assert.equal(after.length, 3, `the answers and the closing: ${after}`);
      variant.texts.forEach((want, i) => (typeof want === 'string' ? assert.equal(after[i], want) : assert.match(after[i], want)));
      assert.equal(after[2], CLOSING);
      // one result per tool call: the app's answer to each approval, none twice
      const results = agent.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId);
      assert.deepEqual(results, [...new Set(results)]);
      assert.ok(pending.interrupts.every((i) => results.includes(i.toolCallId)));
    });
  }
});

test('a LangGraph-dialect interrupt, resumed through forwardedProps.command', async () => {
  const { say, resume, texts, seen } = await app();
  await say('publish');
  assert.deepEqual(seen.errors, []);
  assert.deepEqual(seen.outcomes, ['success'], 'the run finishes normally');
  const pending = seen.interrupts.pending;
  assert.equal(pending.kind, 'legacy', 'the app is given an on_interrupt event');
  const value = JSON.parse(pending.event.value);
  assert.equal(value.message, 'Publish the post?');
  assert.deepEqual(value.metadata, { draft: 'post-7' });
  assert.deepEqual(texts(), ['The draft is ready.']);

  await resume(seen.interrupts.resolve(JSON.stringify({ approved: true, title: 'Ocean waves' })));
  assert.deepEqual(seen.errors, []);
  assert.deepEqual(texts(), ['The draft is ready.', 'Published Ocean waves.', 'Anything else?']);
});

test("the app's context and instructions choose the scenario, and the run's usage reaches the app", async () => {
  const { core, agent, say, texts, seen } = await app();
  core.addContext({ description: 'The guest room number', value: '412' });
  agent.addMessage({ id: `system-${randomUUID()}`, role: 'system', content: 'You are a hotel concierge.' });
  await say('Where is breakfast?');
  assert.deepEqual(seen.errors, []);
  assert.deepEqual(texts(), ['Breakfast is served on floor 2, room 412.']);
  assert.deepEqual(seen.usage, [{ provider: 'openai', model: 'gpt-4o', inputTokens: 900, outputTokens: 12, totalTokens: 912 }]);
});

test('an A2UI surface through the runtime, and the action the app sends back choosing the next scenario', async () => {
  const { agent, say, texts, seen, core } = await app({ a2ui: true });
  await say('Book a table for two tonight');
  assert.deepEqual(seen.errors, []);
  const surfaces = () => agent.messages.filter((m) => m.role === 'activity' && m.activityType === 'a2ui-surface');
  assert.equal(surfaces().length, 1, JSON.stringify(agent.messages));
  assert.ok(surfaces()[0].content.a2ui_operations.some((op) => op.createSurface?.surfaceId === 'booking'));

  // what CopilotKit's A2UI renderer sends when the user presses Confirm
  const userAction = { name: 'confirm_booking', surfaceId: 'booking', sourceComponentId: 'confirm', context: { time: '19:30' } };
  await core.runAgent({ agent, forwardedProps: { a2uiAction: { userAction } } });
  assert.deepEqual(seen.errors, []);
  assert.equal(texts().at(-1), 'Booked for 19:30.');
  assert.equal(surfaces().length, 2, 'the confirmation updates the surface');
  // the runtime's A2UI middleware told the agent what the user did, as a logged tool call
  const [entry] = (await journalEntries(mock, { scenario: 'a2ui-booking-confirmed' })).filter((e) => e.threadId === agent.threadId);
  const tool = entry.request.messages.findLast((m) => m.role === 'tool');
  assert.match(tool.content, /^User performed action "confirm_booking" on surface "booking" \(component: confirm\)/);
});

describe('subagents (the examples of docs/scenarios.md)', () => {
  test('a delegation to nested subagents, one failing, shows as the conversation without errors', async () => {
    const { say, texts, seen } = await app();
    await say('Plan a trip');
    assert.deepEqual(seen.errors, []);
    assert.deepEqual(seen.outcomes, ['success']);
    assert.deepEqual(texts(), ['Let me ask my team.', 'Two flights to Lisbon on Friday.', 'The booking failed: try another card.']);
  });

  test('an interrupt inside a subagent reaches the app and resumes', async () => {
    const { say, resume, texts, seen } = await app();
    await say('Pay the hotel');
    assert.deepEqual(seen.errors, []);
    assert.deepEqual(seen.outcomes, ['interrupt']);
    const [interrupt] = seen.interrupts.pending.interrupts;
    assert.equal(interrupt.message, 'Pay 10 EUR?');
    await resume(seen.interrupts.resolve(undefined, interrupt.id));
    assert.deepEqual(seen.errors, []);
    assert.deepEqual(seen.outcomes, ['interrupt', 'success']);
    assert.deepEqual(texts(), ['Paid.', 'Receipt sent.', 'Done.']);
  });
});
