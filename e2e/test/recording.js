// Helpers for the record-mode tests: starting a recorder, a tiny stand-in upstream agent
// that remembers what it was sent, reading and validating a record directory, and
// comparing a recorded session with its replay modulo ids, timestamps and timing.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { eventually, REPO_ROOT, serverBinary, startServer } from './harness.js';

/** Starts `agui-mock record --upstream upstream --record-dir dir` plus args. */
export function startRecorder(upstream, dir, args = []) {
  return startServer(['--upstream', upstream, '--record-dir', dir, ...args], { command: 'record' });
}

/** Starts a replay server on recorded scenarios only. */
export function startReplay(dir, args = []) {
  return startServer(['--no-builtin', '--scenarios', dir, ...args]);
}

/** Resolves with a loopback port nothing listens on (it was free a moment ago). */
export function closedPort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Writes one SSE frame carrying event, stamped with the time unless it has a timestamp. */
export function writeEvent(res, event) {
  res.write(`data: ${JSON.stringify({ timestamp: Date.now(), ...event })}\n\n`);
}

/** Starts an SSE answer. */
export function beginStream(res) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
}

/**
 * A small valid run for input: RUN_STARTED with the request's ids (and the protocol
 * version it negotiated, as a 1.x agent declares it), one text message in the given
 * deltas, RUN_FINISHED.
 */
export function textRun(input, deltas, messageId = 'up-msg-1') {
  const version = input.protocolVersion ? { protocolVersion: input.protocolVersion } : {};
  return [
    { type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId, ...version },
    { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' },
    ...deltas.map((delta) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta })),
    { type: 'TEXT_MESSAGE_END', messageId },
    { type: 'RUN_FINISHED', threadId: input.threadId, runId: input.runId },
  ];
}

/**
 * Starts a stand-in upstream agent on a free loopback port. Every request is kept in
 * `requests` as {method, path, headers, body} (body parsed when it is JSON) before
 * handler(request, res) answers it; the default handler streams textRun(body, ['Hello
 * ', 'from upstream.']). Resolves with {url, requests, close()}.
 */
export async function startFakeUpstream(handler = (req, res) => {
  beginStream(res);
  for (const event of textRun(req.body, ['Hello ', 'from upstream.'])) writeEvent(res, event);
  res.end();
}) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      const request = { method: req.method, path: req.url, headers: req.headers, body };
      requests.push(request);
      handler(request, res);
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  server.unref();
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Every file under dir, hidden ones included, as paths relative to dir, sorted. */
export function listFiles(dir) {
  const out = [];
  const walk = (rel) => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = path.join(rel, entry.name);
      if (entry.isDirectory()) walk(child);
      else out.push(child);
    }
  };
  walk('');
  return out.sort();
}

/** The recordings a server loads from dir: its .yaml files outside hidden directories. */
export function recordings(dir) {
  return listFiles(dir).filter((f) => f.endsWith('.yaml') && !f.split(path.sep).some((part) => part.startsWith('.')));
}

/** Runs `agui-mock validate --format json` on paths and returns {code, report}. */
export async function validate(...paths) {
  const bin = await serverBinary();
  try {
    const { stdout } = await promisify(execFile)(bin, ['validate', '--format', 'json', ...paths], { cwd: REPO_ROOT });
    return { code: 0, report: JSON.parse(stdout) };
  } catch (err) {
    if (typeof err.code !== 'number') throw err;
    return { code: err.code, report: err.stdout ? JSON.parse(err.stdout) : { stderr: err.stderr } };
  }
}

/** Asserts that `agui-mock validate` accepts paths, and returns its report. */
export async function assertValid(...paths) {
  const { code, report } = await validate(...paths);
  assert.equal(code, 0, `agui-mock validate ${paths.join(' ')}: ${JSON.stringify(report.problems ?? report)}`);
  assert.equal(report.valid, true);
  return report;
}

/** Polls the server's scenario list until one with the given id is loaded. */
export async function waitForScenario(server, id, timeoutMs = 5_000) {
  let body;
  await eventually(async () => {
    body = await (await fetch(`${server.url}/_mock/scenarios`)).json();
    const list = Array.isArray(body) ? body : (body.scenarios ?? []);
    return list.some((sc) => sc.id === id);
  }, () => `scenario ${id} not loaded: ${JSON.stringify(body).slice(0, 500)}`, timeoutMs, 25);
}

// The fields whose values are generated ids: a replay mints new ones.
const ID_KEYS = new Set(['id', 'messageId', 'toolCallId', 'parentMessageId', 'entityId', 'threadId', 'runId', 'interruptId']);

