// The admin API under /_mock, driven over plain HTTP and observed through the real
// HttpAgent of both client versions: health and readiness, runtime scenarios, reload,
// the journal, forcing a scenario, and breakpoints.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation, eventsOf, messagesOf } from './clients.js';
import {
  addScenarios,
  admin,
  adminOK,
  journalEntries,
  newTestId,
  openRun,
  runInput,
  SCENARIO_HEADER,
  TEST_ID_HEADER,
  typesOf,
} from './admin.js';
import { eventually, makeTempDir, useServer } from './harness.js';

// A scenario directory read only on POST /_mock/reload (--watch off), with one scenario.
const scenarioDir = makeTempDir('agui-mock-admin-');
const FILE_SCENARIO = `\
id: from-file
match:
  message: ^from file$
steps:
  - text: Read from a file.
`;
writeFileSync(path.join(scenarioDir, 'from-file.yaml'), FILE_SCENARIO);

const server = useServer(['--scenarios', scenarioDir, '--watch', 'off', '--metrics']);
// No scenario at all until the tests add one: not ready.
const empty = useServer(['--no-builtin', '--scenarios', makeTempDir('agui-mock-empty-'), '--watch', 'off']);

/** Sends one message through a fresh HttpAgent of client and returns the run. */
function send(client, message, { testId, headers = {}, forwardedProps, url = server.url, route } = {}) {
  const allHeaders = { ...headers, ...(testId && { [TEST_ID_HEADER]: testId }) };
  return new Conversation(client, { url, route, headers: allHeaders }).send(message, { forwardedProps });
}

/** The text of the last assistant message of a run. */
const lastText = (run) => messagesOf(run, 'assistant').at(-1)?.content;

/** The ids of the loaded scenarios, with their listing entries. */
async function listed(srv = server) {
  const body = await adminOK(srv, 'GET', '/scenarios');
  return new Map(body.scenarios.map((s) => [s.id, s]));
}

describe('health, readiness, status, schema and metrics', () => {
  test('healthz answers ok', async () => {
    assert.deepEqual(await adminOK(server, 'GET', '/healthz'), { status: 'ok' });
  });

  test('readyz counts the loaded scenarios, and is 503 while there are none', async () => {
    const ready = await adminOK(server, 'GET', '/readyz');
    assert.deepEqual(ready, { status: 'ready', scenarios: (await listed()).size });
    assert.ok(ready.scenarios > 10, 'the built-in set and the file scenario are loaded');

    assert.deepEqual(await adminOK(empty, 'GET', '/readyz', {}, 503), { status: 'not ready', scenarios: 0 });
    assert.deepEqual(await adminOK(empty, 'GET', '/healthz'), { status: 'ok' }, 'alive while not ready');
    await addScenarios(empty, 'id: only\nsteps:\n  - text: the only one\n');
    assert.deepEqual(await adminOK(empty, 'GET', '/readyz'), { status: 'ready', scenarios: 1 });
    await adminOK(empty, 'DELETE', '/scenarios/only', {}, 204);
    assert.equal((await admin(empty, 'GET', '/readyz')).status, 503);
  });

  test('status reports the last load, schema serves the scenario JSON Schema', async () => {
    const status = await adminOK(server, 'GET', '/status');
    assert.equal(status.failed, false);
    assert.deepEqual(status.errors, []);
    assert.equal(status.scenarios, (await listed()).size);
    assert.ok(!Number.isNaN(Date.parse(status.loadedAt)));

    const res = await fetch(`${server.url}/_mock/schema`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^application\/schema\+json/);
    const schema = await res.json();
    assert.ok(schema.$schema && schema.properties?.steps, 'a JSON Schema of scenarios');
  });

  test('GET /metrics (with --metrics) counts runs by scenario and outcome; without it there is none', async () => {
    const run = await send(CLIENTS[0], 'explicit please');
    assertCleanRun(run);
    const res = await fetch(`${server.url}/metrics`);
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /^agui_mock_runs_total\{scenario="explicit-events",outcome="success"\} [1-9]\d*$/m);
    assert.match(text, /^agui_mock_active_streams 0$/m);
    assert.equal((await fetch(`${empty.url}/metrics`)).status, 404);
  });
});

