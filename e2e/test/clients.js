// The two @ag-ui/client versions every test runs against, and a small wrapper that runs
// conversation turns through their real HttpAgent and records what the client saw.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import * as current from '@ag-ui/client';
import * as legacy from 'ag-ui-client-0.0.58';

const require = createRequire(import.meta.url);

/** The route a run is posted to when a scenario example names none. */
export const DEFAULT_ROUTE = '/agui/chat';

/** The request header that overrides the server's speed factor; 0 plays without delays. */
export const SPEED_HEADER = 'X-Agui-Mock-Speed';

/** The media type of AG-UI's protobuf transport, which HttpAgent decodes when a response carries it. */
export const PROTO_MEDIA_TYPE = 'application/vnd.ag-ui.event+proto';

/**
 * A fetch for HttpAgent that asks for the protobuf transport, as an app does that
 * prefers it: HttpAgent itself sends Accept: text/event-stream, and decodes whichever
 * transport the response's Content-Type names.
 */
export function protobufFetch(url, init) {
  return fetch(url, { ...init, headers: { ...init.headers, Accept: `${PROTO_MEDIA_TYPE}, text/event-stream` } });
}

/**
 * The client versions under test. protocolVersion is what the client sends in
 * RunAgentInput.protocolVersion (0.0.x clients send none); peer is how the server names
 * such a client in its logs.
 */
export const CLIENTS = [
  {
    version: require('@ag-ui/client/package.json').version,
    HttpAgent: current.HttpAgent,
    protocolVersion: current.PROTOCOL_VERSION,
    peer: current.PROTOCOL_VERSION,
  },
  {
    version: require('ag-ui-client-0.0.58/package.json').version,
    HttpAgent: legacy.HttpAgent,
    protocolVersion: undefined,
    peer: '0.0.x',
  },
].map((client) => ({ ...client, label: `@ag-ui/client ${client.version}` }));

// Guard against an install that resolved something other than the pinned versions.
assert.deepEqual(
  CLIENTS.map((c) => [c.version, c.protocolVersion]),
  [
    ['1.0.0', '1.0'],
    ['0.0.58', undefined],
  ],
);

/** Tool definitions for the given tool names (or definitions, kept), in the shape HttpAgent sends them. */
export function toolDefinitions(names = []) {
  return names.map((tool) =>
    typeof tool === 'string'
      ? {
          name: tool,
          description: `The ${tool} tool`,
          parameters: { type: 'object', properties: {} },
        }
      : tool,
  );
}

/**
 * One HttpAgent of one client version, talking to one route. Each send() adds a user
 * message to the agent's conversation and runs the agent once; continue() runs it once
 * without adding one.
 */
export class Conversation {
  /**
   * @param client  one of CLIENTS
   * @param url     the server's base URL
   * @param route   the run route, DEFAULT_ROUTE unless given
   * @param headers extra request headers
   * @param speed   the X-Agui-Mock-Speed header value; null sends none (real timing)
   * @param state   the agent's initial state
   * @param threadId the agent's thread id, e.g. to pick up a thread another agent began
   * @param transport 'proto' asks for the protobuf transport (protobufFetch); SSE otherwise
   */
  constructor(client, { url, route = DEFAULT_ROUTE, headers = {}, speed = 0, state, threadId, transport } = {}) {
    this.client = client;
    this.agent = new client.HttpAgent({
      url: url + route,
      headers: speed === null ? headers : { ...headers, [SPEED_HEADER]: String(speed) },
      initialState: state,
      threadId,
      ...(transport === 'proto' && { fetch: protobufFetch }),
    });
  }

  /**
   * Sends a user message and resolves when the run is over, never rejecting. The result
   * records the run: runId, userMessage, events (as the client's subscribers saw them),
   * startedAt (performance.now() when runAgent was called), arrivals (performance.now()
   * of each event), input (the RunAgentInput the client built), result (runAgent's
   * result), failure (the error passed to onRunFailed), rejection (what runAgent
   * rejected with) and consoleCalls (what the client wrote to console.warn and
   * console.error meanwhile; a clean run writes nothing).
   *
   * onEvent(event, agent) is called for every event, e.g. to abort the run.
   */
  async send(message, options = {}) {
    const { messageId = `user-${randomUUID()}` } = options;
    const userMessage = { id: messageId, role: 'user', content: message };
    this.agent.messages = [...this.agent.messages, userMessage];
    return this.continue({ ...options, userMessage });
  }

