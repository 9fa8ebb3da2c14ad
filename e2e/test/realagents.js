// What the real-agent tests share: running `agui-mock verify`, what a conversation
// showed its user, a user's turn with @ag-ui/client's HttpAgent (Stop pressed or not),
// and a CopilotKit app on the runtime of copilotkit.js.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { agentOf, CopilotKitCore, startRuntime } from './copilotkit.js';
import { eventually, REPO_ROOT, serverBinary } from './harness.js';

/** Runs `agui-mock verify` with args; resolves with {code, stdout, stderr}. */
export async function verify(...args) {
  const bin = await serverBinary();
  try {
    const { stdout, stderr } = await promisify(execFile)(bin, ['verify', ...args], { cwd: REPO_ROOT, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    if (typeof err.code !== 'number') throw err;
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/**
 * What a conversation's messages show the user, ids left out: each message's role and
 * content, and the name and arguments of each tool call.
 */
export function shown(messages) {
  return messages.map((m) => ({
    role: m.role,
    ...(m.content && { content: m.content }),
    ...(m.toolCalls?.length && { toolCalls: m.toolCalls.map((c) => [c.function.name, JSON.parse(c.function.arguments || '{}')]) }),
  }));
}

/**
 * Resolves with the recorder's "recorded run" lines once there are count of them (a
 * run's line is printed when its recording is written, just after its stream ended).
 */
export async function recordedLines(recorder, count, timeoutMs = 10_000) {
  const lines = () => recorder.output.filter((line) => line.startsWith('recorded run'));
  // the callers assert on the lines there are, which say more than a timeout would
  await eventually(() => lines().length >= count, `${count} recorded runs`, timeoutMs, 25).catch(() => {});
  return lines();
}

/**
 * Says content in agent's thread and resolves with the run's events: `seen`, those delivered
 * until the user pressed Stop (agent.abortRun(), when stop(events) says so after an event),
 * `events`, all of them, with what the client adds on stopping (the ends of open messages,
 * and a RUN_ERROR of its own with code abort), and `warnings`, what the client wrote to
 * console.warn meanwhile.
 */
export async function say(agent, content, stop = () => false) {
  agent.addMessage({ id: randomUUID(), role: 'user', content });
  const events = [];
  const warnings = [];
  let seen;
  const runId = randomUUID();
  const warn = console.warn;
  console.warn = (...args) => warnings.push(args.join(' '));
  try {
    await agent.runAgent(
      { runId },
      {
        onEvent: ({ event }) => {
          events.push(event);
          if (seen === undefined && stop(events)) {
            seen = [...events];
            agent.abortRun();
          }
        },
      },
    );
  } finally {
    console.warn = warn;
  }
  return { runId, events, warnings, seen: seen ?? events };
}

/** The terminal events of a run that the client did not make up itself on stopping. */
export const ends = (events) => events.filter((e) => e.type === 'RUN_FINISHED' || (e.type === 'RUN_ERROR' && e.code !== 'abort'));

/** The text a run's content events carry. */
export const textOf = (events) => events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta).join('');

/** The scenarios of a `verify --format json` report, their random suffixes left out, with their status. */
export const statuses = (results) => Object.fromEntries(results.map((r) => [r.scenario.replace(/-[0-9a-f]{8}$/, ''), r.status]));

/** A run's CUSTOM on_interrupt values. */
export function onInterrupts(run) {
  return run.events.filter((e) => e.type === 'CUSTOM' && e.name === 'on_interrupt').map((e) => e.value);
}

/** Asserts that a run neither failed nor rejected, and the client warned of nothing. */
export function assertAccepted(run) {
  assert.equal(run.failure, undefined, `onRunFailed was called: ${run.failure}`);
  assert.equal(run.rejection, undefined, `runAgent rejected: ${run.rejection}`);
  assert.deepEqual(run.consoleCalls, [], 'the client wrote warnings or errors');
  assert.equal(run.events.at(-1)?.type, 'RUN_FINISHED', `the run ended with ${JSON.stringify(run.events.at(-1))}`);
}

/**
 * Asserts what holds for a replayed run besides assertAccepted: it starts with the
 * request's thread and run ids, and finishes with the request's thread id. It finishes
 * with the request's run id too, unless ownRunId: an agent that ends its runs with a run
 * id of its own (@ag-ui/langgraph: LangGraph's) is recorded as it sent them, marked
 * `breaks: [finished-run-id]`, and its replay ends with a fresh id of its own, as the
 * live agent's run did — never the request's, nor the recording session's. (Events
 * carry timestamps only when the agent sent them: a replay sends what the agent sent.)
 */
export function assertReplayed(run, { ownRunId = false } = {}) {
  assertAccepted(run);
  const [started, finished] = [run.events[0], run.events.at(-1)];
  assert.deepEqual([started.threadId, started.runId], [run.agent.threadId, run.runId], "RUN_STARTED carries the request's ids");
  assert.equal(finished.threadId, run.agent.threadId, "RUN_FINISHED carries the request's thread id");
  if (!ownRunId) {
    assert.equal(finished.runId, run.runId, "RUN_FINISHED carries the request's run id");
    return;
  }
  assert.equal(typeof finished.runId, 'string', 'RUN_FINISHED carries a run id');
  assert.notEqual(finished.runId, run.runId, "RUN_FINISHED carries the replay's own run id, as the agent's carried its own");
}

/**
 * A CopilotKit app (@copilotkit/core) on a CopilotKit runtime whose agent is an
 * HttpAgent to mockURL: say() runs a user message, resumeLangGraph() answers the last
 * on_interrupt as useInterrupt does; messages is the agent's conversation.
 */
export async function copilotKitApp(mockURL) {
  const runtime = await startRuntime(mockURL);
  const core = new CopilotKitCore({ runtimeUrl: runtime.url });
  const agent = await agentOf(core);
  const seen = { interrupts: [], errors: [], runIds: [] };
  agent.subscribe({
    onCustomEvent: ({ event }) => {
      if (event.name === 'on_interrupt') seen.interrupts.push(event.value);
    },
    onRunFinishedEvent: ({ event }) => seen.runIds.push(event.runId),
    onRunFailed: ({ error }) => seen.errors.push(error),
  });
  return {
    agent,
    seen,
    async say(content) {
      agent.addMessage({ id: `user-${crypto.randomUUID()}`, role: 'user', content });
      await core.runAgent({ agent });
    },
    async resumeLangGraph(resume) {
      const interruptEvent = seen.interrupts.at(-1);
      await core.runAgent({ agent, runId: seen.runIds.at(-1), forwardedProps: { command: { resume, interruptEvent } } });
    },
    close: () => runtime.close(),
  };
}
