// @agui-mock/copilotkit (clients/copilotkit) in a team's own CopilotKit runtime: a real
// CopilotRuntime 1.75 whose agent is the team's "real" one — an HttpAgent to a URL where
// nothing listens — with AguiMockRunner as its runner and aguiMockHooks (or, through
// withAguiMock, aguiMockMiddleware) on its endpoint, served over Node's http as an app's
// runtime route would be; and the client a CopilotKit app runs (@copilotkit/core)
// talking to it with its test's X-Test-Id. Runs, restores, stops and the thread routes
// all reach the mock through the team's runtime, and nothing reaches the team's agent.
//
// The kit is imported from its build: `cd clients/copilotkit && npm ci && npm run build`.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CopilotRuntime, createCopilotEndpoint, createCopilotEndpointSingleRoute } from '@copilotkit/runtime/v2';
import { agentOf, CopilotKitCore, serveFetch } from './copilotkit.js';
import { adminOK, journalEntries, journalEntry, newTestId, runInput, TEST_ID_HEADER } from './admin.js';
import { SPEED_HEADER } from './clients.js';
import { REPO_ROOT, useServer, writeTempFiles } from './harness.js';

const KIT = '../../clients/copilotkit/dist/index.js';
const { AguiMockRunner, aguiMockHooks, withAguiMock } = await import(KIT).catch((err) => {
  throw new Error(`@agui-mock/copilotkit is not built (cd clients/copilotkit && npm ci && npm run build): ${err.message}`);
});

// The team's agent: an HttpAgent of the runtime's own @ag-ui/client, to port 9 (discard),
// which fetch refuses to call: a run that reached the agent itself would fail.
const runtimeRequire = createRequire(createRequire(import.meta.url).resolve('@copilotkit/runtime/package.json'));
const { HttpAgent } = await import(runtimeRequire.resolve('@ag-ui/client'));
const TEAM_AGENT_URL = 'http://127.0.0.1:9/agent';
const BASE_PATH = '/api/copilotkit';

const GREETING = 'id: greeting\nmatch: {message: ^Hello}\nsteps: [{text: Hello from the mock.}]\n';
// the team's second agent has scenarios of its own
const RESEARCHER = 'id: researcher-notes\nmatch: {agent: researcher}\nsteps: [{text: "Researcher here: {{ .message }}"}]\n';
const A2UI = readFileSync(path.join(REPO_ROOT, 'examples', 'a2ui-surface.yaml'), 'utf8');
// two answers; a breakpoint before the second holds the run half-way
const SLOW = `\
id: slow
match: {message: ^Take your time}
steps:
  - text: Let me think.
  - text: Done thinking.
    id: second
`;
const mock = useServer([
  '--scenarios',
  writeTempFiles({ 'greeting.yaml': GREETING, 'slow.yaml': SLOW, 'researcher.yaml': RESEARCHER, 'a2ui.yaml': A2UI }),
]);

/** A runtime's options as a team's app has them: its agents, its own middleware. */
function teamOptions(seen = []) {
  return {
    agents: { default: new HttpAgent({ url: TEAM_AGENT_URL }), researcher: new HttpAgent({ url: TEAM_AGENT_URL }) },
    // the team's own middleware, which must still see every request
    beforeRequestMiddleware: ({ path }) => void seen.push(path),
  };
}


/** The team's runtime (more options: runtimeOptions) with the kit's runner and hooks, pointed at mockUrl. */
async function kitRuntime(mockUrl, seen, runtimeOptions = {}) {
  const runner = new AguiMockRunner({ url: mockUrl });
  const runtime = new CopilotRuntime({ ...teamOptions(seen), ...runtimeOptions, runner });
  const served = await serveFetch(createCopilotEndpoint({ runtime, basePath: BASE_PATH, hooks: aguiMockHooks({ url: mockUrl }) }), BASE_PATH);
  return { ...served, runner };
}


/**
 * A CopilotKit app's client of the runtime at url, for a test: its X-Test-Id (and speed
 * 0) on every request, the runtime's agent agentId (default) on threadId (a new one
 * unless given), and what it was told of runs (errors, RUN_ERROR events).
 */
