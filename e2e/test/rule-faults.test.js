// The rule-breaking fault kinds as the real clients experience them: each kind queued
// for a test (POST /_mock/faults), played to @ag-ui/client 1.0.0 and 0.0.58 and to
// @copilotkit/core 1.75 through @copilotkit/runtime; what each client does is classified
// and compared with the measured table of rulefaults.js, which docs/e2e-testing.md
// mirrors.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { CLIENTS, Conversation } from './clients.js';
import { adminOK, FAULT_HEADER, journalEntries, newTestId, TEST_ID_HEADER } from './admin.js';
import { agentOf, CopilotKitCore, startRuntime } from './copilotkit.js';
import { REPO_ROOT, useServer, writeTempFiles } from './harness.js';
import { REACTIONS, RULE_FAULT_CLIENTS, RULE_FAULTS, reactionRows } from './rulefaults.js';

// Fault steps that do not end the stream, with steps after them.
const STEPPED = `\
id: stepped
broken: rule-breaking fault steps in the middle of the run, on purpose
match: {message: ^stepped$}
steps:
  - text: Before.
  - fault: unknownEvent
  - fault: wrongRunId
  - text: After.
`;
const server = useServer(['--scenarios', writeTempFiles({ 'stepped.yaml': STEPPED })]);

// The interrupt kinds need a run that raises interrupts: the built-in approval flow,
// two interrupts; the others any run.
const INTERRUPTS = ['Search for ocean wave videos and trim the first 10 seconds', { scenario_name: 'media_management' }];
const PLAIN = ['hello', undefined];
const turnOf = (kind) => (/Interrupt/.test(kind) ? INTERRUPTS : PLAIN);

/** Runs fn with console.warn and console.error recorded instead of printed. */
async function quietly(fn) {
  const saved = { warn: console.warn, error: console.error };
  const calls = [];
  console.warn = (...args) => calls.push(['warn', ...args.map(String)].join(' '));
  console.error = (...args) => calls.push(['error', ...args.map(String)].join(' '));
  try {
    return { result: await fn(), calls };
  } finally {
    Object.assign(console, saved);
  }
}

/**
 * What a client did, in the words of REACTIONS: seen is {rejection, events (types),
 * warnings, coreErrors, finishes, resume: {rejection, posted}}.
 */
function classify(seen) {
  if (seen.coreErrors.some((e) => e.startsWith('agent_run_error_event')) && seen.events.includes('RUN_ERROR')) return 'runtime-run-error';
  if (seen.rejection?.name === 'ZodError') {
    return /invalid_union_discriminator/.test(seen.rejection.message) ? 'rejects-unknown-type' : 'rejects-wrong-type';
  }
  if (seen.rejection) return `rejects: ${seen.rejection.message}`;
  if (seen.warnings.some((w) => w.includes("Dropping unrecognised event 'MOCK_UNKNOWN_EVENT'"))) return 'dropped-warning';
  if (seen.warnings.length > 0 || seen.coreErrors.length > 0) return `warned: ${[...seen.warnings, ...seen.coreErrors].join('; ')}`;
  if (seen.resume) {
    if (/^Interrupt \S+ expired at /.test(seen.resume.rejection?.message ?? '')) return 'resume-refused';
    const failed = seen.resume.reported?.find((r) => r.code === 'agent_run_failed' && /^Interrupt \S+ expired at /.test(r.message));
    if (failed && !seen.resume.rejection && !seen.resume.posted) return 'resume-reported';
    return `resume: ${seen.resume.rejection?.message ?? 'posted'}`;
  }
  if (seen.finishes === 2) return 'accepted-two-finishes';
  if (seen.events.filter((t) => t === 'RUN_STARTED').length === 2) return 'accepted-second-run';
  return 'accepted';
}

/** The runs the mock journalled for a test id. */
const runsOf = async (testId) => (await journalEntries(server, {}, testId)).filter((e) => e.path === '/agui/chat');

/** Queues kind for a new test id and returns the id. */
async function queue(kind) {
  const testId = newTestId(kind);
  await adminOK(server, 'POST', '/faults', { testId, body: { kind, ...(/Event|Field/.test(kind) && { after: 2 }) } }, 201);
  return testId;
}

/** What an HttpAgent of client does with kind, and the events it saw (for the wire's check). */
async function httpAgentMeets(client, kind) {
  const testId = await queue(kind);
  const conversation = new Conversation(client, { url: server.url, headers: { [TEST_ID_HEADER]: testId } });
  const [message, forwardedProps] = turnOf(kind);
  const run = await conversation.send(message, { forwardedProps });
  const seen = {
    rejection: run.rejection,
    events: run.events.map((e) => e.type),
    warnings: run.consoleCalls.filter((c) => c.level === 'warn').map((c) => c.args.map(String).join(' ')),
    coreErrors: [],
  };
  if (kind === 'expiredInterrupt' && !run.rejection) {
    const resume = run.finished.interrupts.map((i) => ({ interruptId: i.id, status: 'resolved', payload: {} }));
    const answered = await conversation.continue({ resume, forwardedProps });
    seen.resume = { rejection: answered.rejection, posted: (await runsOf(testId)).length > 1 };
  }
  return { seen, run };
}

// One runtime for every CopilotKit app of the file, started with the first.
let runtime;
after(() => runtime?.close());

