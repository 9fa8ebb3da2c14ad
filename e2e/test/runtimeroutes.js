// Helpers for the tests of the CopilotKit runtime's routes the mock serves itself
// (copilotkit-runtime.test.js): a CopilotKit app's client (@copilotkit/core) on a runtime
// URL, what it holds after a connect, the raw SSE of a runtime route, ids masked so that
// two servers' answers to the same conversation can be compared, and a real runtime
// mounted in single-route mode.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
// first: it gives the core its window, and turns the runtime's telemetry off
import { agentOf, CopilotKitCore, serveFetch } from './copilotkit.js';

export { agentOf };
import { CopilotRuntime, createCopilotEndpointSingleRoute } from '@copilotkit/runtime/v2';
import { ProxiedCopilotRuntimeAgent, ɵInterruptState as InterruptState } from '@copilotkit/core';
import { SPEED_HEADER } from './clients.js';
import { eventually } from './harness.js';
import { TEST_ID_HEADER } from './admin.js';

/** How long a test waits for something the client does before it fails (never asserted as a duration). */
const WAIT_MS = 15_000;


/** Resolves once the core's runtime connection has settled (connected or failed), with its status. */
export function settled(core) {
  const done = () => ['connected', 'error'].includes(String(core.runtimeConnectionStatus).toLowerCase());
  if (done()) return Promise.resolve(core.runtimeConnectionStatus);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the core's runtime connection did not settle (${core.runtimeConnectionStatus})`)), WAIT_MS);
    const subscription = core.subscribe({
      onRuntimeConnectionStatusChanged: ({ status }) => {
        if (!done()) return;
        clearTimeout(timer);
        subscription.unsubscribe();
        resolve(status);
      },
    });
  });
}

/**
 * Follows an agent as CopilotKit's useInterrupt does (react-core 1.74): a run start
 * clears the interrupt; a run's interrupt outcome (standard dialect) or its on_interrupt
 * custom event (LangGraph dialect) becomes the pending interrupt when the run, or the
 * connect that replays it, is over. state is the core's ɵInterruptState, which builds the
 * answer; runId is the run whose answer resumes it, as useInterrupt passes it.
 */
export function followInterrupts(agent) {
  const seen = { state: new InterruptState(), runId: undefined };
  let legacy = null;
  let standard = null;
  agent.subscribe({
    onCustomEvent: ({ event }) => {
      if (event.name === 'on_interrupt') legacy = { name: event.name, value: event.value };
    },
    onRunFinishedEvent: (params) => {
      if (params.outcome === 'interrupt') {
        standard = params.interrupts;
        seen.runId = params.input.runId;
      }
    },
    onRunStartedEvent: () => {
      legacy = null;
      standard = null;
      seen.state.clear();
    },
    onRunFinalized: (params) => {
      if (standard?.length > 0) seen.state.setStandard(standard);
      else if (legacy) {
        seen.runId = params.input.runId;
        seen.state.setLegacy(legacy);
      }
      legacy = null;
      standard = null;
    },
    onRunFailed: () => {
      legacy = null;
      standard = null;
      seen.state.clear();
    },
  });
  return seen;
}

/**
 * A CopilotKit app's client on runtimeUrl: a core with the given headers (X-Test-Id when
 * testId is given, and X-Agui-Mock-Speed 0, which the mock's run route reads and a real
 * runtime forwards to its agent) and transport (auto, rest or single), the runtime's agent
 * agentId on thread threadId, the interrupt as useInterrupt would show it, and the errors
 * the core reports.
 */