describe('runtime scenarios: add, list, play, replace, remove', () => {
  const GREETING = (text) => `\
id: runtime-greeting
description: Added at run time.
match:
  message: ^runtime hello$
examples:
  - message: runtime hello
steps:
  - text: ${JSON.stringify(text)}
`;

  test('a YAML body is added, listed as runtime and played by both client versions', async () => {
    const answer = await adminOK(server, 'POST', '/scenarios', { body: GREETING('Hello from YAML.') }, 201);
    assert.deepEqual(answer, { added: ['runtime-greeting'] });
    const entry = (await listed()).get('runtime-greeting');
    assert.equal(entry.runtime, true);
    assert.equal(entry.description, 'Added at run time.');
    assert.match(entry.source, /^runtime-\d+\.yaml:1:1$/);
    assert.deepEqual(entry.examples.map(({ input, ...example }) => example), [{ message: 'runtime hello' }]);
    assert.equal(entry.examples[0].input.messages[0].content, 'runtime hello');
    assert.equal((await listed()).get('from-file').runtime, undefined, 'file scenarios are not runtime');

    for (const client of CLIENTS) {
      const run = await send(client, 'runtime hello');
      assertCleanRun(run);
      assert.equal(lastText(run), 'Hello from YAML.');
    }
  });

  test('a JSON body is added too, and a later scenario with the same id replaces it', async () => {
    const json = { id: 'runtime-greeting', match: { message: '^runtime hello$' }, steps: [{ text: 'Hello from JSON.' }] };
    await adminOK(server, 'POST', '/scenarios', { body: JSON.stringify(json), contentType: 'application/json' }, 201);
    assert.equal(lastText(await send(CLIENTS[1], 'runtime hello')), 'Hello from JSON.');
    await addScenarios(server, GREETING('Hello again.'));
    assert.equal(lastText(await send(CLIENTS[0], 'runtime hello')), 'Hello again.');
    const ids = [...(await listed()).keys()].filter((id) => id === 'runtime-greeting');
    assert.equal(ids.length, 1, 'replaced, not added twice');
  });

  test('a runtime scenario overrides a built-in one of the same id until it is removed', async () => {
    await addScenarios(server, 'id: showcase\nmatch:\n  message: ^showcase$\nsteps:\n  - text: Overridden.\n');
    assert.equal((await listed()).get('showcase').runtime, true);
    assert.equal(lastText(await send(CLIENTS[0], 'showcase')), 'Overridden.');
    await adminOK(server, 'DELETE', '/scenarios/showcase', {}, 204);
    const restored = (await listed()).get('showcase');
    assert.equal(restored.runtime, undefined);
    assert.match(restored.source, /^builtin\/showcase\.yaml/);
    assert.match(lastText(await send(CLIENTS[0], 'showcase')), /^Here is what I found for /);
  });

  test('removing answers 204, then 404; file and built-in scenarios cannot be removed (409)', async () => {
    await adminOK(server, 'DELETE', '/scenarios/runtime-greeting', {}, 204);
    assert.equal((await listed()).has('runtime-greeting'), false);
    const testId = newTestId('removed');
    await send(CLIENTS[0], 'runtime hello', { testId });
    const [entry] = await journalEntries(server, {}, testId);
    assert.equal(entry.scenario, 'catch-all', 'the message falls through to the catch-all');

    const again = await admin(server, 'DELETE', '/scenarios/runtime-greeting');
    assert.equal(again.status, 404);
    assert.equal(again.body.error, 'unknown_scenario');
    for (const id of ['showcase', 'from-file']) {
      const refused = await admin(server, 'DELETE', `/scenarios/${id}`);
      assert.equal(refused.status, 409, id);
      assert.equal(refused.body.error, 'not_runtime');
      assert.ok((await listed()).has(id));
    }
  });

  test('an invalid body is 422 invalid_scenario with every problem at its line and column, and nothing is added', async () => {
    const before = [...(await listed()).keys()].sort();
    const body = [
      'id: first-ok', //               1
      'match:', //                     2
      '  message: ^first$', //         3
      'steps:', //                     4
      '  - text: fine', //             5
      '---', //                        6
      'id: second-bad', //             7
      'match:', //                     8
      '  message: ^second$', //        9
      'steps:', //                    10
      '  - txt: typo', //             11
      '  - tool: {name: x, argz: 1}', // 12
      '',
    ].join('\n');
    const answer = await admin(server, 'POST', '/scenarios', { body });
    assert.equal(answer.status, 422);
    assert.equal(answer.body.error, 'invalid_scenario');
    const problems = answer.body.details.problems.map(({ line, column, message, hint }) => ({ line, column, message, hint }));
    assert.deepEqual(problems, [
      { line: 11, column: 5, message: 'unknown key "txt" in a step', hint: 'did you mean "text"?' },
      { line: 12, column: 21, message: 'unknown key "argz" in tool', hint: 'did you mean "args"?' },
    ]);
    for (const p of answer.body.details.problems) assert.match(p.file, /^runtime-\d+\.yaml$/);
    assert.match(answer.body.message, /2 problem\(s\); the first: runtime-\d+\.yaml:11:5: unknown key "txt"/);
    assert.deepEqual([...(await listed()).keys()].sort(), before, 'the valid first document is not added either');

    const syntax = await admin(server, 'POST', '/scenarios', { body: 'id: [broken\n' });
    assert.equal(syntax.status, 422);
    assert.match(syntax.body.details.problems[0].message, /YAML syntax/);
    assert.equal(syntax.body.details.problems[0].line, 1);

    const emptyBody = await admin(server, 'POST', '/scenarios', { body: '' });
    assert.equal(emptyBody.status, 422);
    assert.match(emptyBody.body.details.problems[0].message, /no scenario/);

    const rules = await admin(server, 'POST', '/scenarios', { body: 'id: ends-early\nsteps:\n  - error: boom\n  - text: after the end\n' });
    assert.equal(rules.status, 422, 'a scenario that breaks the event rules is refused as at load time');
    assert.ok(rules.body.details.problems[0].line >= 3, JSON.stringify(rules.body.details.problems));
  });
});