async function app(url, testId, { threadId = `kit-${randomUUID()}`, agentId = 'default' } = {}) {
  const core = new CopilotKitCore({ runtimeUrl: url, headers: { [TEST_ID_HEADER]: testId, [SPEED_HEADER]: '0' } });
  const agent = await agentOf(core, agentId);
  agent.threadId = threadId;
  const seen = { errors: [], runErrors: [] };
  agent.subscribe({
    onRunFailed: ({ error }) => seen.errors.push(error),
    onRunErrorEvent: ({ event }) => seen.runErrors.push(event),
  });
  return {
    core,
    agent,
    seen,
    async say(content, forwardedProps) {
      agent.addMessage({ id: `user-${randomUUID()}`, role: 'user', content });
      await core.runAgent({ agent, forwardedProps });
    },
    /** The texts of the conversation: [role, content] of each message with text. */
    conversation() {
      return agent.messages.filter((m) => typeof m.content === 'string' && m.content).map((m) => [m.role, m.content]);
    },
  };
}

/** Seeds a thread on the mock for a test: a user message, the answer, and state. */
async function seedThread(testId, threadId = `seeded-${randomUUID()}`) {
  await adminOK(
    mock,
    'POST',
    '/threads',
    {
      testId,
      body: {
        threadId,
        messages: [
          { id: 'seed-user', role: 'user', content: 'What is on the list?' },
          { id: 'seed-answer', role: 'assistant', content: 'Milk and eggs.' },
        ],
        state: { items: ['milk', 'eggs'] },
      },
    },
    201,
  );
  return threadId;
}

/** The AG-UI events of an SSE answer's text. */
const eventsOf = (text) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)));

/** The text an SSE answer's TEXT_MESSAGE_CONTENT events spell. */
const textOf = (text) =>
  eventsOf(text)
    .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')
    .map((e) => e.delta)
    .join('');

/** GETs a route of the runtime as the app's browser would, with the test's X-Test-Id. */
async function getJSON(url, testId) {
  const res = await fetch(url, { headers: { [TEST_ID_HEADER]: testId } });
  const text = await res.text();
  assert.match(res.headers.get('content-type') ?? '', /json/, `GET ${url}: ${res.status} ${text}`);
  return { status: res.status, body: JSON.parse(text) };
}

