// (v) `agui-mock verify`: fixtures recorded from a real agent are checked against the
// agent they stand in for. The agent is agui-mock itself serving scenarios of its own,
// behind a token; the fixtures are recorded from it with `agui-mock record` and the real
// HttpAgent (two conversations that pause on an interrupt, answered both ways, and one
// that calls a tool). Then the agent changes, verify finds each drift, --update
// re-records the fixtures and they verify clean and replay to the real client.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { assertCleanRun, CLIENTS, Conversation } from './clients.js';
import { makeTempDir, REPO_ROOT, serverBinary, startServer, writeTempFiles } from './harness.js';
import { closedPort, recordings, startRecorder, startReplay } from './recording.js';

const [current] = CLIENTS;
const TOKEN = 'e2e-verify-token-9f3a';
const AUTH = { Authorization: `Bearer ${TOKEN}` };

/** The agent's scenarios: a weather answer with a tool, and a deploy that asks first. */
const AGENT_V1 = {
  'weather.yaml': `id: weather
match: {message: '(?i)weather'}
steps:
  - tool: {name: lookup_weather, args: {city: Paris, days: 3}, result: {temp: 21}}
  - text: It is sunny in Paris.
`,
  'deploy.yaml': `id: deploy
match: {message: '(?i)deploy'}
steps:
  - text: Ready to deploy.
  - interrupt:
      reason: confirmation
      message: Deploy to prod?
      on:
        resolved: [{text: Deployed.}]
        cancelled: [{text: Not deployed.}]
`,
};

/** The agent a release later: it looks the user up first, and says why it cancels with a tool. */
const AGENT_V2 = {
  'weather.yaml': AGENT_V1['weather.yaml'].replace('steps:\n', 'steps:\n  - tool: {name: lookup_user, args: {id: 7}, result: {name: Ada}}\n'),
  'deploy.yaml': AGENT_V1['deploy.yaml'].replace(
    'cancelled: [{text: Not deployed.}]',
    'cancelled: [{tool: {name: notify, args: {channel: ops}, result: sent}}, {text: Not deployed.}]',
  ),
};

/** Starts agui-mock as the agent, serving files, wanting the token. */
function startAgent(files) {
  return startServer(['--no-builtin', '--scenarios', writeTempFiles(files), '--auth-token', TOKEN, '--speed', '0']);
}

/** Runs `agui-mock verify` with args; resolves with {code, stdout, stderr}. */
async function verify(...args) {
  const bin = await serverBinary();
  try {
    const { stdout, stderr } = await promisify(execFile)(bin, ['verify', ...args], { cwd: REPO_ROOT, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    if (typeof err.code !== 'number') throw err;
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** The test cases of a JUnit report: [{suite, name, failure}]. */
function junitCases(xml) {
  assert.match(xml, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites /);
  const cases = [];
  for (const [, suite, body] of xml.matchAll(/<testsuite name="([^"]*)"[^>]*>([\s\S]*?)<\/testsuite>/g)) {
    for (const [, name, inner] of body.matchAll(/<testcase name="([^"]*)"[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
      const failure = /<failure message="([^"]*)"/.exec(inner ?? '')?.[1];
      cases.push({ suite, name: name.replaceAll('&#34;', '"'), failure });
    }
  }
  return cases;
}