describe('POST /_mock/reload', () => {
  test('reads the scenario directories again; a broken set is refused (422) and the last good one kept', async () => {
    const runtimeId = (await addScenarios(server, 'id: kept-runtime\nmatch:\n  message: ^kept$\nsteps:\n  - text: Still here.\n'))[0];
    const before = await adminOK(server, 'GET', '/status');
    writeFileSync(path.join(scenarioDir, 'later.yaml'), 'id: later\nmatch:\n  message: ^later$\nsteps:\n  - text: Added later.\n');
    assert.equal((await listed()).has('later'), false, '--watch off: nothing changes before the reload');

    const reloaded = await adminOK(server, 'POST', '/reload');
    assert.equal(reloaded.reloads, before.reloads + 1);
    assert.equal(reloaded.scenarios, before.scenarios + 1);
    assert.equal(reloaded.failed, false);
    assert.equal(lastText(await send(CLIENTS[0], 'later')), 'Added later.');
    assert.equal(lastText(await send(CLIENTS[1], 'kept')), 'Still here.', 'runtime scenarios survive a reload');

    writeFileSync(path.join(scenarioDir, 'later.yaml'), 'id: later\nmatch:\n  message: ^later$\nsteps:\n  - text: Changed.\n  - txet: typo\n');
    const refused = await admin(server, 'POST', '/reload');
    assert.equal(refused.status, 422);
    assert.equal(refused.body.error, 'reload_rejected');
    const [problem] = refused.body.details.problems;
    assert.match(problem.file, /later\.yaml$/);
    assert.deepEqual([problem.line, problem.column], [6, 5]);
    const status = await adminOK(server, 'GET', '/status');
    assert.equal(status.failed, true);
    assert.deepEqual(status.errors, refused.body.details.problems);
    assert.equal(lastText(await send(CLIENTS[0], 'later')), 'Added later.', 'the last good set is still served');
    assert.equal((await admin(server, 'GET', '/readyz')).status, 200);

    writeFileSync(path.join(scenarioDir, 'later.yaml'), 'id: later\nmatch:\n  message: ^later$\nsteps:\n  - text: Fixed.\n');
    assert.equal((await adminOK(server, 'POST', '/reload')).failed, false);
    assert.equal(lastText(await send(CLIENTS[1], 'later')), 'Fixed.');
    await adminOK(server, 'DELETE', `/scenarios/${runtimeId}`, {}, 204);
  });
});

