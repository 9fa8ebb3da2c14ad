// `agui-mock verify` against a scripted agent that is as particular as real ones:
// - it refuses thread and run ids that are not UUIDs with 400, as LangGraph Platform
//   does, so verify must ask as HttpAgent and CopilotKit do;
// - it delivers a tool call inside MESSAGES_SNAPSHOT, as LangGraph and backend tool
//   rendering do, so a renamed tool or argument there must be drift;
// - it calls the frontend tool the client offers only when the tool's definition and
//   the context come with the request, and runs it itself otherwise, as pydantic-ai
//   does; so a fixture keeps what the client offered, verify sends it, and --update
//   re-records with it.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT, serverBinary, writeTempFiles } from './harness.js';
import { beginStream, startFakeUpstream, writeEvent } from './recording.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The weather answer: its tool call comes inside the run's MESSAGES_SNAPSHOT. */
const SNAPSHOT_FIXTURE = `id: weather
match: {message: ^weather}
examples: [{message: weather in Paris}]
events:
  - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
  - type: MESSAGES_SNAPSHOT
    messages:
      - {id: u1, role: user, content: weather in Paris}
      - {id: a1, role: assistant, toolCalls: [{id: c1, type: function, function: {name: get_weather, arguments: '{"city":"Paris"}'}}]}
      - {id: t1, role: tool, toolCallId: c1, content: sunny}
      - {id: a2, role: assistant, content: It is sunny.}
  - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
`;

/** The booking: the agent asks the user through the frontend tool the client offers. */
const TOOL_FIXTURE = `id: book
match: {message: ^book}
examples:
  - message: book a table
    tools:
      - name: confirm
        description: Ask the user to confirm
        parameters: {type: object, properties: {question: {type: string}}, required: [question]}
    context: [{description: locale, value: de-DE}]
steps:
  - tool: {name: confirm, args: {question: 'Book it?'}}
  - text: Booked.
`;

/**
 * The agent. version.tool and version.arg name the tool and argument of the weather
 * snapshot; version.frontendTool the tool it calls to confirm a booking; with
 * version.uuidsOnly, ids that are not UUIDs are refused.
 */
function agentHandler(version) {
  return (req, res) => {
    const input = req.body;
    if (version.uuidsOnly && !(UUID.test(input.threadId) && UUID.test(input.runId))) {
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ detail: `Invalid thread or run id: ${input.threadId} ${input.runId}` }));
      return;
    }
    const ids = { threadId: input.threadId, runId: input.runId };
    const user = input.messages.find((m) => m.role === 'user');
    beginStream(res);
    writeEvent(res, { type: 'RUN_STARTED', ...ids });
    if (user.content.startsWith('weather')) {
      const call = { id: 'call-1', type: 'function', function: { name: version.tool, arguments: JSON.stringify({ [version.arg]: 'Paris' }) } };
      writeEvent(res, {
        type: 'MESSAGES_SNAPSHOT',
        messages: [user, { id: 'a-1', role: 'assistant', toolCalls: [call] }, { id: 'r-1', role: 'tool', toolCallId: 'call-1', content: 'sunny' }, { id: 'a-2', role: 'assistant', content: 'Sunny in Paris.' }],
      });
    } else if (input.messages.some((m) => m.role === 'tool')) {
      text(res, 'm-2', 'Your table is booked.');
    } else {
      const offered = input.tools.find((t) => t.name === 'confirm' && t.parameters?.properties?.question);
      const locale = input.context.find((c) => c.description === 'locale');
      if (offered && locale) {
        writeEvent(res, { type: 'TOOL_CALL_START', toolCallId: 'call-2', toolCallName: version.frontendTool });
        writeEvent(res, { type: 'TOOL_CALL_ARGS', toolCallId: 'call-2', delta: '{"question":"Book for two?"}' });
        writeEvent(res, { type: 'TOOL_CALL_END', toolCallId: 'call-2' });
      } else {
        text(res, 'm-1', 'I booked it without asking.');
      }
    }
    writeEvent(res, { type: 'RUN_FINISHED', ...ids });
    res.end();
  };
}