describe('agui-mock verify', () => {
  let agent;
  let fixtures;

  before(async () => {
    agent = await startAgent(AGENT_V1);
    fixtures = makeTempDir('agui-mock-fixtures-');
    const recorder = await startRecorder(agent.url, fixtures);
    try {
      const weather = await new Conversation(current, { url: recorder.url, headers: AUTH }).send('What is the weather?');
      assertCleanRun(weather);
      for (const status of ['resolved', 'cancelled']) {
        const conversation = new Conversation(current, { url: recorder.url, headers: AUTH });
        const first = await conversation.send('deploy the app');
        assertCleanRun(first);
        const resume = conversation.agent.pendingInterrupts.map((i) => ({ interruptId: i.id, status }));
        assertCleanRun(await conversation.continue({ resume }));
      }
      await recorder.waitForOutput((line) => line.startsWith('recorded run') && line.includes('deploy'), 5_000);
    } finally {
      await recorder.stop();
    }
    assert.equal(recordings(fixtures).length, 2, `recordings: ${recordings(fixtures)}`);
  });
  after(() => agent?.stop());

  test('fixtures recorded from the agent pass, every turn of every conversation', async () => {
    const junit = path.join(makeTempDir(), 'verify.xml');
    const { code, stdout, stderr } = await verify('--upstream', `${agent.url}/agui/chat`, '--header', `Authorization: Bearer ${TOKEN}`, '--junit', junit, fixtures);
    assert.equal(code, 0, stdout + stderr);
    assert.match(stdout, /2 scenario\(s\) verified: 2 pass, 0 drift, 0 error\n$/);
    const cases = junitCases(readFileSync(junit, 'utf8'));
    assert.deepEqual(
      cases.map((c) => c.name).sort(),
      ['example 1, turn 1', 'example 1, turn 1', 'example 1, turn 2 after interrupt 1 cancelled', 'example 1, turn 2 after interrupt 1 resolved'],
    );
    assert.ok(cases.every((c) => c.failure === undefined));
    assert.ok(!readFileSync(junit, 'utf8').includes(TOKEN));
  });

  test('an agent that cannot be reached, or that refuses, is an error (exit 2)', async () => {
    const closed = await verify('--upstream', `http://127.0.0.1:${await closedPort()}`, fixtures);
    assert.equal(closed.code, 2, closed.stdout + closed.stderr);
    assert.match(closed.stdout, /: error: scenario rec-\S+: example 1, turn 1: the agent is unreachable: .*connection refused/);
    const refused = await verify('--upstream', `${agent.url}/agui/chat`, fixtures);
    assert.equal(refused.code, 2);
    assert.match(refused.stdout, /the agent refused the run: 401 Unauthorized/);
  });

  describe('after the agent changed', () => {
    let changed;
    before(async () => {
      changed = await startAgent(AGENT_V2);
    });
    after(() => changed?.stop());

    test('each drift is reported with its fixture and the first difference', async () => {
      const { code, stdout, stderr } = await verify('--upstream', `${changed.url}/agui/chat`, '--header', `Authorization: Bearer ${TOKEN}`, '--format', 'json', fixtures);
      assert.equal(code, 1, stdout + stderr);
      const report = JSON.parse(stdout);
      const byFile = Object.fromEntries(report.results.map((r) => [path.basename(r.file).split('-')[0], r]));
      assert.equal(byFile.what.status, 'drift');
      assert.equal(byFile.what.difference, 'example 1, turn 1: the agent now sends TOOL_CALL_START lookup_user before TOOL_CALL_START lookup_weather');
      assert.equal(byFile.deploy.status, 'drift');
      assert.equal(byFile.deploy.difference, 'example 1, turn 2 after interrupt 1 cancelled: the agent now sends TOOL_CALL_START notify before TEXT_MESSAGE_START');
      assert.ok(byFile.deploy.line >= 1 && path.isAbsolute(byFile.deploy.file));
    });

    test('--update re-records the drifted fixtures in place; they then verify clean and replay', async () => {
      const before = Object.fromEntries(recordings(fixtures).map((f) => [f, readFileSync(path.join(fixtures, f), 'utf8')]));
      const args = ['--upstream', `${changed.url}/agui/chat`, '--header', `Authorization: Bearer ${TOKEN}`, fixtures];
      const updated = await verify('--update', ...args);
      assert.equal(updated.code, 0, updated.stdout + updated.stderr);
      assert.match(updated.stdout, /: updated: scenario rec-what-is-the-weather-\S+ re-recorded from the agent; what changed: example 1, turn 1: the agent now sends TOOL_CALL_START lookup_user/);
      assert.deepEqual(recordings(fixtures), Object.keys(before), 'the same files, none added');
      for (const file of recordings(fixtures)) {
        const text = readFileSync(path.join(fixtures, file), 'utf8');
        assert.notEqual(text, before[file]);
        assert.match(text, /^# Re-recorded by agui-mock verify -update from http:\/\/127\.0\.0\.1:\d+\/agui\/chat at /m);
        assert.ok(!text.includes(TOKEN), `${file} holds the token`);
      }
      const clean = await verify(...args);
      assert.equal(clean.code, 0, clean.stdout + clean.stderr);

      // the fixtures replay the new behaviour to the real client, declaring the protocol
      // version the agent declared to verify's requests, if any
      const deploy = recordings(fixtures).find((f) => f.startsWith('deploy-the-app'));
      const [, version] = /type: RUN_STARTED\b.*protocolVersion: ['"]?([\d.]+)/.exec(readFileSync(path.join(fixtures, deploy), 'utf8')) ?? [];
      const declared = version && current.protocolVersion;
      const replay = await startReplay(fixtures);
      try {
        const conversation = new Conversation(current, { url: replay.url });
        const first = await conversation.send('deploy the app');
        assertCleanRun(first, { declared });
        const resume = conversation.agent.pendingInterrupts.map((i) => ({ interruptId: i.id, status: 'cancelled' }));
        const second = await conversation.continue({ resume });
        assertCleanRun(second, { declared });
        assert.ok(second.events.some((e) => e.type === 'TOOL_CALL_START' && e.toolCallName === 'notify'));
      } finally {
        await replay.stop();
      }
    });
  });
});

// A fixture file someone edits by hand still gets verified, and a file that does not
// load stops verify before it asks the agent anything.
test('verify refuses scenario files that do not load', async () => {
  const dir = writeTempFiles({ 'bad.yaml': 'steps: [{txt: hi}]\n' });
  writeFileSync(path.join(dir, 'good.yaml'), 'examples: [{message: hi}]\nsteps: [{text: hi}]\n');
  const { code, stderr } = await verify('--upstream', 'http://127.0.0.1:9', dir);
  assert.equal(code, 2);
  assert.match(stderr, /bad\.yaml:1:10: unknown key "txt"/);
  assert.match(stderr, /nothing was verified/);
});