describe('the journal', () => {
  test('records what the frontend sent and how each request ended, filtered by route, thread, scenario and test id', async () => {
    const testId = newTestId('journal');
    const runs = [];
    for (const client of CLIENTS) {
      const conversation = new Conversation(client, { url: server.url, headers: { [TEST_ID_HEADER]: testId } });
      const run = await conversation.send('Search for ocean wave videos', { forwardedProps: { scenario_name: 'video-mixcut' } });
      assertCleanRun(run);
      runs.push(run);
    }
    const dojo = await send(CLIENTS[0], 'Hey there', { testId, route: '/agentic_chat' });
    assertCleanRun(dojo);
    const history = await fetch(`${server.url}/agui/history`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [TEST_ID_HEADER]: testId },
      body: JSON.stringify({ threadId: runs[0].agent.threadId }),
    });
    assert.equal(history.status, 200);
    await send(CLIENTS[0], 'someone else', { testId: newTestId('other') });

    const entries = await journalEntries(server, { testId });
    assert.deepEqual(
      entries.map((e) => [e.method, e.path, e.status, e.scenario, e.outcome]),
      [
        ['POST', '/agui/chat', 200, 'video-mixcut-search', 'success'],
        ['POST', '/agui/chat', 200, 'video-mixcut-search', 'success'],
        ['POST', '/agentic_chat', 200, 'dojo-agentic_chat', 'success'],
        ['POST', '/agui/history', 200, undefined, undefined],
      ],
    );
    assert.ok(entries.every((e, i) => i === 0 || e.seq > entries[i - 1].seq), 'in order');
    assert.ok(entries.every((e) => e.testId === testId && !Number.isNaN(Date.parse(e.time)) && Number.isInteger(e.durationMs)));
    for (const [i, run] of runs.entries()) {
      const entry = entries[i];
      assert.equal(entry.threadId, run.agent.threadId);
      assert.equal(entry.runId, run.runId);
      assert.equal(entry.events, run.events.length, 'the server counts the events the client received');
      // The body exactly as the client sent it: its messages, tools, state and props.
      assert.deepEqual(entry.request, JSON.parse(JSON.stringify(run.input)));
      assert.deepEqual(entry.request.forwardedProps, { scenario_name: 'video-mixcut' });
      assert.equal(entry.request.messages.at(-1).content, 'Search for ocean wave videos');
      assert.equal(entry.request.protocolVersion, run.client.protocolVersion);
    }

    const byRoute = await journalEntries(server, { testId, route: '/agui/history' });
    assert.deepEqual(byRoute.map((e) => e.seq), [entries[3].seq]);
    assert.deepEqual(byRoute[0].request, { threadId: runs[0].agent.threadId });
    const byThread = await journalEntries(server, { testId, thread: runs[0].agent.threadId });
    assert.deepEqual(byThread.map((e) => e.seq), [entries[0].seq, entries[3].seq]);
    const byScenario = await journalEntries(server, { testId, scenario: 'dojo-agentic_chat' });
    assert.deepEqual(byScenario.map((e) => e.seq), [entries[2].seq]);
    assert.deepEqual(await journalEntries(server, { route: '/agui/chat', scenario: 'dojo-agentic_chat', testId }), []);
    assert.deepEqual(await journalEntries(server, {}, testId), entries, 'X-Test-Id selects like ?testId=');
    const everyone = await journalEntries(server);
    assert.ok(everyone.length > entries.length, 'without a test id, every entry is listed');
  });

  test('a refused run is journaled with its status; DELETE /_mock/journal forgets only the caller\'s entries', async () => {
    const [mine, theirs] = [newTestId('mine'), newTestId('theirs')];
    const refused = await send(CLIENTS[0], 'hello', { testId: mine, headers: { [SCENARIO_HEADER]: 'no-such-scenario' } });
    assert.equal(refused.rejection?.status, 404);
    await send(CLIENTS[1], 'hello', { testId: theirs });
    const [entry] = await journalEntries(server, {}, mine);
    assert.equal(entry.status, 404);
    assert.equal(entry.outcome, undefined);
    assert.equal(entry.threadId, refused.agent.threadId);

    await adminOK(server, 'DELETE', '/journal', { testId: mine }, 204);
    assert.deepEqual(await journalEntries(server, {}, mine), []);
    assert.equal((await journalEntries(server, {}, theirs)).length, 1);
  });
});

