// The CopilotKit runtime's routes served by the mock itself (--copilotkit-path, /copilotkit
// by default): a CopilotKit app's client (@copilotkit/core 1.75) with its runtimeUrl on
// the mock, and no runtime in between. What the app sees is checked with the real client:
// a conversation, threads seeded through POST /_mock/threads and restored by the core's
// connectAgent (finished, several runs, an earlier RUN_ERROR, pending interrupts in both
// dialects, a pending frontend tool call, each answered and continued), the handshake's
// faults, the moved and removed routes, the origins that may call them, and seeds that
// break the protocol's rules. Where the mock stands in for the runtime's own behaviour —
// what connect replays, how a stopped run ends, what the single endpoint and the error
// answers say — a real @copilotkit/runtime 1.75 (in-memory runner, its HttpAgent playing
// the same scenarios from the mock's /agui/chat; mounted with its REST routes, and in
// single-route mode) answers the same requests, and the two must agree.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { CopilotKitCore, startRuntime } from './copilotkit.js';
import { admin, adminOK, journalEntries, journalEntry, newTestId, openRun, TEST_ID_HEADER } from './admin.js';
import { SPEED_HEADER } from './clients.js';
import { MIXED_DIALECTS } from './fixtures.js';
import { startServer, useServer, writeTempFiles } from './harness.js';
import { ckApp, connectInput, ending, getJSON, masked, postRaw, restoredView, runtimeCalls, settled, startSingleRouteRuntime, unlistedAgent, until } from './runtimeroutes.js';

const SCENARIOS = `\
id: researcher-notes
match: {agent: researcher}
steps: [{text: "Researcher here: {{ .message }}"}]
---
id: greeting
match: {message: ^Hello}
steps: [{text: Hello from the mock.}]
---
id: stateful
match: {message: ^stateful}
steps:
  - state: {count: 1, beaches: [north]}
  - text: Counting the waves.
  - stateDelta: [{op: replace, path: /count, value: 2}]
  - tool: {name: count_waves, args: {beach: north}, result: {waves: 2}}
  - text: There are 2 waves.
---
id: ask-format
match: {message: ^make me a}
steps:
  - text: One question first.
  - tool:
      name: pick_format
      args: {choices: [MP4, GIF]}
      on:
        - content: GIF
          steps: [{text: A GIF it is.}]
        - steps: [{text: "{{ .answer.content }} it is."}]
  - text: Rendering has started.
---
id: stoppable
match: {message: ^stoppable}
steps:
  - text: One two three four.
  - tool: {name: lookup, args: {query: ocean waves}, result: {found: 1}}
  - text: Nobody reads this.
`;

const mock = useServer(['--scenarios', writeTempFiles({ 'runtime.yaml': SCENARIOS, 'mixed.yaml': MIXED_DIALECTS })]);
/** The mock's runtime routes, as an app's runtimeUrl names them. */
const base = () => `${mock.url}/copilotkit`;

// A real runtime (in-memory runner, SSE), whose HttpAgent plays the mock's /agui/chat,
// started by the first test that needs it, once the mock's before hook has given its URL.
// The same runtime mounted in single-route mode answers the single endpoint's envelopes.
let runtimeStarted, singleRouteStarted;
const realRuntime = () => (runtimeStarted ??= startRuntime(mock.url));
const realSingleRoute = () => (singleRouteStarted ??= startSingleRouteRuntime(mock.url));
after(async () => Promise.all([(await runtimeStarted)?.close(), (await singleRouteStarted)?.close()]));

const MEDIA_MESSAGE = 'Search for ocean wave videos and trim the first 10 seconds';
const MEDIA_PROPS = { scenario_name: 'media_management' };
const CLOSING = `That's everything for "Ocean waves at dawn". Anything else?`;

/** A tool's parameters as a Standard JSON Schema (what zod and valibot schemas provide), for the core to offer them. */
function standardSchema(jsonSchema) {
  return { '~standard': { version: 1, vendor: 'agui-mock-e2e', validate: (value) => ({ value }), jsonSchema: { input: () => jsonSchema } } };
}

/** The parameters of the clarify tool. */
const CLARIFY_PARAMETERS = standardSchema({
  type: 'object',
  properties: { question: { type: 'string' }, choices: { type: 'array', items: { type: 'string' } } },
  required: ['question'],
});

/** The parameters of the pick_format tool. */
const PICK_FORMAT_PARAMETERS = standardSchema({ type: 'object', properties: { choices: { type: 'array', items: { type: 'string' } } } });

/** A fresh thread id of a test. */
const newThread = (label) => `${label}-${randomUUID()}`;