describe('a team runtime with AguiMockRunner and aguiMockHooks', () => {
  let runtime;
  const seen = [];
  before(async () => {
    runtime = await kitRuntime(mock.url, seen);
  });
  after(() => runtime?.close());

  test("a run plays the mock's scenario, on the mock's runtime route, with the app's X-Test-Id", async () => {
    const testId = newTestId('kit-run');
    const { say, conversation, seen: told, agent } = await app(runtime.url, testId);
    await say('Hello!');
    assert.deepEqual(told.errors, []);
    assert.deepEqual(told.runErrors, []);
    assert.deepEqual(conversation(), [
      ['user', 'Hello!'],
      ['assistant', 'Hello from the mock.'],
    ]);
    const entries = await journalEntries(mock, { thread: agent.threadId }, testId);
    assert.deepEqual(
      entries.map((e) => [e.method, e.path, e.scenario, e.outcome]),
      [['POST', '/copilotkit/agent/default/run', 'greeting', 'success']],
      'the run went to the mock, under the test',
    );
    assert.ok(seen.some((p) => p.endsWith('/agent/default/run')), "the team's middleware saw the run");
    assert.equal(await runtime.runner.isRunning({ threadId: agent.threadId }), false);
  });

  test('a thread seeded on the mock is restored by connectAgent through the runtime: messages and state', async () => {
    const testId = newTestId('kit-restore');
    const threadId = await seedThread(testId);
    const { core, agent, conversation, seen: told } = await app(runtime.url, testId, { threadId });
    await core.connectAgent({ agent });
    assert.deepEqual(told.runErrors, []);
    assert.deepEqual(conversation(), [
      ['user', 'What is on the list?'],
      ['assistant', 'Milk and eggs.'],
    ]);
    assert.deepEqual(agent.state, { items: ['milk', 'eggs'] });

    // and the conversation goes on from there, on the mock's thread
    agent.addMessage({ id: `user-${randomUUID()}`, role: 'user', content: 'Hello again' });
    await core.runAgent({ agent });
    assert.deepEqual(conversation().at(-1), ['assistant', 'Hello from the mock.']);
    const { body } = await getJSON(`${runtime.url}/threads/${threadId}/messages`, testId);
    assert.deepEqual(
      body.messages.map((m) => m.content),
      ['What is on the list?', 'Milk and eggs.', 'Hello again', 'Hello from the mock.'],
    );
  });

  test('stopping through the runtime stops the run on the mock, and the journal says cancelled', async () => {
    const testId = newTestId('kit-stop');
    const breakpoint = await adminOK(mock, 'POST', '/breakpoints', { testId, body: { scenario: 'slow', step: 'second' } }, 201);
    const { core, agent, say, conversation } = await app(runtime.url, testId);
    const running = say('Take your time');
    const held = await adminOK(mock, 'GET', `/breakpoints/${breakpoint.id}?wait=10s`);
    assert.equal(held.threadId, agent.threadId);
    assert.equal(await runtime.runner.isRunning({ threadId: agent.threadId }), true);

    core.stopAgent({ agent }); // POST {runtime}/agent/default/stop/:threadId with the run's id
    await running.catch(() => {}); // how a stopped run ends for the app is the mock's to mirror
    const entry = await journalEntry(mock, (e) => e.path === '/copilotkit/agent/default/run' && e.threadId === agent.threadId, { testId });
    assert.equal(entry.outcome, 'cancelled', JSON.stringify(entry));
    const stop = await journalEntry(mock, (e) => e.path === `/copilotkit/agent/default/stop/${agent.threadId}`, { testId });
    assert.equal(stop.status, 200);
    assert.equal(stop.request?.runId, held.runId, 'the stop named the run in its body');
    assert.deepEqual(conversation(), [
      ['user', 'Take your time'],
      ['assistant', 'Let me think.'],
    ]);
    assert.equal(await runtime.runner.isRunning({ threadId: agent.threadId }), false);

    // a second stop finds nothing to stop, as the runtime says
    const res = await fetch(`${runtime.url}/agent/default/stop/${agent.threadId}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [TEST_ID_HEADER]: testId },
      body: '{}',
    });
    assert.deepEqual(await res.json(), { stopped: false, message: `No active run for thread '${agent.threadId}'.` });
  });

  test('a run goes on when its page goes away, and a reload joins it on the mock', async () => {
    const testId = newTestId('kit-reload');
    const threadId = `kit-${randomUUID()}`;
    const breakpoint = await adminOK(mock, 'POST', '/breakpoints', { testId, body: { scenario: 'slow', step: 'second' } }, 201);
    // the page sends the run, reads its first event, and is gone
    const gone = new AbortController();
    const res = await fetch(`${runtime.url}/agent/default/run`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', [SPEED_HEADER]: '0', [TEST_ID_HEADER]: testId },
      body: JSON.stringify(runInput('Take your time', { threadId })),
      signal: gone.signal,
    });
    assert.equal(res.status, 200);
    const reader = res.body.getReader();
    assert.match(new TextDecoder().decode((await reader.read()).value), /RUN_STARTED/);
    await adminOK(mock, 'GET', `/breakpoints/${breakpoint.id}?wait=10s`);
    gone.abort();
    assert.equal(await runtime.runner.isRunning({ threadId }), true, 'the run goes on without its page');

    // the reloaded page restores the thread: the run so far, then, once released, the rest
    const reloaded = await app(runtime.url, testId, { threadId });
    const shown = new Promise((resolve) => {
      reloaded.agent.subscribe({
        onMessagesChanged: ({ messages }) => messages.some((m) => m.content === 'Let me think.') && resolve(),
      });
    });
    const restored = reloaded.core.connectAgent({ agent: reloaded.agent });
    await shown;
    assert.equal(await runtime.runner.isRunning({ threadId }), true, 'the restore met the run while it was still held');
    await adminOK(mock, 'POST', `/breakpoints/${breakpoint.id}/release`);
    await restored;
    assert.deepEqual(reloaded.conversation(), [
      ['user', 'Take your time'],
      ['assistant', 'Let me think.'],
      ['assistant', 'Done thinking.'],
    ]);
    const entry = await journalEntry(mock, (e) => e.path === '/copilotkit/agent/default/run' && e.threadId === threadId, { testId });
    assert.equal(entry.outcome, 'success');
  });

  test("the runtime's thread routes answer from the mock: list, messages, state, clear", async () => {
    const testId = newTestId('kit-threads');
    const threadId = await seedThread(testId);
    const list = await getJSON(`${runtime.url}/threads?agentId=default`, testId);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.threads.map((t) => [t.id, t.agentId]),
      [[threadId, 'default']],
    );
    assert.equal(list.body.nextCursor, null);
    const messages = await getJSON(`${runtime.url}/threads/${threadId}/messages`, testId);
    assert.deepEqual(messages.body.messages, [
      { id: 'seed-user', role: 'user', content: 'What is on the list?' },
      { id: 'seed-answer', role: 'assistant', content: 'Milk and eggs.' },
    ]);
    assert.deepEqual((await getJSON(`${runtime.url}/threads/${threadId}/state`, testId)).body, { state: { items: ['milk', 'eggs'] } });
    const events = await getJSON(`${runtime.url}/threads/${threadId}/events`, testId);
    assert.deepEqual(
      events.body.events.map((e) => e.type),
      ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'STATE_SNAPSHOT', 'RUN_FINISHED'],
    );
    assert.deepEqual((await getJSON(`${runtime.url}/threads?agentId=other`, testId)).body.threads, []);

    // the runtime's /info offers the thread routes, which the runner's flag allows
    const info = await getJSON(`${runtime.url}/info`, testId);
    assert.deepEqual(info.body.threadEndpoints, { list: true, inspect: true, mutations: false, realtimeMetadata: false });

    const cleared = await fetch(`${runtime.url}/threads/clear`, { method: 'POST', headers: { [TEST_ID_HEADER]: testId } });
    assert.equal(cleared.status, 204);
    assert.deepEqual((await getJSON(`${runtime.url}/threads?agentId=default`, testId)).body.threads, []);
  });

  test("two tests never see each other's threads", async () => {
    const mine = newTestId('kit-mine');
    const theirs = newTestId('kit-theirs');
    const threadId = await seedThread(mine);
    await seedThread(theirs, `theirs-${randomUUID()}`);

    const listed = (await getJSON(`${runtime.url}/threads?agentId=default`, theirs)).body.threads.map((t) => t.id);
    assert.ok(!listed.includes(threadId), `their list holds my thread: ${listed}`);
    assert.equal(listed.length, 1);
    assert.deepEqual((await getJSON(`${runtime.url}/threads/${threadId}/messages`, theirs)).body, { messages: [] });

    // restoring my thread under their id finds nothing; under mine, the conversation
    const other = await app(runtime.url, theirs, { threadId });
    await other.core.connectAgent({ agent: other.agent });
    assert.deepEqual(other.conversation(), []);
    const own = await app(runtime.url, mine, { threadId });
    await own.core.connectAgent({ agent: own.agent });
    assert.equal(own.conversation().length, 2);
  });

  test("suggestions come from the mock's suggest route; an agent the runtime lacks gets the runtime's 404", async () => {
    const testId = newTestId('kit-suggest');
    const threadId = `suggest-${randomUUID()}`;
    const suggest = (agent) =>
      fetch(`${runtime.url}/agent/${agent}/suggest`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [SPEED_HEADER]: '0', [TEST_ID_HEADER]: testId },
        body: JSON.stringify(runInput('Hello', { threadId })),
      });
    const res = await suggest('default');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/event-stream/);
    const stream = await res.text();
    assert.equal(textOf(stream), 'Hello from the mock.');
    assert.equal(eventsOf(stream).at(-1).type, 'RUN_FINISHED');
    const [entry] = await journalEntries(mock, { thread: threadId }, testId);
    assert.equal(entry.path, '/copilotkit/agent/default/suggest');

    const unknown = await suggest('nobody');
    assert.equal(unknown.status, 404);
    assert.deepEqual(await unknown.json(), { error: 'Agent not found', message: "Agent 'nobody' does not exist" });
  });

  test("the team's other agent runs on the mock under its own id, and its scenarios match it", async () => {
    const testId = newTestId('kit-agent');
    const { say, conversation, seen: told, agent } = await app(runtime.url, testId, { agentId: 'researcher' });
    await say('What do we know about waves?');
    assert.deepEqual(told.runErrors, []);
    assert.deepEqual(conversation().at(-1), ['assistant', 'Researcher here: What do we know about waves?']);
    const [entry] = await journalEntries(mock, { thread: agent.threadId }, testId);
    assert.equal(entry.path, '/copilotkit/agent/researcher/run');
    const list = await getJSON(`${runtime.url}/threads?agentId=researcher`, testId);
    assert.deepEqual(
      list.body.threads.map((t) => [t.id, t.agentId]),
      [[agent.threadId, 'researcher']],
    );
  });
});

test("the runtime's agent middleware still applies: an A2UI action reaches the mock as the runtime's A2UI middleware writes it", async (t) => {
  const runtime = await kitRuntime(mock.url, [], { a2ui: {} });
  t.after(() => runtime.close());
  const testId = newTestId('kit-a2ui');
  const { core, agent, say, conversation, seen: told } = await app(runtime.url, testId);
  await say('Book a table for two tonight');
  assert.deepEqual(told.runErrors, []);
  const surfaces = () => agent.messages.filter((m) => m.role === 'activity' && m.activityType === 'a2ui-surface');
  assert.equal(surfaces().length, 1, JSON.stringify(agent.messages));

  // what CopilotKit's A2UI renderer sends when the user presses Confirm
  const userAction = { name: 'confirm_booking', surfaceId: 'booking', sourceComponentId: 'confirm', context: { time: '19:30' } };
  await core.runAgent({ agent, forwardedProps: { a2uiAction: { userAction } } });
  assert.deepEqual(told.runErrors, []);
  assert.equal(conversation().at(-1)[1], 'Booked for 19:30.');
  const [entry] = await journalEntries(mock, { thread: agent.threadId, scenario: 'a2ui-booking-confirmed' }, testId);
  const tool = entry.request.messages.findLast((m) => m.role === 'tool');
  assert.match(tool.content, /^User performed action "confirm_booking" on surface "booking" \(component: confirm\)/);
});

describe('a team runtime with withAguiMock (runner and middleware in the runtime options)', () => {
  let runtime;
  const seen = [];
  before(async () => {
    const options = withAguiMock(teamOptions(seen), { url: mock.url });
    runtime = await serveFetch(createCopilotEndpoint({ runtime: new CopilotRuntime(options), basePath: BASE_PATH }), BASE_PATH);
  });
  after(() => runtime?.close());

  test('runs, restores and lists threads from the mock, after the own middleware', async () => {
    const testId = newTestId('kit-with');
    const threadId = await seedThread(testId);
    const list = await getJSON(`${runtime.url}/threads?agentId=default`, testId);
    assert.deepEqual(
      list.body.threads.map((t) => t.id),
      [threadId],
    );
    assert.ok(seen.some((p) => p.endsWith('/threads')), "the team's middleware ran first");

    const { core, agent, conversation, say } = await app(runtime.url, testId, { threadId });
    await core.connectAgent({ agent });
    await say('Hello');
    assert.deepEqual(conversation(), [
      ['user', 'What is on the list?'],
      ['assistant', 'Milk and eggs.'],
      ['user', 'Hello'],
      ['assistant', 'Hello from the mock.'],
    ]);
  });
});

describe('the single-route endpoint: thread routes through resource/request envelopes', () => {
  const runtimes = [];
  after(() => Promise.all(runtimes.map((r) => r.close())));

  for (const variant of ['hooks', 'middleware']) {
    test(`with ${variant}`, async () => {
      const options = variant === 'hooks' ? { ...teamOptions(), runner: new AguiMockRunner({ url: mock.url }) } : withAguiMock(teamOptions(), { url: mock.url });
      const endpoint = createCopilotEndpointSingleRoute({
        runtime: new CopilotRuntime(options),
        basePath: BASE_PATH,
        ...(variant === 'hooks' ? { hooks: aguiMockHooks({ url: mock.url }) } : {}),
      });
      const runtime = await serveFetch(endpoint, BASE_PATH);
      runtimes.push(runtime);
      const testId = newTestId(`kit-single-${variant}`);
      const threadId = await seedThread(testId);
      const envelope = (method, params, body) =>
        fetch(runtime.url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', [SPEED_HEADER]: '0', [TEST_ID_HEADER]: testId },
          body: JSON.stringify({ method, params, body }),
        });
      const call = async (params) => {
        const res = await envelope('resource/request', params);
        return { status: res.status, body: await res.json() };
      };
      const list = await call({ path: '/threads?agentId=default', httpMethod: 'GET' });
      assert.equal(list.status, 200, JSON.stringify(list.body));
      assert.deepEqual(
        list.body.threads.map((t) => t.id),
        [threadId],
      );
      const state = await call({ path: `/threads/${threadId}/state`, httpMethod: 'GET' });
      assert.deepEqual(state.body, { state: { items: ['milk', 'eggs'] } });

      // a suggestion's envelope carries its input as its body
      const input = runInput('Hello', { threadId: `suggest-${randomUUID()}` });
      const suggested = await envelope('agent/suggest', { agentId: 'default' }, input);
      assert.equal(suggested.status, 200);
      assert.equal(textOf(await suggested.text()), 'Hello from the mock.');
      const [entry] = await journalEntries(mock, { thread: input.threadId }, testId);
      assert.equal(entry.path, '/copilotkit/agent/default/suggest');
    });
  }
});

describe('an unreachable mock', () => {
  let runtime;
  let down; // a loopback port where nothing listens any more
  before(async () => {
    // the port is held until the runtime listens, so that the runtime cannot take it
    const held = http.createServer();
    await new Promise((resolve) => held.listen(0, '127.0.0.1', resolve));
    down = `http://127.0.0.1:${held.address().port}`;
    runtime = await kitRuntime(down);
    await new Promise((resolve) => held.close(resolve));
  });
  after(() => runtime?.close());

  test("a run ends with a RUN_ERROR that names the mock's URL", async () => {
    const { say, seen } = await app(runtime.url, newTestId('kit-down'));
    await say('Hello!').catch(() => {}); // the core may reject as well as report it
    assert.equal(seen.runErrors.length, 1, `RUN_ERROR events: ${JSON.stringify(seen.runErrors)}`);
    assert.equal(seen.runErrors[0].code, 'AGUI_MOCK_UNREACHABLE');
    assert.ok(seen.runErrors[0].message.startsWith(`could not reach agui-mock at ${down}/copilotkit/agent/default/run: `), seen.runErrors[0].message);
    assert.match(seen.runErrors[0].message, /ECONNREFUSED/);
  });

  test('a restore ends with a RUN_ERROR, and the thread routes answer 502, naming the URL', async () => {
    const testId = newTestId('kit-down');
    const { core, agent, seen } = await app(runtime.url, testId);
    await core.connectAgent({ agent }).catch(() => {});
    assert.equal(seen.runErrors.length, 1, `RUN_ERROR events: ${JSON.stringify(seen.runErrors)}`);
    assert.ok(seen.runErrors[0].message.startsWith(`could not reach agui-mock at ${down}/copilotkit/agent/default/connect: `), seen.runErrors[0].message);

    const list = await getJSON(`${runtime.url}/threads?agentId=default`, testId);
    assert.equal(list.status, 502);
    assert.ok(list.body.message.startsWith(`could not reach agui-mock at ${down}/copilotkit/threads?agentId=default: `), list.body.message);

    // a stop of the thread the restore named asks the mock, and says why it could not
    const res = await fetch(`${runtime.url}/agent/default/stop/${agent.threadId}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [TEST_ID_HEADER]: testId },
      body: '{}',
    });
    assert.equal(res.status, 500);
    const body = await res.json();
    assert.equal(body.error, 'Failed to stop agent');
    assert.ok(body.message.startsWith(`could not reach agui-mock at ${down}/copilotkit/agent/default/stop/${agent.threadId}: `), body.message);
  });
});