describe('forcing a scenario', () => {
  test('POST /_mock/force plays a scenario for the next run (times 1 by default), then matching resumes', async () => {
    const testId = newTestId('force');
    assert.deepEqual(await adminOK(server, 'POST', '/force', { testId, body: { scenario: 'showcase' } }), { scenario: 'showcase', times: 1 });
    for (const [client, expected] of [
      [CLIENTS[0], 'showcase'],
      [CLIENTS[1], 'catch-all'],
    ]) {
      const run = await send(client, 'hello', { testId });
      assertCleanRun(run);
      assert.equal((await journalEntries(server, { thread: run.agent.threadId }, testId))[0].scenario, expected);
    }
    const [forced] = await journalEntries(server, { scenario: 'showcase' }, testId);
    assert.ok(forced, 'the forced run is journaled under the forced scenario');
  });

  test('times: n runs, or every run while 0 until DELETE /_mock/force', async () => {
    const testId = newTestId('force-times');
    await adminOK(server, 'POST', '/force', { testId, body: { scenario: 'explicit-events', times: 2 } });
    const texts = [];
    for (let i = 0; i < 3; i++) texts.push(lastText(await send(CLIENTS[i % 2], 'hello', { testId })));
    assert.deepEqual(texts.slice(0, 2), ['Every event exactly as written.', 'Every event exactly as written.']);
    assert.notEqual(texts[2], 'Every event exactly as written.');

    assert.deepEqual(await adminOK(server, 'POST', '/force', { testId, body: { scenario: 'explicit-events', times: 0 } }), {
      scenario: 'explicit-events',
      times: 0,
    });
    for (let i = 0; i < 3; i++) assert.equal(lastText(await send(CLIENTS[i % 2], `hello ${i}`, { testId })), 'Every event exactly as written.');
    await adminOK(server, 'DELETE', '/force', { testId }, 204);
    assert.notEqual(lastText(await send(CLIENTS[0], 'hello', { testId })), 'Every event exactly as written.');
  });

  test('refused force requests: unknown scenario 404, negative times 400, unknown member 400, not JSON 415', async () => {
    const testId = newTestId('force-bad');
    const unknown = await admin(server, 'POST', '/force', { testId, body: { scenario: 'nope' } });
    assert.deepEqual([unknown.status, unknown.body.error], [404, 'unknown_scenario']);
    const negative = await admin(server, 'POST', '/force', { testId, body: { scenario: 'showcase', times: -1 } });
    assert.deepEqual([negative.status, negative.body.error, negative.body.field], [400, 'invalid_input', 'times']);
    const typo = await admin(server, 'POST', '/force', { testId, body: { scenario: 'showcase', tims: 2 } });
    assert.deepEqual([typo.status, typo.body.error], [400, 'invalid_input']);
    assert.match(typo.body.message, /tims/);
    const text = await admin(server, 'POST', '/force', { testId, body: '{"scenario":"showcase"}', contentType: 'text/plain' });
    assert.equal(text.status, 415);
    // none of them forced anything
    assert.notEqual(lastText(await send(CLIENTS[0], 'hello', { testId })), 'Every event exactly as written.');
    assert.equal((await journalEntries(server, {}, testId))[0].scenario, 'catch-all');
  });

  for (const client of CLIENTS) {
    test(`the ${SCENARIO_HEADER} header forces one request of ${client.label}`, async () => {
      const testId = newTestId('force-header');
      const run = await send(client, 'hello', { testId, headers: { [SCENARIO_HEADER]: 'explicit-events' } });
      assertCleanRun(run);
      assert.equal(lastText(run), 'Every event exactly as written.');

      const unknown = await send(client, 'hello', { headers: { [SCENARIO_HEADER]: 'nope' } });
      assert.equal(unknown.rejection?.status, 404);
      assert.equal(unknown.rejection.payload.error, 'unknown_scenario');
      assert.equal(unknown.failure, unknown.rejection);
    });
  }

  test('the header wins over a scenario forced through the admin API, which stays for the next run', async () => {
    const testId = newTestId('force-both');
    await adminOK(server, 'POST', '/force', { testId, body: { scenario: 'explicit-events' } });
    const headed = await send(CLIENTS[0], 'hello', { testId, headers: { [SCENARIO_HEADER]: 'showcase' } });
    assert.match(lastText(headed), /^Here is what I found/);
    assert.equal(lastText(await send(CLIENTS[1], 'hello', { testId })), 'Every event exactly as written.');
  });
});