describe('an app whose runtimeUrl is the mock', () => {
  test('finds the agents in /info and plays a conversation; a run after the first carries only its new messages in RUN_STARTED', async () => {
    const info = await getJSON(`${base()}/info`);
    assert.equal(info.status, 200);
    assert.equal(info.body.version, '1.75.0');
    assert.equal(info.body.mode, 'sse');
    assert.deepEqual(Object.keys(info.body.agents).sort(), ['default', 'researcher'], 'default and every agent a scenario names');
    assert.deepEqual(info.body.threadEndpoints, { list: true, inspect: true, mutations: false, realtimeMetadata: false });

    const testId = newTestId('ck-conversation');
    const app = await ckApp(base(), { testId, threadId: newThread('conversation') });
    assert.equal(app.core.runtimeTransport, 'rest', 'GET /info answered, so the core uses the REST routes');
    assert.ok(app.core.getAgent('researcher'), 'the core knows the researcher agent too');

    await app.say('Hello!');
    await app.say('stateful please');
    assert.deepEqual(app.errors, []);
    assert.deepEqual(app.texts(), ['Hello from the mock.', 'Counting the waves.', 'There are 2 waves.']);
    assert.deepEqual(app.agent.state, { count: 2, beaches: ['north'] });
    const tool = app.agent.messages.find((m) => m.role === 'tool');
    assert.deepEqual(JSON.parse(tool.content), { waves: 2 });

    const started = app.events.filter((e) => e.type === 'RUN_STARTED');
    assert.equal(started.length, 2);
    const users = app.agent.messages.filter((m) => m.role === 'user').map((m) => m.id);
    assert.deepEqual(started.map((e) => e.input?.messages?.map((m) => m.id)), [[users[0]], [users[1]]], 'each RUN_STARTED input holds the messages the thread did not hold');

    const runs = (await journalEntries(mock, {}, testId)).filter((e) => e.path === '/copilotkit/agent/default/run');
    assert.deepEqual(runs.map((e) => [e.scenario, e.status]).sort(), [['greeting', 200], ['stateful', 200]]);
  });

  test('the run route streams what the runtime streams: the same events, RUN_STARTED with its input, in SSE frames without id lines', async () => {
    const threadId = newThread('frames');
    const input = { ...connectInput(threadId), runId: `run-${randomUUID()}`, messages: [{ id: `u-${randomUUID()}`, role: 'user', content: 'Hello?' }] };
    const [mocked, real] = await Promise.all([
      postRaw(`${base()}/agent/default/run`, input, { [SPEED_HEADER]: '0' }),
      postRaw(`${(await realRuntime()).url}/agent/default/run`, { ...input, threadId: newThread('frames') }),
    ]);
    assert.equal(mocked.status, 200);
    assert.deepEqual(new Set(mocked.fields.flat()), new Set(['data']));
    assert.deepEqual(new Set(real.fields.flat()), new Set(['data']), 'the real runtime writes data lines alone');
    const wire = (events) => masked(events.map(({ timestamp, ...event }) => event));
    assert.deepEqual(wire(mocked.events), wire(real.events), 'the same events, RUN_STARTED with its input as the runtime adds it');
    assert.deepEqual(mocked.events[0].input.messages, input.messages);
  });

  test("GET /info answers as the runtime's, for a test whose runtime has the runtime's one agent", async () => {
    const testId = newTestId('info');
    await adminOK(mock, 'POST', '/copilotkit/info', { testId, body: { agents: ['default'] } });
    const answers = [];
    for (const url of [(await realRuntime()).url, base()]) {
      const { status, body } = await getJSON(`${url}/info`, { [TEST_ID_HEADER]: testId });
      delete body.agents.default.className; // the agent's class as the runtime's JavaScript names it (a bundler's minified name)
      answers.push({ status, body });
    }
    assert.deepEqual(answers[1], answers[0]);
  });

  test("a scenario of another agent answers that agent's runs", async () => {
    const app = await ckApp(base(), { agentId: 'researcher', threadId: newThread('researcher') });
    await app.say('Find papers on waves');
    assert.deepEqual(app.errors, []);
    assert.deepEqual(app.texts(), ['Researcher here: Find papers on waves']);
    const threads = await getJSON(`${base()}/threads?agentId=researcher`);
    assert.ok(threads.body.threads.some((t) => t.id === app.agent.threadId && t.agentId === 'researcher'));
  });

  test("POST /_mock/copilotkit/info shapes the test's agents; DELETE undoes it", async () => {
    const testId = newTestId('ck-info');
    const shaped = await adminOK(mock, 'POST', '/copilotkit/info', { testId, body: { agents: { default: { description: 'Plans trips' }, helper: {} } } });
    assert.deepEqual(Object.keys(shaped.agents).sort(), ['default', 'helper']);
    const app = await ckApp(base(), { testId, threadId: newThread('shaped') });
    assert.equal(app.agent.description, 'Plans trips');
    assert.ok(app.core.getAgent('helper'));
    assert.equal(app.core.getAgent('researcher'), undefined, 'the shaping replaces the agents');
    const run = await postRaw(`${base()}/agent/researcher/run`, { ...connectInput(newThread('x')), messages: [{ id: 'u', role: 'user', content: 'hi' }] }, { [TEST_ID_HEADER]: testId });
    assert.deepEqual([run.status, run.body], [404, { error: 'Agent not found', message: "Agent 'researcher' does not exist" }]);

    await adminOK(mock, 'DELETE', '/copilotkit/info', { testId }, 204);
    const info = await getJSON(`${base()}/info`, { [TEST_ID_HEADER]: testId });
    assert.deepEqual(Object.keys(info.body.agents).sort(), ['default', 'researcher']);
  });

  test("the thread routes list and show the test's threads; clear forgets them", async () => {
    const testId = newTestId('ck-threads');
    const app = await ckApp(base(), { testId, threadId: newThread('listed') });
    await app.say('stateful please');
    const headers = { [TEST_ID_HEADER]: testId };
    const list = await getJSON(`${base()}/threads?agentId=default`, headers);
    assert.equal(list.status, 200);
    assert.equal(list.body.nextCursor, null);
    assert.equal(list.body.threads.length, 1);
    const [thread] = list.body.threads;
    assert.deepEqual({ ...thread, createdAt: typeof thread.createdAt, updatedAt: typeof thread.updatedAt }, {
      id: app.agent.threadId,
      name: null,
      agentId: 'default',
      organizationId: '',
      createdById: '',
      archived: false,
      createdAt: 'string',
      updatedAt: 'string',
    });
    assert.equal(new Date(thread.createdAt).toISOString(), thread.createdAt);
    assert.deepEqual((await getJSON(`${base()}/threads?agentId=researcher`, headers)).body.threads, []);
    assert.deepEqual((await getJSON(`${base()}/threads?agentId=default`, { [TEST_ID_HEADER]: newTestId('other') })).body.threads, [], "another test's list");

    const state = await getJSON(`${base()}/threads/${app.agent.threadId}/state`, headers);
    assert.deepEqual(state.body, { state: { count: 2, beaches: ['north'] } });
    const messages = await getJSON(`${base()}/threads/${app.agent.threadId}/messages`, headers);
    assert.deepEqual(
      messages.body.messages.map((m) => m.role),
      app.agent.messages.map((m) => m.role),
    );
    const events = await getJSON(`${base()}/threads/${app.agent.threadId}/events`, headers);
    assert.equal(events.body.events[0].type, 'RUN_STARTED');
    assert.equal(events.body.events.at(-1).type, 'RUN_FINISHED');

    const cleared = await fetch(`${base()}/threads/clear`, { method: 'POST', headers });
    assert.equal(cleared.status, 204);
    assert.deepEqual((await getJSON(`${base()}/threads?agentId=default`, headers)).body.threads, []);
  });
});