function text(res, messageId, content) {
  writeEvent(res, { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' });
  writeEvent(res, { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: content });
  writeEvent(res, { type: 'TEXT_MESSAGE_END', messageId });
}

/** Runs `agui-mock verify --format json` with args; resolves with {code, report, stderr}. */
async function verify(...args) {
  const bin = await serverBinary();
  try {
    const { stdout, stderr } = await promisify(execFile)(bin, ['verify', '--format', 'json', ...args], { cwd: REPO_ROOT, timeout: 60_000 });
    return { code: 0, report: JSON.parse(stdout), stderr };
  } catch (err) {
    if (typeof err.code !== 'number') throw err;
    let report;
    try {
      report = JSON.parse(err.stdout);
    } catch {
      report = { stdout: err.stdout };
    }
    return { code: err.code, report, stderr: err.stderr };
  }
}

const V1 = { tool: 'get_weather', arg: 'city', frontendTool: 'confirm', uuidsOnly: true };

describe('agui-mock verify asks as a real client does', () => {
  let agent;
  before(async () => {
    agent = await startFakeUpstream(agentHandler(V1));
  });
  after(() => agent?.close());

  test('UUID ids, the headers and members HttpAgent sends, and what the example offered', async () => {
    const fixtures = writeTempFiles({ 'weather.yaml': SNAPSHOT_FIXTURE, 'book.yaml': TOOL_FIXTURE });
    const { code, report, stderr } = await verify('--upstream', agent.url, fixtures);
    assert.equal(code, 0, JSON.stringify(report) + stderr);
    assert.deepEqual(report.results.map((r) => [r.scenario, r.status]).sort(), [['book', 'pass'], ['weather', 'pass']]);
    assert.equal(agent.requests.length, 3, 'the weather run, and the booking and its tool result');
    for (const { headers, body } of agent.requests) {
      assert.equal(headers.accept, 'text/event-stream');
      assert.equal(headers['content-type'], 'application/json');
      assert.equal(body.protocolVersion, '1.0');
      assert.match(body.threadId, UUID);
      assert.match(body.runId, UUID);
      // the messages verify writes, as the app does; an assistant message keeps the agent's id
      for (const m of body.messages.filter((m) => m.role !== 'assistant')) assert.match(m.id, UUID, `message ${JSON.stringify(m)}`);
      assert.deepEqual(body.state, {});
      assert.deepEqual(body.forwardedProps, {});
      assert.equal(body.parentRunId, undefined);
    }
    const booking = agent.requests.filter((r) => r.body.messages[0].content === 'book a table');
    for (const { body } of booking) {
      assert.deepEqual(body.tools, [{ name: 'confirm', description: 'Ask the user to confirm', parameters: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] } }]);
      assert.deepEqual(body.context, [{ description: 'locale', value: 'de-DE' }]);
    }
  });
});

describe('agui-mock verify sees tool calls inside MESSAGES_SNAPSHOT', () => {
  for (const [change, version, difference] of [
    ['a renamed tool', { ...V1, uuidsOnly: false, tool: 'fetch_weather' }, 'message 2 of the last MESSAGES_SNAPSHOT is now an assistant message calling fetch_weather (the fixture\'s is an assistant message calling get_weather)'],
    ['a renamed argument', { ...V1, uuidsOnly: false, arg: 'town' }, 'the arguments of tool get_weather: the agent now sends argument town'],
  ]) {
    test(`${change} is drift`, async () => {
      const agent = await startFakeUpstream(agentHandler(version));
      try {
        const fixtures = writeTempFiles({ 'weather.yaml': SNAPSHOT_FIXTURE });
        const { code, report, stderr } = await verify('--upstream', agent.url, fixtures);
        assert.equal(code, 1, JSON.stringify(report) + stderr);
        assert.equal(report.results[0].status, 'drift');
        assert.equal(report.results[0].difference, `example 1, turn 1: ${difference}`);
      } finally {
        await agent.close();
      }
    });
  }
});

describe('agui-mock verify --update re-records with what the example offered', () => {
  test('the re-recording asks with the tools and context, keeps them, and verifies clean', async () => {
    const agent = await startFakeUpstream(agentHandler({ ...V1, frontendTool: 'ask_user' }));
    try {
      const fixtures = writeTempFiles({ 'book.yaml': TOOL_FIXTURE });
      const drift = await verify('--upstream', agent.url, fixtures);
      assert.equal(drift.code, 1, JSON.stringify(drift.report) + drift.stderr);
      assert.match(drift.report.results[0].difference, /TOOL_CALL_START ask_user/);

      agent.requests.length = 0;
      const updated = await verify('--update', '--upstream', agent.url, fixtures);
      assert.equal(updated.code, 0, JSON.stringify(updated.report) + updated.stderr);
      assert.match(updated.report.results[0].updated, /TOOL_CALL_START ask_user/);
      assert.ok(agent.requests.length >= 2);
      for (const { body } of agent.requests) {
        assert.equal(body.tools[0]?.parameters?.properties?.question?.type, 'string', 'the re-recording offered the tool as defined');
        assert.deepEqual(body.context, [{ description: 'locale', value: 'de-DE' }]);
      }
      const file = readFileSync(path.join(fixtures, 'book.yaml'), 'utf8');
      assert.match(file, /ask_user/);
      assert.match(file, /description: Ask the user to confirm/);
      assert.match(file, /value: de-DE/);

      const clean = await verify('--upstream', agent.url, fixtures);
      assert.equal(clean.code, 0, JSON.stringify(clean.report) + clean.stderr);
      assert.equal(clean.report.results[0].status, 'pass');
    } finally {
      await agent.close();
    }
  });
});