describe('breakpoints over fetch', () => {
  const isText = (e) => e.type.startsWith('TEXT_MESSAGE');

  test('a step breakpoint pauses the stream before the step until it is released', async () => {
    const testId = newTestId('bp-step');
    const created = await adminOK(server, 'POST', '/breakpoints', { testId, body: { scenario: 'showcase', step: 'answer' } }, 201);
    assert.match(created.id, /^bp-\d+$/);
    assert.deepEqual(created, { id: created.id, testId, scenario: 'showcase', step: 'answer', reached: false, released: false });

    const input = runInput('showcase');
    const stream = openRun(server, input, { headers: { [TEST_ID_HEADER]: testId } });
    const reached = await adminOK(server, 'GET', `/breakpoints/${created.id}?wait=10s`);
    assert.deepEqual(reached, { ...created, reached: true, threadId: input.threadId, runId: input.runId });
    // Whatever came before the step has arrived; nothing of the step has.
    await stream.waitFor((e) => e.type === 'ACTIVITY_DELTA');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(typesOf(stream.events).includes('REASONING_MESSAGE_CONTENT'));
    assert.equal(stream.events.filter(isText).length, 0, 'no text before the release');
    assert.equal(stream.events.at(-1).type, 'ACTIVITY_DELTA');
    assert.equal(stream.ended, undefined, 'the stream is still open');

    const released = await adminOK(server, 'POST', `/breakpoints/${created.id}/release`);
    assert.equal(released.released, true);
    const { events, error } = await stream.done;
    assert.equal(error, undefined);
    assert.equal(events.at(-1).type, 'RUN_FINISHED');
    assert.equal(events.find(isText)?.type, 'TEXT_MESSAGE_START');
    // A breakpoint triggers once: the next run of the scenario is not paused.
    const next = openRun(server, runInput('showcase'), { headers: { [TEST_ID_HEADER]: testId } });
    assert.equal((await next.done).events.at(-1).type, 'RUN_FINISHED');
  });

  test('an event breakpoint pauses before the event at that index; DELETE releases a paused stream', async () => {
    const testId = newTestId('bp-event');
    const { id } = await adminOK(server, 'POST', '/breakpoints', { testId, body: { event: 0 } }, 201);
    const stream = openRun(server, runInput('explicit please'), { headers: { [TEST_ID_HEADER]: testId } });
    const reached = await adminOK(server, 'GET', `/breakpoints/${id}?wait=10s`);
    assert.equal(reached.reached, true);
    assert.equal(reached.event, 0);
    await stream.ready;
    assert.equal(stream.status, 200, 'the stream is open: its headers are sent');
    assert.deepEqual(stream.events, [], 'paused before RUN_STARTED');
    await adminOK(server, 'DELETE', `/breakpoints/${id}`, {}, 204);
    assert.deepEqual(typesOf((await stream.done).events).at(-1), 'RUN_FINISHED');
    assert.equal((await admin(server, 'GET', `/breakpoints/${id}`)).status, 404);
  });

  test('a breakpoint of one scenario leaves other scenarios alone; one released before it is reached does not pause', async () => {
    const testId = newTestId('bp-scope');
    const { id } = await adminOK(server, 'POST', '/breakpoints', { testId, body: { scenario: 'showcase', event: 1 } }, 201);
    const other = openRun(server, runInput('explicit please'), { headers: { [TEST_ID_HEADER]: testId } });
    assert.equal((await other.done).events.at(-1).type, 'RUN_FINISHED');
    assert.equal((await adminOK(server, 'GET', `/breakpoints/${id}`)).reached, false);

    await adminOK(server, 'POST', `/breakpoints/${id}/release`);
    const disarmed = openRun(server, runInput('showcase'), { headers: { [TEST_ID_HEADER]: testId } });
    assert.equal((await disarmed.done).events.at(-1).type, 'RUN_FINISHED');
  });

  test('waiting times out with 408 not_reached; bad requests are refused', async () => {
    const testId = newTestId('bp-bad');
    const { id } = await adminOK(server, 'POST', '/breakpoints', { testId, body: { step: 'answer' } }, 201);
    const started = performance.now();
    const timeout = await admin(server, 'GET', `/breakpoints/${id}?wait=150ms`);
    assert.deepEqual([timeout.status, timeout.body.error], [408, 'not_reached']);
    assert.ok(performance.now() - started >= 140, 'it waited');
    for (const wait of ['soon', '-1s', '6m']) {
      const bad = await admin(server, 'GET', `/breakpoints/${id}?wait=${wait}`);
      assert.deepEqual([bad.status, bad.body.field], [400, 'wait'], wait);
    }
    for (const body of [{}, { step: 'answer', event: 2 }, { scenario: 'showcase' }]) {
      const bad = await admin(server, 'POST', '/breakpoints', { testId, body });
      assert.deepEqual([bad.status, bad.body.error], [400, 'invalid_input'], JSON.stringify(body));
    }
    const typo = await admin(server, 'POST', '/breakpoints', { testId, body: { stepp: 'answer' } });
    assert.equal(typo.status, 400);
    const unknown = await admin(server, 'POST', '/breakpoints', { testId, body: { scenario: 'nope', step: 'answer' } });
    assert.deepEqual([unknown.status, unknown.body.error], [404, 'unknown_scenario']);
    for (const [method, suffix] of [
      ['GET', ''],
      ['POST', '/release'],
      ['DELETE', ''],
    ]) {
      const missing = await admin(server, method, `/breakpoints/bp-999999${suffix}`);
      assert.deepEqual([missing.status, missing.body.error], [404, 'unknown_breakpoint'], method);
    }
    await adminOK(server, 'DELETE', `/breakpoints/${id}`, {}, 204);
  });

  for (const client of CLIENTS) {
    test(`${client.label} holds a half-streamed conversation while paused, and completes it after the release`, async () => {
      const testId = newTestId('bp-client');
      const { id } = await adminOK(server, 'POST', '/breakpoints', { testId, body: { scenario: 'showcase', step: 'answer' } }, 201);
      const conversation = new Conversation(client, { url: server.url, headers: { [TEST_ID_HEADER]: testId } });
      const seen = [];
      const running = conversation.send('showcase', { onEvent: (event) => seen.push(event.type) });
      await adminOK(server, 'GET', `/breakpoints/${id}?wait=10s`);
      await eventually(() => seen.includes('ACTIVITY_DELTA'), 'the plan card before the breakpoint', 10_000, 10);

      const roles = conversation.agent.messages.map((m) => m.role);
      assert.deepEqual(roles, ['user', 'reasoning', 'activity'], 'reasoning and the plan card, no answer yet');
      assert.equal(conversation.agent.messages[1].content, 'Let me plan how to answer showcase.');
      assert.deepEqual(conversation.agent.state, { plan: [{ title: 'Gather sources', status: 'pending' }], progress: 10 });

      await adminOK(server, 'POST', `/breakpoints/${id}/release`);
      const run = await running;
      assertCleanRun(run);
      assert.equal(eventsOf(run, 'RUN_FINISHED').length, 1);
      assert.match(lastText(run), /^Here is what I found for /);
      assert.equal(messagesOf(run, 'assistant').at(-1).toolCalls[0].function.name, 'lookup_weather');
    });
  }
});