/**
 * value with every timestamp dropped and every id renamed <id1>, <id2>, … in order of
 * first appearance (a depth-first walk), so that two sessions that differ only in their
 * ids and times compare equal. Ids are the string values of ID_KEYS fields and of
 * pendingToolCallIds; any string equal to one of them is renamed wherever it appears.
 */
export function canonical(value) {
  const names = new Map();
  const name = (id) => {
    if (typeof id === 'string' && id !== '' && !names.has(id)) names.set(id, `<id${names.size + 1}>`);
  };
  const collect = (v) => {
    if (Array.isArray(v)) return v.forEach(collect);
    if (v === null || typeof v !== 'object') return;
    for (const [key, x] of Object.entries(v)) {
      if (ID_KEYS.has(key)) name(x);
      if (key === 'pendingToolCallIds' && Array.isArray(x)) x.forEach(name);
      collect(x);
    }
  };
  collect(value);
  const rename = (v) => {
    if (typeof v === 'string') return names.get(v) ?? v;
    if (Array.isArray(v)) return v.map(rename);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(
      Object.entries(v)
        .filter(([key]) => key !== 'timestamp')
        .map(([key, x]) => [key, rename(x)]),
    );
  };
  return rename(value);
}

/** What a session's runs streamed and what its agent ended up with, for canonical(). */
export function sessionRecord(runs) {
  const { agent } = runs.at(-1);
  return {
    runs: runs.map((run) => run.events),
    messages: JSON.parse(JSON.stringify(agent.messages)),
    state: JSON.parse(JSON.stringify(agent.state)),
  };
}

/**
 * The timing tolerance of a replay: an event may arrive TIMING_SLACK_MS plus
 * TIMING_RATIO of its recorded offset earlier or later than it did while recording.
 */
export const TIMING_SLACK_MS = 50;
export const TIMING_RATIO = 0.2;

/**
 * Compares the rhythm of a replayed run with the recorded run's and returns the largest
 * deviation in ms, with the event it happened at and its sign (late: the replay was
 * later). Throws when an event lies outside the tolerance.
 *
 * Events after the first are compared by their offset from the first event. The first
 * event is compared by its offset from the request, and only for lateness: while
 * recording, that offset also holds the time the request took to reach the recorder,
 * which the recorder cannot see and a replay does not repeat.
 */
export function compareTiming(recorded, replayed, label) {
  assert.equal(replayed.events.length, recorded.events.length, `${label}: event count`);
  let worst = { deviation: 0, index: -1 };
  for (let i = 0; i < recorded.events.length; i++) {
    const origin = (run) => (i === 0 ? run.startedAt : run.arrivals[0]);
    const expected = recorded.arrivals[i] - origin(recorded);
    const actual = replayed.arrivals[i] - origin(replayed);
    const deviation = i === 0 ? Math.max(0, actual - expected) : Math.abs(actual - expected);
    const allowed = TIMING_SLACK_MS + TIMING_RATIO * expected;
    const from = i === 0 ? 'the request' : 'the first event';
    assert.ok(
      deviation <= allowed,
      `${label}: event ${i} (${recorded.events[i].type}) arrived ${actual.toFixed(1)} ms after ${from} in the replay, ` +
        `${expected.toFixed(1)} ms while recording (allowed ±${allowed.toFixed(1)} ms)`,
    );
    if (deviation > worst.deviation) worst = { deviation, index: i, type: recorded.events[i].type, expected, actual, late: actual > expected };
  }
  return worst;
}

/** A progress line of the recorder, as it prints one when a run's recording is written. */
export const RECORDED_RUN = /^recorded run (\S+) of thread (\S+): (\d+) events in \S+, (complete|INCOMPLETE: .*), (nothing|\d+ secrets?) redacted → (.+)$/;

/** The recorder's progress lines, parsed. */
export function progress(recorder) {
  return recorder.output
    .map((line) => RECORDED_RUN.exec(line))
    .filter(Boolean)
    .map(([, runId, threadId, events, outcome, redacted, file]) => ({ runId, threadId, events: Number(events), outcome, redacted: parseInt(redacted, 10) || 0, file }));
}

/** Waits until the recorder has printed count progress lines (the line follows the stream's end). */
export async function progressLines(recorder, count) {
  await recorder.waitForOutput(() => progress(recorder).length >= count, 5_000).catch(() => {});
  return progress(recorder);
}

/** Every file under dir with its content. */
export function readAll(dir) {
  return listFiles(dir).map((file) => ({ file, content: readFileSync(path.join(dir, file), 'utf8') }));
}

/** The seed's media-management flow, whose first run pauses on two interrupts. */
export const MEDIA_MESSAGE = 'Search for ocean wave videos and trim the first 10 seconds';
export const MEDIA_PROPS = { approval_mode: 'level:low', scenario_name: 'media_management' };