describe('a seeded thread, restored by the core’s connectAgent', () => {
  /** Seeds a thread for a new test and returns the test id, the thread id and the mock's answer. */
  async function seed(label, body) {
    const testId = newTestId(label);
    const threadId = newThread(label);
    const answer = await adminOK(mock, 'POST', '/threads', { testId, body: { threadId, ...body } }, 201);
    return { testId, threadId, answer };
  }

  /** An app on the seeded thread, after its connectAgent. */
  async function restore({ testId, threadId }) {
    const app = await ckApp(base(), { testId, threadId });
    await app.connect();
    return app;
  }

  test('a finished conversation: its messages and state; the next run continues it', async () => {
    const messages = [
      { id: 'u1', role: 'user', content: 'Where are the waves?' },
      { id: 'a1', role: 'assistant', content: 'On the north beach.' },
    ];
    const seeded = await seed('seed-finished', { messages, state: { beach: 'north' } });
    assert.deepEqual(seeded.answer, { threadId: seeded.threadId, agent: 'default', runs: 1, awaiting: { interrupts: [], toolCalls: [] } });
    const app = await restore(seeded);
    assert.deepEqual(app.errors, []);
    assert.deepEqual(app.agent.messages, messages);
    assert.deepEqual(app.agent.state, { beach: 'north' });
    assert.deepEqual(app.agent.pendingInterrupts ?? [], []);
    assert.equal(app.interrupts.state.pending, null);

    await app.say('Hello again');
    assert.deepEqual(app.errors, []);
    assert.deepEqual(app.texts(), ['On the north beach.', 'Hello from the mock.']);
    const started = app.events.filter((e) => e.type === 'RUN_STARTED').at(-1);
    assert.deepEqual(
      started.input.messages.map((m) => m.content),
      ['Hello again'],
      'the seeded messages are the thread’s own: the run’s RUN_STARTED input leaves them out',
    );
  });

  test('several runs: every message in order, the state of the last', async () => {
    const runs = [
      {
        messages: [
          { id: 'u1', role: 'user', content: 'Count the waves' },
          { id: 'a1', role: 'assistant', content: 'Two waves.' },
        ],
        state: { count: 2 },
      },
      {
        messages: [
          { id: 'u2', role: 'user', content: 'And the tide?' },
          { id: 'a2', role: 'assistant', content: 'Checking.', toolCalls: [{ id: 'call-tide', type: 'function', function: { name: 'tide_table', arguments: '{"beach":"north"}' } }] },
          { id: 't2', role: 'tool', toolCallId: 'call-tide', content: '{"high":"14:02"}' },
          { id: 'a3', role: 'assistant', content: 'High tide is at 14:02.' },
        ],
        state: { count: 2, tide: '14:02' },
      },
    ];
    const seeded = await seed('seed-runs', { runs });
    assert.equal(seeded.answer.runs, 2);
    const app = await restore(seeded);
    assert.deepEqual(app.errors, []);
    assert.deepEqual(app.agent.messages, runs.flatMap((r) => r.messages));
    assert.deepEqual(app.agent.state, { count: 2, tide: '14:02' });
    assert.equal(app.interrupts.state.pending, null);

    const headers = { [TEST_ID_HEADER]: seeded.testId };
    const listed = await getJSON(`${base()}/threads?agentId=default`, headers);
    assert.deepEqual(listed.body.threads.map((t) => t.id), [seeded.threadId]);
    assert.deepEqual((await getJSON(`${base()}/threads/${seeded.threadId}/state`, headers)).body, { state: { count: 2, tide: '14:02' } });
    const stored = (await getJSON(`${base()}/threads/${seeded.threadId}/messages`, headers)).body.messages;
    assert.deepEqual(stored.find((m) => m.id === 'a2').toolCalls, [{ id: 'call-tide', name: 'tide_table', args: '{"beach":"north"}' }]);
  });

  test('an earlier run that failed with RUN_ERROR: the whole conversation is restored', async () => {
    const runs = [
      {
        messages: [
          { id: 'u1', role: 'user', content: 'Summarise the report' },
          { id: 'a1', role: 'assistant', content: 'Reading it…' },
        ],
        error: { message: 'The model provider is overloaded.', code: 'provider_overloaded' },
      },
      {
        messages: [
          { id: 'u2', role: 'user', content: 'Try again' },
          { id: 'a2', role: 'assistant', content: 'The report says the tide is high.' },
        ],
      },
    ];
    const seeded = await seed('seed-error', { runs });
    const app = await restore(seeded);
    assert.deepEqual(app.agent.messages, runs.flatMap((r) => r.messages));
    assert.deepEqual(
      app.errors.map(({ code, message }) => ({ code, message })),
      [{ code: 'agent_run_error_event', message: 'The model provider is overloaded.' }],
      'the connect succeeds; the core reports the replayed RUN_ERROR, as it reports a real runtime’s',
    );
    const events = await postRaw(`${base()}/agent/default/connect`, connectInput(seeded.threadId), { [TEST_ID_HEADER]: seeded.testId });
    assert.deepEqual(
      events.events.filter((e) => ['RUN_STARTED', 'RUN_ERROR', 'RUN_FINISHED'].includes(e.type)).map((e) => e.type),
      ['RUN_STARTED', 'RUN_ERROR', 'RUN_STARTED', 'RUN_FINISHED'],
    );
    assert.equal(events.events.find((e) => e.type === 'RUN_ERROR').code, 'provider_overloaded');
  });

  test('pending interrupts (the standard dialect): shown after the connect, and answering them resumes the named scenario', async () => {
    const interrupts = [
      { id: 'int-trim', reason: 'tool_call', toolCallId: 'call-trim', message: 'Trim the first 10 seconds?' },
      { id: 'int-watermark', reason: 'tool_call', toolCallId: 'call-watermark', message: 'Add the watermark?' },
    ];
    const messages = [
      { id: 'u1', role: 'user', content: MEDIA_MESSAGE },
      {
        id: 'a1',
        role: 'assistant',
        content: 'I need your approval for each edit.',
        toolCalls: [
          { id: 'call-trim', type: 'function', function: { name: 'trim_video', arguments: '{"fileId":"vod-file-001","startSeconds":10}' } },
          { id: 'call-watermark', type: 'function', function: { name: 'add_watermark', arguments: '{"fileId":"vod-file-001","text":"© Media Library"}' } },
        ],
      },
    ];
    const seeded = await seed('seed-interrupt', { messages, interrupts, state: { files: ['vod-file-001'] }, scenario: 'media-management' });
    assert.deepEqual(seeded.answer.awaiting, { interrupts: ['int-trim', 'int-watermark'], toolCalls: [] });
    assert.equal(seeded.answer.scenario, 'media-management');

    const app = await restore(seeded);
    assert.deepEqual(app.errors, []);
    assert.deepEqual(app.agent.messages, messages);
    assert.deepEqual(app.agent.state, { files: ['vod-file-001'] });
    assert.deepEqual(app.agent.pendingInterrupts, interrupts, 'the client holds the interrupts the thread waits for');
    assert.deepEqual(app.interrupts.state.pending, { kind: 'standard', interrupts }, 'useInterrupt shows them');

    await app.resume((state) => (state.resolve(undefined, 'int-trim'), state.cancel('int-watermark')));
    assert.deepEqual(app.errors, []);
    assert.deepEqual(app.texts().slice(1), ['Trimmed the first 10 seconds.', 'No watermark.', CLOSING]);
    assert.deepEqual(app.agent.pendingInterrupts, []);
    const [entry] = (await journalEntries(mock, {}, seeded.testId)).filter((e) => e.path === '/copilotkit/agent/default/run');
    assert.equal(entry.scenario, 'media-management');
  });

  test('a pending interrupt in the LangGraph dialect: the on_interrupt event is shown, and the answer through forwardedProps.command resumes the scenario', async () => {
    const interrupt = { id: 'int-publish', reason: 'confirmation', message: 'Publish the post?', metadata: { draft: 'post-7' } };
    const seeded = await seed('seed-langgraph', {
      dialect: 'langgraph',
      scenario: 'lg-publish',
      messages: [
        { id: 'u1', role: 'user', content: 'publish it' },
        { id: 'a1', role: 'assistant', content: 'The draft is ready.' },
      ],
      interrupts: [interrupt],
    });
    assert.deepEqual(seeded.answer.awaiting, { interrupts: ['int-publish'], toolCalls: [] });
    const app = await restore(seeded);
    assert.deepEqual(app.errors, []);
    assert.deepEqual(app.agent.pendingInterrupts ?? [], [], 'the LangGraph dialect finishes the run plainly');
    const pending = app.interrupts.state.pending;
    assert.equal(pending?.kind, 'legacy', 'useInterrupt shows the on_interrupt event');
    assert.deepEqual(JSON.parse(pending.event.value), interrupt);

    await app.resume((state) => state.resolve(JSON.stringify({ approved: true, title: 'Ocean waves' })));
    assert.deepEqual(app.errors, []);
    assert.deepEqual(app.texts(), ['The draft is ready.', 'Published Ocean waves.', 'Anything else?']);
  });

  test("a pending frontend tool call: the app's human-in-the-loop tool answers it after the connect, and the named scenario continues", async () => {
    const args = { question: 'Which format should the video be?', choices: ['MP4', 'WebM', 'GIF'] };
    const seeded = await seed('seed-tool', {
      scenario: 'clarify',
      messages: [
        { id: 'u1', role: 'user', content: 'make me a highlight video' },
        { id: 'a1', role: 'assistant', content: 'Happy to. One question first.', toolCalls: [{ id: 'call-clarify', type: 'function', function: { name: 'clarify', arguments: JSON.stringify(args) } }] },
      ],
    });
    assert.deepEqual(seeded.answer.awaiting, { interrupts: [], toolCalls: ['call-clarify'] });

    const app = await ckApp(base(), { testId: seeded.testId, threadId: seeded.threadId });
    const asked = [];
    // what useHumanInTheLoop registers: the user picks GIF
    app.core.addTool({ name: 'clarify', description: 'Ask the user', type: 'human-in-the-loop', parameters: CLARIFY_PARAMETERS, handler: async (a) => (asked.push(a), 'GIF') });
    await app.connect();
    await until(app.agent, (agent) => agent.messages.some((m) => m.content === "Rendering has started; I'll let you know when it's ready."), 'the follow-up run');
    assert.deepEqual(app.errors, []);
    assert.deepEqual(asked, [args]);
    assert.deepEqual(
      app.agent.messages.map((m) => [m.role, m.role === 'tool' ? m.toolCallId : m.content]),
      [
        ['user', 'make me a highlight video'],
        ['assistant', 'Happy to. One question first.'],
        ['tool', 'call-clarify'],
        ['assistant', "A GIF it is. GIFs have no sound, so I'll drop the audio track."],
        ['assistant', "Rendering has started; I'll let you know when it's ready."],
      ],
    );
    const [entry] = (await journalEntries(mock, {}, seeded.testId)).filter((e) => e.path === '/copilotkit/agent/default/run');
    assert.equal(entry.scenario, 'clarify');
  });

  test('DELETE /_mock/threads forgets the test’s threads', async () => {
    const seeded = await seed('seed-forget', { messages: [{ id: 'u1', role: 'user', content: 'hi' }, { id: 'a1', role: 'assistant', content: 'hello' }] });
    await adminOK(mock, 'DELETE', '/threads', { testId: seeded.testId }, 204);
    const app = await restore(seeded);
    assert.deepEqual(app.agent.messages, []);
  });
});