describe('the admin token (--admin-token)', () => {
  const ADMIN_TOKEN = 'e2e-admin-token';
  const RUN_TOKEN = 'e2e-run-token';
  const guarded = useServer(['--admin-token', ADMIN_TOKEN, '--auth-token', RUN_TOKEN]);

  test('the helpers send it: a scenario is added, played with the run token, and journaled', async () => {
    const testId = newTestId('admin-token');
    assert.equal(guarded.adminToken, ADMIN_TOKEN);
    assert.deepEqual(await addScenarios(guarded, 'id: guarded\nmatch: {message: ^guarded$}\nsteps: [{text: behind a token}]\n'), ['guarded']);
    const run = await new Conversation(CLIENTS[0], {
      url: guarded.url,
      headers: { [TEST_ID_HEADER]: testId, Authorization: `Bearer ${RUN_TOKEN}` },
    }).send('guarded');
    assertCleanRun(run);
    const [entry] = await journalEntries(guarded, {}, testId);
    assert.deepEqual([entry.status, entry.scenario], [200, 'guarded']);
  });

  test('every admin call without it, or with the run token, is refused with 401 and a challenge', async () => {
    for (const token of [null, RUN_TOKEN, 'not-the-token']) {
      for (const [method, path] of [['GET', '/healthz'], ['GET', '/journal'], ['POST', '/reset'], ['DELETE', '/scenarios/guarded']]) {
        const { status, headers, body } = await admin(guarded, method, path, { token });
        assert.equal(status, 401, `${method} ${path} with ${token}`);
        assert.equal(headers.get('www-authenticate'), 'Bearer realm="agui-mock admin"');
        assert.equal(body.error, 'unauthorized');
        assert.ok(!JSON.stringify(body).includes(ADMIN_TOKEN));
      }
    }
    assert.equal((await admin(guarded, 'GET', '/scenarios')).status, 200, 'and nothing was removed');
  });
});

describe('tools that send no Origin, as curl does', () => {
  test('add a scenario and reset with a plain fetch; a body that is not declared JSON or YAML is refused with 415', async () => {
    const yaml = 'id: curl-added\nmatch: {message: ^from curl$}\nsteps: [{text: hi}]\n';
    const post = (path, body, type) =>
      fetch(`${server.url}/_mock${path}`, { method: 'POST', body, ...(type && { headers: { 'Content-Type': type } }) });
    const added = await post('/scenarios', yaml, 'application/yaml');
    assert.equal(added.status, 201, await added.text());
    assert.equal((await post('/reset')).status, 204);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const refused = await post('/scenarios', yaml.replace('curl-added', 'curl-refused'), type);
      const body = await refused.json();
      assert.deepEqual([refused.status, body.error], [415, 'unsupported_media_type'], type);
      assert.match(body.message, new RegExp(`got ${type}`));
    }
    const ids = (await adminOK(server, 'GET', '/scenarios')).scenarios.map((s) => s.id);
    assert.ok(ids.includes('curl-added') && !ids.includes('curl-refused'), ids.join(', '));
    await adminOK(server, 'DELETE', '/scenarios/curl-added', {}, 204);
  });
});