  /**
   * Runs the agent once more without adding a message, as an app does to answer
   * interrupts (resume) or after it added the results of frontend tools itself. Resolves
   * like send(); the result also has finished, what the onRunFinishedEvent subscriber
   * was given ({outcome, interrupts, result, pendingToolCallIds}).
   */
  async continue(options = {}) {
    const { runId = `run-${randomUUID()}`, forwardedProps, context, tools, resume, onEvent, userMessage } = options;
    const { agent } = this;
    const run = { client: this.client, agent, runId, userMessage, events: [], arrivals: [], consoleCalls: [] };
    const subscriber = {
      onRunInitialized: ({ input }) => {
        run.input = structuredClone(input);
      },
      onEvent: ({ event }) => {
        run.events.push(event);
        run.arrivals.push(performance.now());
        onEvent?.(event, agent);
      },
      onRunFinishedEvent: ({ outcome, interrupts, result, pendingToolCallIds }) => {
        run.finished = { outcome, interrupts, result, pendingToolCallIds };
      },
      onRunFailed: ({ error }) => {
        run.failure = error;
      },
    };
    const restoreConsole = captureConsole(run.consoleCalls);
    try {
      const input = { runId, forwardedProps, context, tools: toolDefinitions(tools), ...(resume && { resume }) };
      run.startedAt = performance.now();
      const { result } = await agent.runAgent(input, subscriber);
      run.result = result;
    } catch (err) {
      run.rejection = err;
    } finally {
      restoreConsole();
    }
    return run;
  }
}

/** Sends console.warn and console.error calls into calls until the returned function is called. */
function captureConsole(calls) {
  const saved = { warn: console.warn, error: console.error };
  for (const level of Object.keys(saved)) {
    console[level] = (...args) => calls.push({ level, args });
  }
  return () => Object.assign(console, saved);
}

/** The events of a run with the given type. */
export function eventsOf(run, type) {
  return run.events.filter((e) => e.type === type);
}

/** The types of the events in order, each run of one type collapsed to one entry. */
export function typeSequence(events) {
  return events.map((e) => e.type).filter((type, i, types) => type !== types[i - 1]);
}

/** The agent's messages with the given role. */
export function messagesOf(run, role) {
  return run.agent.messages.filter((m) => m.role === role);
}

/**
 * Asserts what holds for every run that did not fail: nothing failed or rejected, the
 * client built the input as expected, and the events start with RUN_STARTED and end with
 * RUN_FINISHED or RUN_ERROR, carrying the agent's thread id and the request's run id,
 * each with an integer timestamp. The client must not have warned about anything.
 */
export function assertCleanRun(run, options = {}) {
  const declared = 'declared' in options ? options.declared : run.client.protocolVersion;
  const { agent, client } = run;
  assert.equal(run.failure, undefined, `onRunFailed was called: ${run.failure}`);
  assert.equal(run.rejection, undefined, `runAgent rejected: ${run.rejection}`);
  assert.deepEqual(run.consoleCalls, [], 'the client wrote warnings or errors');

  assert.equal(run.input.runId, run.runId);
  assert.equal(run.input.threadId, agent.threadId);
  assert.equal(run.input.protocolVersion, client.protocolVersion);

  const first = run.events[0];
  const last = run.events.at(-1);
  assert.equal(first?.type, 'RUN_STARTED', `first event: ${JSON.stringify(first)}`);
  assert.equal(first.threadId, agent.threadId);
  assert.equal(first.runId, run.runId);
  assert.equal(first.protocolVersion, declared, 'RUN_STARTED declares the negotiated version (a replay: the recorded one)');
  assert.ok(['RUN_FINISHED', 'RUN_ERROR'].includes(last.type), `last event: ${JSON.stringify(last)}`);
  if (last.type === 'RUN_FINISHED') {
    assert.equal(last.threadId, agent.threadId);
    assert.equal(last.runId, run.runId);
  }
  for (const event of run.events) {
    assert.ok(Number.isInteger(event.timestamp), `${event.type} has timestamp ${event.timestamp}`);
  }
}