describe('the same conversations through a real runtime and through the mock', () => {
  // Each conversation is played by an app on the real runtime (whose HttpAgent plays the
  // scenarios from the mock's /agui/chat) and by an app on the mock's /copilotkit; then a
  // fresh app restores each thread with connectAgent.
  const conversations = {
    'a plain answer with state and a tool call': { last: 'There are 2 waves.', turns: [(app) => app.say('stateful please')] },
    'pending interrupts (standard dialect)': { last: /^I found "Ocean waves at dawn"/, turns: [(app) => app.say(MEDIA_MESSAGE, MEDIA_PROPS)] },
    'interrupts answered in a second run': {
      last: CLOSING,
      turns: [
        (app) => app.say(MEDIA_MESSAGE, MEDIA_PROPS),
        (app) => app.resume((state) => (state.resolve(undefined, 'interruptId-001'), state.cancel('interruptId-002'))),
      ],
    },
    'a pending interrupt (LangGraph dialect)': { last: 'The draft is ready.', turns: [(app) => app.say('publish')] },
    'a run that fails with RUN_ERROR': { last: 'Let me look into that…', turns: [(app) => app.say('fail please')] },
    'two runs, the second failing': { last: 'Let me look into that…', turns: [(app) => app.say('Hello!'), (app) => app.say('fail again')] },
    'two runs that both change the state': { last: 'There are 2 waves.', turns: [(app) => app.say('stateful please'), (app) => app.say('stateful again')] },
    'a pending frontend tool call': { last: 'One question first.', turns: [(app) => app.say('make me a video')] },
    "a frontend tool call the app's tool answers, and the run that follows": {
      last: 'Rendering has started.',
      turns: [
        (app) => {
          app.core.addTool({ name: 'pick_format', description: 'Ask the user for a format', parameters: PICK_FORMAT_PARAMETERS, handler: async () => 'GIF' });
          return app.say('make me a video');
        },
      ],
    },
  };

  /**
   * Plays a conversation on a runtime URL through the given transport and restores it in
   * a fresh app: what each app holds, and the raw connect and thread routes.
   */
  async function playAndRestore(url, { turns, last }, label, transport = 'auto') {
    const testId = newTestId(label);
    const threadId = newThread(label);
    const player = await ckApp(url, { testId, threadId, transport });
    for (const turn of turns) await turn(player);
    const said = player.texts().at(-1);
    if (typeof last === 'string') assert.equal(said, last, `${url}: the conversation ends as the scenario says`);
    else assert.match(said, last, `${url}: the conversation ends as the scenario says`);
    const restorer = await ckApp(url, { testId, threadId, transport });
    await restorer.connect();
    const headers = { [TEST_ID_HEADER]: testId };
    const calls = runtimeCalls(url, transport === 'single' ? 'single' : 'rest');
    const connect = await postRaw(...calls.connect(connectInput(threadId)), headers);
    const messages = await calls.get(`/threads/${threadId}/messages`, headers);
    const state = await calls.get(`/threads/${threadId}/state`, headers);
    const events = await calls.get(`/threads/${threadId}/events`, headers);
    const list = await calls.get('/threads?agentId=default', headers);
    const record = list.body.threads.find((t) => t.id === threadId);
    return {
      played: masked({ messages: player.agent.messages, state: player.agent.state, errors: player.errors.map(({ code, message }) => ({ code, message })) }),
      restored: restoredView(restorer),
      connect,
      threadMessages: masked(messages.body),
      threadState: state.body,
      threadEvents: events.body.events.map((e) => e.type),
      threadRecord: record && { ...masked(record), createdAt: typeof record.createdAt, updatedAt: typeof record.updatedAt },
    };
  }

  /** Events as two servers' streams of the same conversation must agree on them: ids masked, without times. */
  const wire = (events) => masked(events.map(({ timestamp, ...event }) => event));

  /** Asserts that the mock's account of a conversation is the real runtime's. */
  function assertSame(mocked, real) {
    assert.deepEqual(mocked.played, real.played, 'the conversation plays alike');
    assert.deepEqual(mocked.restored, real.restored, 'a fresh app restores the same messages, state, interrupts and errors');
    assert.equal(mocked.connect.status, real.connect.status);
    assert.deepEqual(
      mocked.connect.events.map((e) => e.type),
      real.connect.events.map((e) => e.type),
      'the connect streams replay the same events, type by type',
    );
    assert.deepEqual(wire(mocked.connect.events), wire(real.connect.events), 'and member by member, ids and times aside');
    assert.deepEqual(mocked.connect.fields, real.connect.fields, 'frame by frame, the same SSE fields');
    assert.deepEqual(mocked.threadMessages, real.threadMessages, 'GET /threads/:id/messages');
    assert.deepEqual(mocked.threadState, real.threadState, 'GET /threads/:id/state');
    assert.deepEqual(mocked.threadEvents, real.threadEvents, 'GET /threads/:id/events');
    assert.deepEqual(mocked.threadRecord, real.threadRecord, 'the thread in GET /threads');
  }

  for (const [name, conversation] of Object.entries(conversations)) {
    test(name, async () => {
      const real = await playAndRestore((await realRuntime()).url, conversation, 'real');
      const mocked = await playAndRestore(base(), conversation, 'mocked');
      assertSame(mocked, real);
    });
  }

  for (const name of ['interrupts answered in a second run', 'two runs, the second failing']) {
    test(`${name}, through the single endpoint`, async () => {
      const real = await playAndRestore((await realSingleRoute()).url, conversations[name], 'real-single', 'single');
      const mocked = await playAndRestore(base(), conversations[name], 'mocked-single', 'single');
      assertSame(mocked, real);
    });
  }
});

