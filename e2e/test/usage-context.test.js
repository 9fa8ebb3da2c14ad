// Token usage on RUN_FINISHED and RUN_ERROR, as written in a scenario, estimated from the
// run (usage: auto, --usage) or left out (usage: none), over SSE and protobuf; and
// scenarios chosen by the request's context and its latest system or developer message,
// with the reasons a near miss gives. Through both @ag-ui/client versions.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CLIENTS, Conversation, assertCleanRun, eventsOf } from './clients.js';
import { journalEntry } from './admin.js';
import { useServer, writeTempFiles } from './harness.js';

const OPENAI = { provider: 'openai', model: 'gpt-4o', inputTokens: 1200, outputTokens: 80, totalTokens: 1280, cachedInputTokens: 1024 };
const ANTHROPIC = { provider: 'anthropic', model: 'claude-sonnet-4', inputTokens: 300, outputTokens: 40, cacheWriteInputTokens: 200 };

const SCENARIOS = `\
id: usage-written
match: {message: ^usage written}
usage:
  - {provider: openai, model: gpt-4o, inputTokens: 1200, outputTokens: 80, totalTokens: 1280, cachedInputTokens: 1024}
  - {provider: anthropic, model: claude-sonnet-4, inputTokens: 300, outputTokens: 40, cacheWriteInputTokens: 200}
steps: [{text: Counted.}]
---
id: usage-failed
match: {message: ^usage failed}
usage: {provider: openai, model: gpt-4o, inputTokens: 50}
steps: [{text: Trying., delay: 0}, {error: {message: quota exceeded, code: "429"}}]
---
id: usage-estimated
match: {message: ^usage estimated}
usage: auto
steps: [{reasoning: Let me think about it.}, {text: Here is a fairly long answer to count.}]
---
id: usage-none
match: {message: ^usage none}
usage: none
steps: [{text: Not counted.}]
---
id: travel-desk
match:
  system: (?i)travel assistant
  context:
    - {description: "(?i)locale", value: ^de}
    - {description: "(?i)loyalty", value: gold|platinum}
steps: [{text: "Guten Tag, {{ (index .context 1).value }} member."}]
`;

const dir = writeTempFiles({ 'usage-context.yaml': SCENARIOS });
const mock = useServer(['--scenarios', dir]);

/** The usage of a run's terminal event. */
const usageOf = (run) => run.events.at(-1).usage;

/** What a 0.0.x client gets of an entry: every member but cacheWriteInputTokens. */
const legacyEntry = ({ cacheWriteInputTokens, ...rest }) => rest;

for (const client of CLIENTS) {
  const legacy = client.protocolVersion === undefined;

  describe(`token usage, ${client.label}`, () => {
    for (const transport of legacy ? ['sse'] : ['sse', 'proto']) {
      test(`the scenario's entries on RUN_FINISHED (${transport})`, async () => {
        const run = await new Conversation(client, { url: mock.url, transport }).send('usage written');
        assertCleanRun(run);
        const want = [OPENAI, ANTHROPIC];
        assert.deepEqual(usageOf(run), legacy ? want.map(legacyEntry) : want);
      });
    }

    test('the entries on RUN_ERROR', async () => {
      const run = await new Conversation(client, { url: mock.url }).send('usage failed');
      const [failed] = eventsOf(run, 'RUN_ERROR');
      assert.equal(failed.message, 'quota exceeded');
      assert.deepEqual(failed.usage, [{ provider: 'openai', model: 'gpt-4o', inputTokens: 50 }]);
    });

    test('usage: auto estimates it from the request and the stream, the same for the same conversation', async () => {
      const runs = [];
      for (let i = 0; i < 2; i++) runs.push(await new Conversation(client, { url: mock.url }).send('usage estimated'));
      runs.forEach((run) => assertCleanRun(run));
      const [entry] = usageOf(runs[0]);
      assert.deepEqual(usageOf(runs[1]), [entry], 'a conversation played again reports the same usage');
      assert.equal(entry.provider, 'agui-mock');
      assert.equal(entry.totalTokens, entry.inputTokens + entry.outputTokens);
      assert.ok(entry.reasoningTokens > 0 && entry.reasoningTokens < entry.outputTokens, JSON.stringify(entry));
      const longer = await new Conversation(client, { url: mock.url }).send(`usage estimated ${'with many more words '.repeat(20)}`);
      assert.ok(usageOf(longer)[0].inputTokens > entry.inputTokens, 'a longer prompt counts more input');
    });

    test('without usage, none is sent', async () => {
      const run = await new Conversation(client, { url: mock.url }).send('usage none');
      assertCleanRun(run);
      assert.equal(usageOf(run), undefined);
    });
  });

  describe(`matching on the system message and the context, ${client.label}`, () => {
    const context = [
      { description: 'The user locale', value: 'de-DE' },
      { description: 'Loyalty tier', value: 'gold' },
    ];
    const conversation = (system) => {
      const conv = new Conversation(client, { url: mock.url });
      conv.agent.messages = [{ id: 'sys', role: 'system', content: system }];
      return conv;
    };

    test('the latest system message and every context pattern hold', async () => {
      const run = await conversation('You are a Travel Assistant.').send('Hello', { context });
      assertCleanRun(run);
      assert.equal(run.events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta).join(''), 'Guten Tag, gold member.');
    });

    test('a near miss says which pattern no context item matched', async () => {
      const run = await conversation('You are a travel assistant.').send('Hello', { context: [context[0], { description: 'Loyalty tier', value: 'silver' }] });
      assertCleanRun(run);
      const entry = await journalEntry(mock, (e) => e.runId === run.runId);
      assert.equal(entry.scenario, 'catch-all');
      const miss = entry.nearMisses.find((m) => m.id === 'travel-desk');
      assert.deepEqual(miss.reasons, ['no context item matches {description /(?i)loyalty/, value /gold|platinum/} (the request has 2: "The user locale", "Loyalty tier")']);
    });

    test('a near miss quotes the system message it read', async () => {
      const run = await conversation('You are a coding assistant.').send('Hello', { context });
      const entry = await journalEntry(mock, (e) => e.runId === run.runId);
      const miss = entry.nearMisses.find((m) => m.id === 'travel-desk');
      assert.deepEqual(miss.reasons, ['system message "You are a coding assistant." does not match /(?i)travel assistant/']);
    });
  });
}

describe('--usage', () => {
  const estimating = useServer(['--usage', '--scenarios', dir]);

  test('estimates the usage of the scenarios of steps that say nothing of it, and keeps usage: none', async () => {
    const [client] = CLIENTS;
    const greeting = await new Conversation(client, { url: estimating.url }).send('Hello there');
    assertCleanRun(greeting);
    const [entry] = usageOf(greeting);
    assert.equal(entry.model, 'agui-mock-estimate');
    assert.equal(entry.totalTokens, entry.inputTokens + entry.outputTokens);
    assert.equal(usageOf(await new Conversation(client, { url: estimating.url }).send('usage none')), undefined);
    const written = await new Conversation(client, { url: estimating.url }).send('usage written');
    assert.deepEqual(usageOf(written), [OPENAI, ANTHROPIC], "the scenario's own entries win");
  });
});