/** What @copilotkit/core does with kind, through the runtime. */
async function copilotKitMeets(kind) {
  runtime ??= await startRuntime(server.url);
  const testId = await queue(kind);
  const core = new CopilotKitCore({ runtimeUrl: runtime.url, headers: { [TEST_ID_HEADER]: testId } });
  const seen = { events: [], coreErrors: [], finishes: 0, warnings: [] };
  const reported = []; // what the core's onError was given: {code, message}
  core.subscribe({ onError: ({ code, error }) => reported.push({ code, message: String(error?.message) }) });
  const agent = await agentOf(core);
  agent.threadId = `rule-${randomUUID()}`;
  let interrupts = [];
  agent.subscribe({
    onEvent: ({ event }) => seen.events.push(event.type),
    onRunFinishedEvent: ({ interrupts: raised }) => {
      seen.finishes++;
      interrupts = raised ?? [];
    },
  });
  const [message, forwardedProps] = turnOf(kind);
  agent.addMessage({ id: `user-${randomUUID()}`, role: 'user', content: message });
  const { result: rejection, calls } = await quietly(() => core.runAgent({ agent, forwardedProps }).then(() => undefined, (e) => e));
  seen.rejection = rejection;
  seen.warnings = calls.filter((c) => c.startsWith('warn '));
  seen.coreErrors = reported.splice(0).map((r) => r.code);
  if (seen.finishes === 1) seen.finishes = 0; // one finish is the usual
  if (kind === 'expiredInterrupt' && !rejection) {
    const resume = interrupts.map((i) => ({ interruptId: i.id, status: 'resolved', payload: {} }));
    const answered = await quietly(() => core.runAgent({ agent, resume }).then(() => undefined, (e) => e));
    seen.resume = { rejection: answered.result, posted: (await runsOf(testId)).length > 1, reported };
  }
  return { seen, messages: agent.messages };
}

/** Checks that the wire carried the kind's break, as the client's subscribers saw it. */
function assertBreakArrived(kind, run) {
  const finished = run.events.filter((e) => e.type === 'RUN_FINISHED');
  const started = run.events.find((e) => e.type === 'RUN_STARTED');
  switch (kind) {
    case 'wrongRunId':
      assert.equal(finished[0].runId, `${started.runId}-other`);
      break;
    case 'wrongThreadId':
      assert.equal(finished[0].threadId, `${started.threadId}-other`);
      break;
    case 'otherThread':
      assert.equal(run.events.filter((e) => e.type === 'RUN_STARTED')[1].threadId, `${started.threadId}-other`);
      break;
    case 'duplicateInterruptId': {
      const ids = finished[0].outcome.interrupts.map((i) => i.id);
      assert.equal(new Set(ids).size, ids.length - 1, `ids ${ids}`);
      break;
    }
    case 'expiredInterrupt':
      for (const i of finished[0].outcome.interrupts) assert.ok(Date.parse(i.expiresAt) < Date.now(), i.expiresAt);
      break;
  }
}

for (const [kind, expected] of Object.entries(RULE_FAULTS)) {
  describe(`fault ${kind}`, () => {
    CLIENTS.forEach((client) => {
      const column = RULE_FAULT_CLIENTS.indexOf(client.label);
      test(`${client.label}: ${REACTIONS[expected[column]]}`, async () => {
        const { seen, run } = await httpAgentMeets(client, kind);
        assert.equal(classify(seen), expected[column], JSON.stringify({ ...seen, rejection: String(seen.rejection) }));
        if (!seen.rejection) assertBreakArrived(kind, run);
      });
    });
    test(`@copilotkit/core 1.75: ${REACTIONS[expected[2]]}`, async () => {
      const { seen, messages } = await copilotKitMeets(kind);
      assert.equal(classify(seen), expected[2], JSON.stringify({ ...seen, rejection: String(seen.rejection) }));
      if (expected[2] === 'runtime-run-error') assert.deepEqual(messages.map((m) => m.role), ['user']);
    });
  });
}

test('fault steps that break a rule let the scenario go on: the steps after them play', async () => {
  const [client] = CLIENTS; // 1.0.0, which drops the unknown event and reads on
  const testId = newTestId('stepped');
  const run = await new Conversation(client, { url: server.url, headers: { [TEST_ID_HEADER]: testId } }).send('stepped');
  assert.equal(run.rejection, undefined);
  assert.deepEqual(run.agent.messages.filter((m) => m.role === 'assistant').map((m) => m.content), ['Before.', 'After.']);
  assert.ok(run.consoleCalls.some((c) => String(c.args[0]).includes("Dropping unrecognised event 'MOCK_UNKNOWN_EVENT'")));
  const [started, finished] = ['RUN_STARTED', 'RUN_FINISHED'].map((t) => run.events.find((e) => e.type === t));
  assert.equal(finished.runId, `${started.runId}-other`, 'the end rewritten by the step before the last text');
});

test('a fault on interrupts, on a run without any, is answered 422 before any stream', async () => {
  for (const client of CLIENTS) {
    const headers = { [TEST_ID_HEADER]: newTestId('422'), [FAULT_HEADER]: 'duplicateInterruptId' };
    const run = await new Conversation(client, { url: server.url, headers }).send('hello');
    assert.equal(run.rejection?.status, 422, `${client.label}: ${run.rejection}`);
    assert.equal(run.rejection.payload.error, 'fault_not_applicable');
    assert.match(run.rejection.payload.message, /^fault duplicateInterruptId acts on the interrupts of the run's interrupt outcome, and this run \(scenario catch-all\) ends without any/);
    assert.deepEqual(run.events, []);
  }
});

test('the table of docs/e2e-testing.md says what the clients were measured to do', () => {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs', 'e2e-testing.md'), 'utf8');
  const header = `| kind | ${RULE_FAULT_CLIENTS.map((c) => `\`${c}\``).join(' | ')} |`;
  const at = doc.indexOf(header);
  assert.ok(at >= 0, `the doc has no table headed ${header}`);
  const rows = doc.slice(at).split('\n').slice(2).filter((line, i, lines) => lines.slice(0, i + 1).every((l) => l.startsWith('|')));
  assert.deepEqual(rows, reactionRows());
});