describe('the single endpoint, envelope by envelope, as a runtime in single-route mode answers it', () => {
  const input = (threadId) => ({ ...connectInput(threadId), messages: [{ id: 'u1', role: 'user', content: 'Hello!' }] });
  const envelopes = {
    info: { method: 'info' },
    'no method': {},
    'an unknown method': { method: 'agent/fly' },
    'a run without its agentId': { method: 'agent/run', params: {}, body: input('t') },
    'a run without its body': { method: 'agent/run', params: { agentId: 'default' } },
    'a connect of an unknown agent': { method: 'agent/connect', params: { agentId: 'nope' }, body: input('t') },
    'a stop without its threadId': { method: 'agent/stop', params: { agentId: 'default' } },
    'a stop of a thread without a run': { method: 'agent/stop', params: { agentId: 'default', threadId: 'idle-thread' } },
    'a stop whose runId is not a string': { method: 'agent/stop', params: { agentId: 'default', threadId: 'idle-thread' }, body: { runId: 5 } },
    "an unknown thread's state": { method: 'resource/request', params: { path: '/threads/nobody/state', httpMethod: 'GET' } },
    "an unknown thread's messages": { method: 'resource/request', params: { path: '/threads/nobody/messages', httpMethod: 'GET' } },
    "an unknown thread's events, the method in lower case": { method: 'resource/request', params: { path: '/threads/nobody/events', httpMethod: 'get' } },
    'the threads of an agent without any': { method: 'resource/request', params: { path: '/threads?agentId=nobody', httpMethod: 'GET' } },
    'a resource path that is not runtime-relative': { method: 'resource/request', params: { path: 'threads', httpMethod: 'GET' } },
    'a resource path of another host': { method: 'resource/request', params: { path: '//elsewhere/threads', httpMethod: 'GET' } },
    'a resource called with a method it does not take': { method: 'resource/request', params: { path: '/threads/x/messages', httpMethod: 'POST' } },
    'a resource that does not exist': { method: 'resource/request', params: { path: '/nope', httpMethod: 'GET' } },
    'renaming a thread (Intelligence only)': { method: 'resource/request', params: { path: '/threads/x', httpMethod: 'PATCH' }, body: { name: 'n' } },
    'the memories (not exposed)': { method: 'resource/request', params: { path: '/memories', httpMethod: 'GET' } },
    'inspector metadata': { method: 'inspector/metadata' },
    'inspector learning': { method: 'inspector/learning' },
    'a transcription without a body': { method: 'transcribe' },
    'a transcription without a service': { method: 'transcribe', body: { audio: 'x' } },
  };
  // The test's runtime has the real runtime's one agent (the mock's has every agent its
  // scenarios name besides).
  const testId = newTestId('envelopes');
  before(() => adminOK(mock, 'POST', '/copilotkit/info', { testId, body: { agents: ['default'] } }));
  for (const [name, envelope] of Object.entries(envelopes)) {
    test(name, async () => {
      const answers = [];
      for (const url of [(await realSingleRoute()).url, base()]) {
        const { status, body } = await postRaw(url, envelope, { [TEST_ID_HEADER]: testId });
        // the agent's class as the runtime's JavaScript names it (a bundler's minified name)
        for (const agent of Object.values(body?.agents ?? {})) delete agent.className;
        answers.push({ status, body });
      }
      assert.deepEqual(answers[1], answers[0]);
    });
  }

  test('a body that is not JSON, or not sent as JSON; a method other than POST', async () => {
    for (const [body, headers] of [
      ['{not json', {}],
      [{ method: 'info' }, { 'Content-Type': 'text/plain' }],
    ]) {
      const [real, mocked] = [await postRaw((await realSingleRoute()).url, body, headers), await postRaw(base(), body, headers)];
      assert.deepEqual([mocked.status, mocked.body], [real.status, real.body]);
    }
    for (const method of ['GET', 'PUT']) {
      const [real, mocked] = [await fetch((await realSingleRoute()).url, { method }), await fetch(base(), { method })];
      assert.deepEqual([mocked.status, mocked.headers.get('allow'), await mocked.json()], [real.status, real.headers.get('allow'), await real.json()], method);
    }
  });
});

describe('a body that is no RunAgentInput, as the runtime refuses it', () => {
  // The runtime checks a run's and a connect's body against AG-UI's RunAgentInput schema and
  // answers 400 {"error": "Invalid request body", "details": <why>}; the details are the
  // schema library's words, so only the status and the error are compared.
  const bodies = {
    'a run whose threadId is a number': ['run', { threadId: 5, runId: 'r', messages: [], tools: [], context: [] }],
    'a run whose body is a JSON string': ['run', 'nope'],
    'a connect whose threadId is a number': ['connect', { threadId: 5, runId: 'r', messages: [], tools: [], context: [] }],
    'a connect of a thread id alone': ['connect', { threadId: 'only-the-thread' }],
  };
  for (const [name, [route, body]] of Object.entries(bodies)) {
    test(name, async () => {
      const answers = [];
      for (const url of [(await realRuntime()).url, base()]) {
        const res = await postRaw(`${url}/agent/default/${route}`, body, { [SPEED_HEADER]: '0' });
        answers.push({ status: res.status, error: res.body?.error, details: typeof res.body?.details });
      }
      assert.deepEqual(answers[0], { status: 400, error: 'Invalid request body', details: 'string' }, 'the runtime refuses it');
      assert.deepEqual(answers[1], answers[0], 'the mock refuses it alike');
    });
  }
});