export async function ckApp(runtimeUrl, { testId, threadId, agentId = 'default', headers = {}, transport = 'auto' } = {}) {
  const core = new CopilotKitCore({
    runtimeUrl,
    runtimeTransport: transport,
    headers: { [SPEED_HEADER]: '0', ...(testId ? { [TEST_ID_HEADER]: testId } : {}), ...headers },
  });
  const errors = [];
  core.subscribe({ onError: ({ error, code }) => errors.push({ code, message: error?.message, status: error?.status, payload: error?.payload }) });
  const agent = await agentOf(core, agentId);
  if (threadId) agent.threadId = threadId;
  const interrupts = followInterrupts(agent);
  const events = [];
  agent.subscribe({ onEvent: ({ event }) => void events.push(event) });
  return {
    core,
    agent,
    errors,
    interrupts,
    events,
    /** Adds a user message and runs the agent, as the chat's send does. */
    async say(content, forwardedProps) {
      agent.addMessage({ id: `user-${crypto.randomUUID()}`, role: 'user', content });
      await core.runAgent({ agent, forwardedProps });
    },
    /**
     * Answers the pending interrupt with the action the interrupt state built (answer
     * gets the state and the pending interrupt), as useInterrupt's resolve does: on the
     * run that raised it, with a tool message for each tool-bound interrupt.
     */
    async resume(answer) {
      const action = answer(interrupts.state, interrupts.state.pending);
      const runId = interrupts.runId;
      interrupts.state.clear();
      if (action.kind === 'legacy-resume') {
        await core.runAgent({ agent, runId, forwardedProps: { command: { resume: action.payload, interruptEvent: action.interruptValue } } });
        return;
      }
      assert.equal(action.kind, 'resume', `the interrupt state answered ${JSON.stringify(action)}`);
      for (const { toolCallId, content } of action.toolResults) agent.addMessage({ id: `tool-${crypto.randomUUID()}`, role: 'tool', toolCallId, content });
      await core.runAgent({ agent, runId, resume: action.resume });
    },
    /** Restores the thread as the chat does on a page load: the core's connectAgent. */
    connect: () => core.connectAgent({ agent }),
    /** The texts of the assistant's messages, as the chat shows them. */
    texts: () => agent.messages.filter((m) => m.role === 'assistant' && m.content).map((m) => m.content),
  };
}

/**
 * An agent of the runtime that the runtime's /info does not list, as useAgent creates
 * one for an agent id while the runtime connects (a provisional ProxiedCopilotRuntimeAgent
 * of the core's transport, its runtime mode still pending).
 */
export function unlistedAgent(core, agentId, threadId) {
  const agent = new ProxiedCopilotRuntimeAgent({
    runtimeUrl: core.runtimeUrl,
    agentId,
    transport: core.runtimeTransport,
    runtimeMode: 'pending',
  });
  core.applyHeadersToAgent(agent);
  agent.threadId = threadId;
  return agent;
}

/**
 * Resolves once predicate(agent) holds. It is checked every few milliseconds: an agent
 * hands each run's events to the subscribers it had when the run began, so a subscriber
 * added while a run streams would not hear of them.
 */
export async function until(agent, predicate, what = 'the agent to reach the expected state') {
  await eventually(() => predicate(agent), () => `waited in vain for ${what}: ${JSON.stringify(agent.messages)}`, WAIT_MS, 10);
}

/**
 * The calls of a runtime's routes as a client of the given transport makes them: by
 * their paths (rest), or as envelopes POSTed to the runtime URL (single). connect and
 * stop return the [url, body] of the POST; get(path) GETs a thread route (through a
 * resource/request envelope for single) and resolves with {status, body}.
 */
export function runtimeCalls(url, transport = 'rest') {
  if (transport === 'single') {
    return {
      connect: (input, agentId = 'default') => [url, { method: 'agent/connect', params: { agentId }, body: input }],
      stop: (threadId, scope, agentId = 'default') => [url, { method: 'agent/stop', params: { agentId, threadId }, ...(scope === undefined ? {} : { body: scope }) }],
      get: async (path, headers = {}) => {
        const { status, body } = await postRaw(url, { method: 'resource/request', params: { path, httpMethod: 'GET' } }, headers);
        return { status, body };
      },
    };
  }
  return {
    connect: (input, agentId = 'default') => [`${url}/agent/${encodeURIComponent(agentId)}/connect`, input],
    stop: (threadId, scope, agentId = 'default') => [`${url}/agent/${encodeURIComponent(agentId)}/stop/${encodeURIComponent(threadId)}`, scope],
    get: async (path, headers = {}) => {
      const { status, body } = await getJSON(url + path, headers);
      return { status, body };
    },
  };
}

/** A RunAgentInput as a client's connect sends it: the thread, no new messages. */
export function connectInput(threadId) {
  return { threadId, runId: `connect-${crypto.randomUUID()}`, messages: [], tools: [], context: [], state: {}, forwardedProps: {} };
}

