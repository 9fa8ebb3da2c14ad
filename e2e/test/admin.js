// Helpers for the admin API under /_mock: calls scoped to a test id, the journal, and a
// run stream read event by event, for tests that look at a run while it is under way.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { DEFAULT_ROUTE, SPEED_HEADER } from './clients.js';
import { eventually } from './harness.js';

/** The admin API's path prefix. */
export const ADMIN = '/_mock';

/** The request header that scopes threads, journal, forcing, faults and breakpoints. */
export const TEST_ID_HEADER = 'X-Test-Id';

/** The request header that forces the scenario of one run. */
export const SCENARIO_HEADER = 'X-Agui-Mock-Scenario';

/** The request header that makes one run misbehave, e.g. "disconnect; after=3". */
export const FAULT_HEADER = 'X-Agui-Mock-Fault';

/** A fresh test id, readable in server logs: the label and a random suffix. */
export function newTestId(label = 'test') {
  return `${label}-${randomUUID().slice(0, 8)}`;
}

/**
 * Calls the admin API and returns {status, headers, body}: body is the parsed JSON
 * answer, or null for an empty one. A string body is sent as is (YAML unless
 * contentType says otherwise); any other body as JSON. The call carries the server's
 * admin token (server.adminToken, which startServer takes from its flags), or token
 * when given (null: none).
 */
export async function admin(server, method, path, { testId, body, contentType, headers = {}, token = server.adminToken } = {}) {
  const init = { method, headers: { ...headers } };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (testId !== undefined) init.headers[TEST_ID_HEADER] = testId;
  if (body !== undefined) {
    const text = typeof body === 'string';
    init.body = text ? body : JSON.stringify(body);
    init.headers['Content-Type'] = contentType ?? (text ? 'application/yaml' : 'application/json');
  }
  const res = await fetch(server.url + ADMIN + path, init);
  const raw = await res.text();
  let parsed = null;
  if (raw !== '') {
    assert.match(res.headers.get('content-type') ?? '', /json/, `${method} ${path} answers JSON: ${raw}`);
    parsed = JSON.parse(raw);
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** Like admin(), asserting the status first (with the answer in the message). */
export async function adminOK(server, method, path, options, status = 200) {
  const answer = await admin(server, method, path, options);
  assert.equal(answer.status, status, `${method} ${path}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** The journal entries that match query ({route, thread, scenario, testId}), as testId sees them: every page of them. */
export async function journalEntries(server, query = {}, testId) {
  const params = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined));
  const entries = [];
  for (;;) {
    const body = await adminOK(server, 'GET', `/journal?${params}`, { testId });
    entries.push(...body.entries);
    if (body.next === undefined) return entries;
    params.set('after', String(body.next));
  }
}

/**
 * Polls the journal until an entry matches predicate (entries are written when a request
 * is over, a moment after its client stopped reading) and returns it.
 */
export function journalEntry(server, predicate, { testId, timeoutMs = 5_000 } = {}) {
  return eventually(async () => (await journalEntries(server, {}, testId)).find(predicate), 'no matching journal entry', timeoutMs);
}

/** Adds runtime scenarios (YAML) and returns their ids, asserting the server took them. */
export async function addScenarios(server, yaml) {
  return (await adminOK(server, 'POST', '/scenarios', { body: yaml }, 201)).added;
}

/** A RunAgentInput with one user message. */
export function runInput(message, { threadId = `thread-${randomUUID()}`, runId = `run-${randomUUID()}`, forwardedProps } = {}) {
  return {
    threadId,
    runId,
    messages: [{ id: `user-${randomUUID()}`, role: 'user', content: message }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: forwardedProps ?? {},
  };
}

/**
 * POSTs a run and reads its answer as it arrives. Returns at once with:
 *   status, headers   of the answer (after `ready` resolves)
 *   events            the events parsed so far (grows while the stream is read)
 *   comments          how many SSE comment lines (keep-alives) arrived so far
 *   ready             resolves once the status and headers are in
 *   done              resolves when the stream ends: {events, comments, error} (error:
 *                     why reading stopped early, e.g. a dropped connection), or with the
 *                     JSON body of a non-stream answer as {status, body}
 *   waitFor(pred)     resolves with the first event that matches, waiting for it
 *   abort()           closes the connection
 */
export function openRun(server, input, { headers = {}, route = DEFAULT_ROUTE, speed = 0 } = {}) {
  const controller = new AbortController();
  const stream = { events: [], comments: 0, abort: () => controller.abort() };
  const waiters = new Set();
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  stream.waitFor = (predicate, timeoutMs = 5_000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = stream.events.find(predicate);
        if (found || stream.ended) {
          clearTimeout(timer);
          waiters.delete(check);
          return found ? resolve(found) : reject(new Error('the stream ended without a matching event'));
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no matching event within ${timeoutMs} ms`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  const response = fetch(server.url + route, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'text/event-stream',
      ...(speed === null ? {} : { [SPEED_HEADER]: String(speed) }),
      ...headers,
    },
    body: JSON.stringify(input),
    signal: controller.signal,
  });
  stream.ready = response.then((res) => {
    stream.status = res.status;
    stream.headers = res.headers;
  });
  stream.done = (async () => {
    const res = await response;
    if (!/^text\/event-stream\b/.test(res.headers.get('content-type') ?? '')) {
      stream.ended = true;
      notify();
      return { status: res.status, body: await res.json() };
    }
    const decoder = new TextDecoder();
    let buffer = '';
    let error;
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          for (const line of frame.split('\n')) {
            if (line.startsWith('data: ')) stream.events.push(JSON.parse(line.slice('data: '.length)));
            else if (line.startsWith(':')) stream.comments++;
          }
        }
        notify();
      }
    } catch (err) {
      error = err;
    }
    stream.ended = true;
    stream.rest = buffer; // what came after the last complete frame
    notify();
    return { status: res.status, events: stream.events, comments: stream.comments, rest: buffer, error };
  })();
  stream.done.catch(() => {}); // awaited by the tests that care
  return stream;
}

/** The event types of a list of events, in order. */
export const typesOf = (events) => events.map((e) => e.type);

/**
 * A scenario, added at run time by the tests, whose text and tool arguments hold
 * multi-byte characters (emoji with joiners, CJK, accents) and characters JSON escapes
 * (quotes, backslashes, newlines): the split fault cuts its frames inside them.
 */
export const MULTIBYTE_TEXT = 'Vidéo 🌊🏄‍♀️ 海浪视频 «ok» "quoted" \\ back\\slash\nnew line — 👨‍👩‍👧 done';
export const MULTIBYTE_ARGS = { query: '海浪 "waves" 🌊', note: 'naïve \\ café' };
export const MULTIBYTE_SCENARIO = `\
id: multibyte
description: Text and tool arguments with emoji, CJK and escaped quotes.
match:
  message: ^multibyte$
steps:
  - text: ${JSON.stringify(MULTIBYTE_TEXT)}
    chunk: none
  - tool:
      name: search_media
      args: ${JSON.stringify(MULTIBYTE_ARGS)}
      result: {found: ["海浪.mp4", "🌊.mov"]}
  - text: ${JSON.stringify('再见 👋 "bye"')}
`;
