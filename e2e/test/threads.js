// Plain-HTTP helpers for multi-run conversations: run requests read back as event lists,
// the thread endpoints POST /agui/history and POST /agui/cancel, and what the tests check
// in a stream and in a thread's history.

import assert from 'node:assert/strict';
import { DEFAULT_ROUTE, SPEED_HEADER } from './clients.js';
import { eventually } from './harness.js';

/** The thread endpoints of the production API the server stands in for. */
export const HISTORY_PATH = '/agui/history';
export const CANCEL_PATH = '/agui/cancel';

/** POSTs body as JSON and returns the status, headers and JSON answer, asserting it is JSON. */
export async function postJSON(server, path, body, headers = {}) {
  const res = await fetch(server.url + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  assert.match(res.headers.get('content-type') ?? '', /^application\/json\b/, `the answer of ${path} is JSON`);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/**
 * Fetches a thread's history the way the seed's frontend does (threadId and its
 * forwardedProps) and returns it, asserting the request succeeded.
 */
export async function threadHistory(server, threadId, headers = {}) {
  const body = { threadId, forwardedProps: { scenario_name: 'video-mixcut' } };
  const answer = await postJSON(server, HISTORY_PATH, body, headers);
  assert.equal(answer.status, 200, `history of ${threadId}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Asks the server to cancel the run streaming on a thread; returns the status and answer. */
export function cancelThread(server, threadId, headers = {}) {
  return postJSON(server, CANCEL_PATH, { threadId, forwardedProps: { scenario_name: 'video-mixcut' } }, headers);
}

/**
 * POSTs a run request, without delays unless headers say otherwise. A stream is read to
 * its end and returned as {status, events}; any other answer as {status, body}.
 */
export async function postRun(server, body, headers = {}) {
  const res = await fetch(server.url + DEFAULT_ROUTE, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', [SPEED_HEADER]: '0', ...headers },
    body: JSON.stringify(body),
  });
  if (!/^text\/event-stream\b/.test(res.headers.get('content-type') ?? '')) {
    return { status: res.status, body: await res.json() };
  }
  return { status: res.status, events: parseEvents(await res.text()) };
}

/** The events of an SSE body (its data lines; comments and id lines are skipped). */
export function parseEvents(text) {
  return text
    .split('\n\n')
    .flatMap((frame) => frame.split('\n'))
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)));
}

/** The text of each text message a stream carried, in the order the messages started. */
export function streamedTexts(events) {
  const texts = new Map();
  for (const event of events) {
    if (event.type === 'TEXT_MESSAGE_START') texts.set(event.messageId, '');
    if (event.type === 'TEXT_MESSAGE_CONTENT') texts.set(event.messageId, (texts.get(event.messageId) ?? '') + event.delta);
  }
  return [...texts.values()];
}

/** The tool calls a stream started, as {id, name, args} with the arguments parsed. */
export function streamedToolCalls(events) {
  const calls = new Map();
  for (const event of events) {
    if (event.type === 'TOOL_CALL_START') calls.set(event.toolCallId, { id: event.toolCallId, name: event.toolCallName, args: '' });
    if (event.type === 'TOOL_CALL_ARGS') calls.get(event.toolCallId).args += event.delta;
  }
  return [...calls.values()].map((call) => ({ ...call, args: JSON.parse(call.args) }));
}

/** The TOOL_CALL_RESULT events of a stream as {toolCallId, content}, with JSON content parsed. */
export function streamedToolResults(events) {
  return events
    .filter((e) => e.type === 'TOOL_CALL_RESULT')
    .map(({ toolCallId, content }) => ({ toolCallId, content: parseIfJSON(content) }));
}

function parseIfJSON(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// What opens something in a stream, what closes it, and the field that names it.
const PAIRS = [
  ['TEXT_MESSAGE_START', 'TEXT_MESSAGE_END', 'messageId'],
  ['TOOL_CALL_START', 'TOOL_CALL_END', 'toolCallId'],
  ['REASONING_START', 'REASONING_END', 'messageId'],
  ['REASONING_MESSAGE_START', 'REASONING_MESSAGE_END', 'messageId'],
  ['STEP_STARTED', 'STEP_FINISHED', 'stepName'],
];

/** What a stream opened and never closed, as "TYPE name" strings. */
export function unclosed(events) {
  const open = new Set();
  for (const event of events) {
    for (const [start, end, key] of PAIRS) {
      if (event.type === start) open.add(`${start} ${event[key]}`);
      if (event.type === end) open.delete(`${start} ${event[key]}`);
    }
  }
  return [...open];
}

/** The outcome of each run a history records, oldest first. */
export function runOutcomes(history) {
  return history.runs.map((r) => r.outcome);
}

/**
 * Asserts that a thread's history holds the messages the client holds: the same ids,
 * roles, contents and tool calls, in the same order. The client's messages are compared
 * as it would send them (JSON), since the server knows only what went over the wire.
 */
export function assertHistoryMatchesClient(history, agent) {
  assert.deepEqual(history.messages, JSON.parse(JSON.stringify(agent.messages)), "the server's history differs from what the client holds");
}

/**
 * Polls a thread's history until its last run has ended (a client that went away is
 * noticed a moment later) and returns it.
 */
export async function settledHistory(server, threadId, timeoutMs = 5_000) {
  let history;
  return eventually(async () => {
    history = await threadHistory(server, threadId);
    return history.running === null && history;
  }, () => `run ${history?.running?.runId} still running`, timeoutMs);
}