/**
 * POSTs body to a URL and reads the answer: an SSE stream as its frames (each frame's
 * field names in order, e.g. ['data']) and events, anything else as its status and JSON
 * (or text) body.
 */
export async function postRaw(url, body, headers = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const type = res.headers.get('content-type') ?? '';
  const text = await res.text();
  if (/^text\/event-stream\b/.test(type)) {
    const frames = text
      .split(/\n\n/)
      .filter((frame) => frame.trim() !== '')
      .map((frame) => frame.split('\n').filter((line) => line !== ''));
    const fields = frames.map((lines) => lines.map((line) => (line.startsWith(':') ? ':' : line.slice(0, line.indexOf(':')))));
    const events = frames.flatMap((lines) => lines.filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice('data: '.length))));
    return { status: res.status, type, fields, events };
  }
  let parsed = text;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {}
  return { status: res.status, type, body: parsed };
}

/** GETs a URL and returns its status and JSON body. */
export async function getJSON(url, headers = {}) {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: text === '' ? null : JSON.parse(text) };
}

// The members whose values are ids a client or a server makes up.
const ID_KEYS = new Set(['id', 'messageId', 'toolCallId', 'parentMessageId', 'threadId', 'runId', 'parentRunId', 'interruptId']);

/**
 * value with the ids in it replaced by their order of first appearance (<id-1>, <id-2>,
 * …) and without timestamps: two servers' answers to the same conversation are equal
 * when they differ only in the ids each made up and in the times.
 */
export function masked(value) {
  const ids = new Map();
  const mask = (key, v) => {
    if (key === 'timestamp') return undefined;
    if (ID_KEYS.has(key) && typeof v === 'string') {
      if (!ids.has(v)) ids.set(v, `<id-${ids.size + 1}>`);
      return ids.get(v);
    }
    return v;
  };
  return JSON.parse(JSON.stringify(value, mask));
}

/** What an app restores of a thread after connectAgent: its messages, state, pending interrupts, the interrupt it shows, and the errors the core reported. */
export function restoredView(app) {
  const pending = app.interrupts.state.pending;
  return masked({
    messages: app.agent.messages,
    state: app.agent.state,
    pendingInterrupts: app.agent.pendingInterrupts ?? [],
    shownInterrupt: pending && (pending.kind === 'legacy' ? { kind: 'legacy', value: JSON.parse(pending.event.value) } : pending),
    errors: app.errors.map(({ code, message }) => ({ code, message })),
  });
}

/**
 * How a run's stream ended after index from: each event's type, a RUN_ERROR with its
 * code, a TOOL_CALL_RESULT with the status its content reports.
 */
export function ending(events, from = 0) {
  return events.slice(from).map((e) => {
    if (e.type === 'RUN_ERROR') return `RUN_ERROR(${e.code ?? ''})`;
    if (e.type === 'TOOL_CALL_RESULT') {
      let status = '';
      try {
        status = JSON.parse(e.content)?.status ?? '';
      } catch {}
      return `TOOL_CALL_RESULT(${status})`;
    }
    return e.type;
  });
}

// The HttpAgent of the @ag-ui/client the runtime itself depends on, as copilotkit.js takes it.
const runtimeRequire = createRequire(createRequire(import.meta.url).resolve('@copilotkit/runtime/package.json'));
const { HttpAgent } = await import(runtimeRequire.resolve('@ag-ui/client'));

/**
 * Serves a CopilotKit runtime mounted in single-route mode (createCopilotEndpointSingleRoute:
 * every call is a POST of a {method, params, body} envelope to basePath) whose default
 * agent is an HttpAgent to the mock's run route, without delays. Resolves with {url, close()}.
 */
export async function startSingleRouteRuntime(mockURL, basePath = '/api/copilotkit') {
  const runtime = new CopilotRuntime({ agents: { default: new HttpAgent({ url: `${mockURL}/agui/chat`, headers: { [SPEED_HEADER]: '0' } }) } });
  return serveFetch(createCopilotEndpointSingleRoute({ runtime, basePath }), basePath);
}