describe('stopping a run', () => {
  // The stoppable scenario's run, held by a breakpoint of the mock before the event at
  // index pause: with a text message open, or with a tool call open. The breakpoint holds
  // the mock's own run route, and the mock's /agui/chat that the real runtime's HttpAgent
  // calls (the runtime forwards the app's X-Test-Id); either way the app then stops the run.
  let timeline;
  before(async () => {
    const probe = openRun(mock, { ...connectInput(newThread('timeline')), messages: [{ id: 'u', role: 'user', content: 'stoppable' }] });
    timeline = (await probe.done).events.map((e) => e.type);
  });
  const pauses = {
    'a text message open': () => timeline.indexOf('TEXT_MESSAGE_CONTENT') + 1,
    'a tool call open': () => timeline.indexOf('TOOL_CALL_START') + 1,
  };

  /**
   * Plays the stoppable scenario on url until the breakpoint holds it, has a second app
   * follow the thread live through connect, stops the run (through the app's
   * agent.abortRun(), or a raw call of the stop route), and restores the thread in a
   * third app once the run is over; every call is made through the transport given.
   */
  async function stopRun(url, pause, how, label, transport) {
    const testId = newTestId(label);
    const threadId = newThread(label);
    const headers = { [TEST_ID_HEADER]: testId };
    const calls = runtimeCalls(url, transport);
    const { id } = await adminOK(mock, 'POST', '/breakpoints', { testId, body: { scenario: 'stoppable', event: pause } }, 201);
    const app = await ckApp(url, { testId, threadId, transport });
    app.agent.addMessage({ id: `user-${randomUUID()}`, role: 'user', content: 'stoppable' });
    const running = app.core.runAgent({ agent: app.agent });
    await adminOK(mock, 'GET', `/breakpoints/${id}?wait=10s`);
    await until(app.agent, () => app.events.length >= pause, 'the events before the breakpoint');
    const [connectURL, connectBody] = calls.connect(connectInput(threadId));
    const follower = openRun({ url: connectURL }, connectBody, { route: '', headers, speed: null });
    await follower.waitFor(() => follower.events.length >= pause, 10_000);

    let stopAnswer;
    if (how === 'core') app.agent.abortRun();
    else stopAnswer = await postRaw(...calls.stop(threadId, {}), headers);
    await running;
    const followed = await follower.done;
    const again = await postRaw(...calls.stop(threadId), headers);
    const restorer = await ckApp(url, { testId, threadId, transport });
    await restorer.connect();
    const replay = await postRaw(...calls.connect(connectInput(threadId)), headers);
    await adminOK(mock, 'DELETE', `/breakpoints/${id}`, {}, 204);
    await app.say('Hello after the stop');
    return {
      testId,
      threadId,
      ending: ending(app.events, pause),
      followed: ending(followed.events, pause),
      stopAnswer: stopAnswer && { status: stopAnswer.status, body: stopAnswer.body },
      again: { status: again.status, body: again.body },
      messages: masked(app.agent.messages),
      errors: app.errors.map(({ code, message }) => ({ code, message })),
      restored: restoredView(restorer),
      replay: replay.events.map((e) => e.type),
      next: { texts: app.texts().slice(-1), errors: app.errors.length },
    };
  }

  const variants = [
    ...Object.keys(pauses).flatMap((pause) => ['core', 'route'].map((how) => ({ pause, how, transport: 'rest' }))),
    ...['core', 'route'].map((how) => ({ pause: 'a text message open', how, transport: 'single' })),
  ];
  for (const { pause: pauseName, how, transport } of variants) {
    const through = how === 'core' ? "the core's agent.abortRun()" : transport === 'single' ? 'an agent/stop envelope' : 'a POST to the stop route';
    test(`with ${pauseName}, stopped through ${through}${transport === 'single' ? ' (single endpoint)' : ''}: the stream ends as the runtime's does`, async () => {
      const pause = pauses[pauseName]();
      const realURL = transport === 'single' ? (await realSingleRoute()).url : (await realRuntime()).url;
      const real = await stopRun(realURL, pause, how, 'stop-real', transport);
      const mocked = await stopRun(base(), pause, how, 'stop-mocked', transport);

      // The mock's own account: the run was cancelled by the stop.
      const runPath = transport === 'single' ? '/copilotkit' : '/copilotkit/agent/default/run';
      const run = await journalEntry(mock, (e) => e.path === runPath && e.threadId === mocked.threadId && e.scenario === 'stoppable' && e.outcome, { testId: mocked.testId });
      assert.equal(run.outcome, 'cancelled');
      const stopPath = transport === 'single' ? '/copilotkit' : `/copilotkit/agent/default/stop/${mocked.threadId}`;
      const stop = await journalEntry(mock, (e) => e.path === stopPath && e.threadId === mocked.threadId && !e.scenario, { testId: mocked.testId });
      assert.equal(stop.status, 200);

      if (how === 'route') {
        assert.deepEqual(mocked.stopAnswer, { status: 200, body: { stopped: true, interrupt: { type: 'RUN_ERROR', message: 'Run stopped by user', code: 'STOPPED' } } });
        assert.deepEqual(mocked.stopAnswer, real.stopAnswer);
      }
      assert.deepEqual(mocked.again, { status: 200, body: { stopped: false, message: `No active run for thread '${mocked.threadId}'.` } });

      assert.deepEqual(mocked.ending, real.ending, 'the events that end the stopped run, in order');
      assert.deepEqual(mocked.followed, real.followed, 'what an app following the thread live sees of the stop');
      assert.deepEqual(mocked.messages, real.messages, 'what the stopping app holds');
      assert.deepEqual(mocked.errors, real.errors, 'the errors the core reports');
      assert.deepEqual(mocked.restored, real.restored, 'what a fresh app restores of the stopped run');
      assert.deepEqual(mocked.replay, real.replay, "the connect route's replay of the stopped run");
      assert.deepEqual(mocked.next, { texts: ['Hello from the mock.'], errors: 0 }, 'the thread takes its next run');
      assert.deepEqual(mocked.next, real.next);
    });
  }

  test('a stop naming another run, or with a body that is no stop scope, is answered as the runtime answers it', async () => {
    for (const url of [(await realRuntime()).url, base()]) {
      const threadId = newThread('stop-body');
      const stopUrl = `${url}/agent/default/stop/${threadId}`;
      const other = await postRaw(stopUrl, { runId: 'run-x' });
      assert.deepEqual([other.status, other.body], [200, { stopped: false, message: `Run 'run-x' is not the active run for thread '${threadId}'.` }], url);
      const extra = await postRaw(stopUrl, { runId: 'run-x', force: true });
      assert.deepEqual([extra.status, extra.body], [400, { error: 'Invalid stop request' }], url);
      const blank = await postRaw(stopUrl, { runId: ' ' });
      assert.deepEqual([blank.status, blank.body], [400, { error: 'Invalid runId' }], url);
    }
  });
});

describe('errors and the handshake', () => {
  test("an unknown agent gets the runtime's 404, through raw requests and through the core", async () => {
    const threadId = newThread('nope');
    const answers = {};
    for (const [name, url] of [['real', (await realRuntime()).url], ['mocked', base()]]) {
      const input = { ...connectInput(threadId), messages: [{ id: 'u', role: 'user', content: 'hi' }] };
      const raw = {};
      for (const route of ['run', 'connect', 'stop']) {
        const path = route === 'stop' ? `/agent/nope/stop/${threadId}` : `/agent/nope/${route}`;
        const res = await postRaw(url + path, route === 'stop' ? {} : input);
        raw[route] = [res.status, res.body];
      }
      const app = await ckApp(url, { threadId });
      const nope = unlistedAgent(app.core, 'nope', threadId);
      assert.equal(app.core.getAgent('nope'), undefined);
      nope.addMessage({ id: 'u1', role: 'user', content: 'hi' });
      await app.core.runAgent({ agent: nope });
      await app.core.connectAgent({ agent: nope });
      answers[name] = { raw, errors: app.errors.map(({ code, status, payload }) => ({ code, status, payload })) };
    }
    const notFound = [404, { error: 'Agent not found', message: "Agent 'nope' does not exist" }];
    assert.deepEqual(answers.mocked.raw, { run: notFound, connect: notFound, stop: notFound });
    assert.deepEqual(answers.mocked, answers.real);
    assert.ok(answers.mocked.errors.length > 0, 'the core reports the failure');
  });

  test('a second run on a thread whose run still streams is answered as the runtime answers it', async () => {
    const seen = {};
    for (const [name, url] of [
      ['real', (await realRuntime()).url],
      ['mocked', base()],
    ]) {
      const testId = newTestId(`busy-${name}`);
      const threadId = newThread('busy');
      const { id } = await adminOK(mock, 'POST', '/breakpoints', { testId, body: { scenario: 'stoppable', event: 2 } }, 201);
      const first = await ckApp(url, { testId, threadId });
      first.agent.addMessage({ id: `user-${randomUUID()}`, role: 'user', content: 'stoppable' });
      const running = first.core.runAgent({ agent: first.agent });
      await adminOK(mock, 'GET', `/breakpoints/${id}?wait=10s`);

      const raw = await postRaw(`${url}/agent/default/run`, { ...connectInput(threadId), messages: [{ id: 'u2', role: 'user', content: 'Hello!' }] }, { [TEST_ID_HEADER]: testId, [SPEED_HEADER]: '0' });
      const second = await ckApp(url, { testId, threadId }); // another tab of the same thread
      await second.say('Hello!');
      await adminOK(mock, 'POST', `/breakpoints/${id}/release`);
      await running;
      seen[name] = {
        raw: { status: raw.status, type: raw.type.split(';')[0], events: raw.events?.map((e) => e.type) ?? raw.body },
        second: { texts: second.texts(), errors: second.errors.map(({ code }) => code) },
        first: { texts: first.texts(), errors: first.errors.map(({ code }) => code) },
      };
    }
    assert.deepEqual(seen.mocked, seen.real);
  });

  for (const fault of [
    { kind: 'truncate', after: 3 },
    { kind: 'disconnect', after: 3 },
  ]) {
    test(`a run cut short by a ${fault.kind} fault leaves the thread a run that ends, as the runtime's runner always keeps one`, async () => {
      const testId = newTestId(`cut-${fault.kind}`);
      const threadId = newThread('cut');
      await adminOK(mock, 'POST', '/faults', { testId, body: fault }, 201);
      // (over plain fetch: the client's HttpAgent leaves a dropped connection's error unhandled)
      const cut = await openRun({ url: base() }, { ...connectInput(threadId), messages: [{ id: 'u1', role: 'user', content: 'stoppable' }] }, { route: '/agent/default/run', headers: { [TEST_ID_HEADER]: testId } }).done;
      assert.ok(cut.events.length <= 3 && !['RUN_FINISHED', 'RUN_ERROR'].includes(cut.events.at(-1)?.type), 'the fault cut the stream');
      const replay = (await postRaw(`${base()}/agent/default/connect`, connectInput(threadId), { [TEST_ID_HEADER]: testId })).events;
      // The runtime's runner keeps every run it ran with a terminal event and its text
      // messages closed: what its agent sent, or what the runner adds when the stream
      // stopped short (TEXT_MESSAGE_END, then RUN_ERROR code INCOMPLETE_STREAM).
      const types = replay.map((e) => e.type);
      assert.equal(types[0], 'RUN_STARTED');
      assert.ok(['RUN_FINISHED', 'RUN_ERROR'].includes(types.at(-1)), `the kept run ends: ${types.join(' ')}`);
      const open = new Set();
      for (const e of replay) {
        if (e.type === 'TEXT_MESSAGE_START') open.add(e.messageId);
        if (e.type === 'TEXT_MESSAGE_END') open.delete(e.messageId);
      }
      assert.deepEqual([...open], [], `no text message is left open: ${types.join(' ')}`);
    });
  }

  test('connecting to a thread nobody has run gives an empty stream, and an empty restore', async () => {
    const views = {};
    for (const [name, url] of [['real', (await realRuntime()).url], ['mocked', base()]]) {
      const threadId = newThread('unknown');
      const raw = await postRaw(`${url}/agent/default/connect`, connectInput(threadId));
      assert.equal(raw.status, 200, name);
      assert.match(raw.type, /^text\/event-stream\b/, name);
      assert.deepEqual(raw.events, [], name);
      const app = await ckApp(url, { threadId });
      await app.connect();
      views[name] = restoredView(app);
    }
    assert.deepEqual(views.mocked, { messages: [], state: {}, pendingInterrupts: [], shownInterrupt: null, errors: [] });
    assert.deepEqual(views.mocked, views.real);
  });

  test('after a 404 on GET /info the core falls back to the single endpoint, and runs and restores through it', async () => {
    const testId = newTestId('envelope');
    await adminOK(mock, 'POST', '/faults', { testId, body: { on: 'info', kind: 'status', status: 404 } }, 201);
    const threadId = newThread('envelope');
    const app = await ckApp(base(), { testId, threadId });
    assert.equal(app.core.runtimeTransport, 'single');
    await app.say('Hello!');
    assert.deepEqual(app.errors, []);
    assert.deepEqual(app.texts(), ['Hello from the mock.']);

    const restorer = await ckApp(base(), { testId, threadId });
    assert.equal(restorer.core.runtimeTransport, 'rest', 'the fault struck one request only');
    await restorer.connect();
    assert.deepEqual(masked(restorer.agent.messages), masked(app.agent.messages));

    const entries = await journalEntries(mock, {}, testId);
    const infoCalls = entries.filter((e) => e.path === '/copilotkit/info').map((e) => e.status);
    assert.deepEqual(infoCalls.sort(), [200, 404]);
    const envelopes = entries.filter((e) => e.method === 'POST' && e.path === '/copilotkit');
    assert.ok(envelopes.some((e) => e.request?.method === 'info' && e.status === 200), 'POST {method: "info"} answered');
    assert.ok(envelopes.some((e) => e.threadId === threadId && e.scenario === 'greeting' && e.outcome === 'success'), 'the run went through the envelope');
  });

  test('a slow /info while a run is in flight: the run goes on, and the late app then follows it live and restores the thread', async () => {
    const testId = newTestId('slow-info');
    const threadId = newThread('slow-info');
    const { id } = await adminOK(mock, 'POST', '/breakpoints', { testId, body: { scenario: 'stoppable', event: 2 } }, 201);
    const first = await ckApp(base(), { testId, threadId });
    first.agent.addMessage({ id: `user-${randomUUID()}`, role: 'user', content: 'stoppable' });
    const running = first.core.runAgent({ agent: first.agent });
    await adminOK(mock, 'GET', `/breakpoints/${id}?wait=10s`);

    // A second app of the test (another tab) loads while the run is held: its /info is
    // held too, and answered while the run is still in flight.
    await adminOK(mock, 'POST', '/faults', { testId, body: { on: 'info', kind: 'slowStart', delay: '300ms' } }, 201);
    const late = await ckApp(base(), { testId, threadId });
    const following = late.connect();
    await until(late.agent, (agent) => agent.messages.length === 2, 'the late app to restore the run so far');
    await adminOK(mock, 'POST', `/breakpoints/${id}/release`);
    await running;
    await following;
    assert.deepEqual(first.errors, []);
    assert.deepEqual(first.texts(), ['One two three four.', 'Nobody reads this.']);
    assert.deepEqual(late.errors, []);
    assert.deepEqual(masked(late.agent.messages), masked(first.agent.messages), 'the late app followed the run to its end');

    const entries = await journalEntries(mock, {}, testId);
    const held = entries.find((e) => e.path === '/copilotkit/info' && e.reason === 'injected fault: slowStart');
    assert.equal(held?.status, 200, JSON.stringify(entries));
    const run = entries.find((e) => e.path === '/copilotkit/agent/default/run');
    assert.equal(run.outcome, 'success');
    // the journal's own account: the /info was held and answered within the run
    assert.ok(
      Date.parse(run.time) <= Date.parse(held.time) && Date.parse(held.time) + held.durationMs <= Date.parse(run.time) + run.durationMs,
      `run ${run.time} +${run.durationMs}ms, /info ${held.time} +${held.durationMs}ms`,
    );
  });
});

describe('--copilotkit-path', () => {
  test('/api/copilotkit moves the routes', async () => {
    const server = await startServer(['--copilotkit-path', '/api/copilotkit']);
    try {
      const app = await ckApp(`${server.url}/api/copilotkit`, { threadId: newThread('moved') });
      await app.say('Hello!');
      assert.deepEqual(app.errors, []);
      assert.equal(app.texts().length, 1);
      const restorer = await ckApp(`${server.url}/api/copilotkit`, { threadId: app.agent.threadId });
      await restorer.connect();
      assert.deepEqual(masked(restorer.agent.messages), masked(app.agent.messages));
      const old = await getJSON(`${server.url}/copilotkit/info`);
      assert.equal(old.status, 404);
      assert.equal(old.body.error, 'not_found');
    } finally {
      await server.stop();
    }
  });

  test("off removes them: the mock's own 404, and an app that finds no runtime", async () => {
    const server = await startServer(['--copilotkit-path', 'off']);
    try {
      const info = await getJSON(`${server.url}/copilotkit/info`);
      assert.deepEqual([info.status, info.body.error], [404, 'not_found']);
      for (const path of ['/copilotkit', '/copilotkit/agent/default/run', '/copilotkit/agent/default/connect', '/copilotkit/agent/default/stop/t']) {
        const res = await postRaw(server.url + path, connectInput('t'));
        assert.deepEqual([res.status, res.body?.error], [404, 'not_found'], path);
      }
      const core = new CopilotKitCore({ runtimeUrl: `${server.url}/copilotkit` });
      const reported = new Promise((resolve) => core.subscribe({ onError: ({ code, error }) => resolve({ code, message: error.message }) }));
      assert.equal(await settled(core), 'error');
      assert.equal(core.getAgent('default'), undefined);
      const error = await reported;
      assert.equal(error.code, 'runtime_info_fetch_failed');
      assert.match(error.message, /status 404/);
    } finally {
      await server.stop();
    }
  });
});

describe('web pages and --cors-origins', () => {
  for (const [flag, listed] of [
    ['http://app.example', 'http://app.example'],
    ['*', undefined],
  ]) {
    test(`--cors-origins ${flag}: connect, stop and the thread routes answer ${listed ? 'the listed origin only' : 'no web page'}; info and run answer any page`, async () => {
      const server = await startServer(['--cors-origins', flag]);
      try {
        const b = `${server.url}/copilotkit`;
        const threadId = newThread('cors');
        const run = { ...connectInput(threadId), messages: [{ id: 'u1', role: 'user', content: 'Hello!' }] };
        const from = (origin) => (origin ? { Origin: origin } : {});
        const calls = {
          info: (h) => fetch(`${b}/info`, { headers: h }),
          run: (h) => fetch(`${b}/agent/default/run`, { method: 'POST', headers: { 'Content-Type': 'application/json', [SPEED_HEADER]: '0', ...h }, body: JSON.stringify(run) }),
          connect: (h) => fetch(`${b}/agent/default/connect`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...h }, body: JSON.stringify(connectInput(threadId)) }),
          stop: (h) => fetch(`${b}/agent/default/stop/${threadId}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...h }, body: '{}' }),
          threads: (h) => fetch(`${b}/threads?agentId=default`, { headers: h }),
          messages: (h) => fetch(`${b}/threads/${threadId}/messages`, { headers: h }),
        };
        const statuses = async (origin) => {
          const out = {};
          for (const [name, call] of Object.entries(calls)) {
            const res = await call(from(origin));
            const body = await res.text();
            out[name] = res.status === 403 ? [403, JSON.parse(body).error] : res.status;
          }
          return out;
        };
        const refused = [403, 'forbidden_origin'];
        assert.deepEqual(await statuses(undefined), { info: 200, run: 200, connect: 200, stop: 200, threads: 200, messages: 200 }, 'a Node client sends no Origin');
        assert.deepEqual(await statuses('http://other.example'), { info: 200, run: 200, connect: refused, stop: refused, threads: refused, messages: refused });
        if (listed) {
          assert.deepEqual(await statuses(listed), { info: 200, run: 200, connect: 200, stop: 200, threads: 200, messages: 200 });
          const res = await calls.connect(from(listed));
          assert.equal(res.headers.get('access-control-allow-origin'), listed);
          await res.body?.cancel();
        }
      } finally {
        await server.stop();
      }
    });
  }
});

describe('a seeded thread that breaks the rules is refused, naming the member at fault', () => {
  const user = (id, content = 'hi') => ({ id, role: 'user', content });
  const assistant = (id, content = 'hello', toolCalls) => ({ id, role: 'assistant', content, ...(toolCalls ? { toolCalls } : {}) });
  const call = (id, name = 'lookup') => ({ id, type: 'function', function: { name, arguments: '{}' } });
  const cases = {
    'a tool message answering no call': [{ messages: [user('u1'), assistant('a1'), { id: 't1', role: 'tool', toolCallId: 'call-none', content: 'x' }] }, 'messages[2].toolCallId'],
    'a duplicate message id': [{ messages: [user('u1'), assistant('u1')] }, 'messages[1].id'],
    'a duplicate tool call id': [
      {
        runs: [
          { messages: [user('u1'), assistant('a1', 'one', [call('call-1')]), { id: 't1', role: 'tool', toolCallId: 'call-1', content: 'x' }] },
          { messages: [user('u2'), assistant('a2', 'two', [call('call-1')])] },
        ],
      },
      'runs[1].messages[1].toolCalls[0].id',
    ],
    'interrupts on a run that is not the last': [
      {
        runs: [
          { messages: [user('u1'), assistant('a1')], interrupts: [{ id: 'int-1', reason: 'confirmation' }] },
          { messages: [user('u2'), assistant('a2')] },
        ],
      },
      'runs[0].interrupts',
    ],
    'an unknown role': [{ messages: [user('u1'), { id: 'r1', role: 'robot', content: 'beep' }] }, 'messages[1].role'],
    'error and interrupts on one run': [{ messages: [user('u1'), assistant('a1')], error: { message: 'boom' }, interrupts: [{ id: 'int-1', reason: 'confirmation' }] }, 'interrupts'],
    'a scenario that does not pause where the thread waits': [{ messages: [user('u1'), assistant('a1')], interrupts: [{ id: 'int-1', reason: 'confirmation' }], scenario: 'greeting' }, 'scenario'],
  };
  for (const [name, [body, field]] of Object.entries(cases)) {
    test(name, async () => {
      const testId = newTestId('bad-seed');
      const answer = await admin(mock, 'POST', '/threads', { testId, body: { threadId: newThread('bad'), ...body } });
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.equal(answer.body.error, 'invalid_input');
      assert.equal(answer.body.field, field, answer.body.message);
      assert.equal(typeof answer.body.message, 'string');
    });
  }
});
