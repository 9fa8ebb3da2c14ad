// The compose examples of the docs run as written with docker-compose, against make
// image's image: docs/e2e/compose.yaml turns healthy and serves the scenario mounted
// beside it, with the settings the file gives; docs/copilotkit/compose.yaml, copied into
// an app's directory as docs/copilotkit.md says, builds that app and mounts its
// scenarios/ (the app here is the mock in record mode, relaying to the mock service).
//
// Without a Docker daemon these tests skip loudly outside CI (see docker.js); so they do
// without docker-compose. A skip is one skipped test, counted in the summary.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { runInput } from './admin.js';
import { describeUnless, docker, eventually, IMAGE, skipReason } from './docker.js';
import { makeTempDir, REPO_ROOT } from './harness.js';
import { closedPort } from './recording.js';
import { postRun, streamedTexts } from './threads.js';

const COMPOSE_FILE = path.join(REPO_ROOT, 'docs/e2e/compose.yaml');
const COMPOSE = process.env.DOCKER_COMPOSE || 'docker-compose';

const composeSkip =
  skipReason ||
  (await promisify(execFile)(COMPOSE, ['version']).then(
    () => false,
    (err) => {
      if (process.env.CI) throw new Error(`CI is set but ${COMPOSE} does not run: ${err.message}`);
      const why = `${COMPOSE} does not run, so the compose test is SKIPPED`;
      console.warn(`\n${'!'.repeat(80)}\n!! ${why}.\n${'!'.repeat(80)}\n`);
      return why;
    },
  ));

describeUnless(composeSkip, 'docs/e2e/compose.yaml, as written', () => {
  const project = `agui-mock-e2e-compose-${process.pid}`;
  let url;
  let env;
  const compose = (...args) =>
    promisify(execFile)(COMPOSE, ['-f', COMPOSE_FILE, '-p', project, ...args], { env, timeout: 120_000 });

  before(async () => {
    const port = await closedPort();
    url = `http://127.0.0.1:${port}`;
    env = { ...process.env, AGUI_MOCK_IMAGE: IMAGE, AGUI_MOCK_PORT: String(port) };
    await compose('up', '-d', '--no-build'); // docker-compose 1.x has no --wait: the test waits
  });

  after(async () => {
    await compose('down', '-v', '--remove-orphans');
  });

  test('turns healthy and serves the scenario mounted beside it, with its settings', async () => {
    const { stdout } = await compose('ps', '-q', 'agui-mock');
    const id = stdout.trim();
    await eventually(async () => {
      const { stdout: health } = await docker(['inspect', '--format', '{{.State.Health.Status}}', id]);
      return health.trim() === 'healthy';
    }, 'the compose service is healthy', 40_000);

    const { events } = await postRun({ url }, runInput('where is order 1234'));
    assert.deepEqual(streamedTexts(events), ['Order 1234 has shipped with DHL and arrives in 2 days.']);
    const preflight = await fetch(`${url}/agui/chat`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:3000', 'Access-Control-Request-Method': 'POST' },
    });
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'http://localhost:3000');
  });
});

describeUnless(composeSkip, 'docs/copilotkit/compose.yaml, copied beside an app', () => {
  const project = `agui-mock-e2e-copilotkit-${process.pid}`;
  const app = makeTempDir('agui-mock-e2e-app-');
  const compose = (...args) => promisify(execFile)(COMPOSE, ['-p', project, ...args],
    { cwd: app, env: { ...process.env, AGUI_MOCK_IMAGE: IMAGE }, timeout: 180_000 });

  before(async () => {
    copyFileSync(path.join(REPO_ROOT, 'docs/copilotkit/compose.yaml'), path.join(app, 'compose.yaml'));
    mkdirSync(path.join(app, 'scenarios'));
    writeFileSync(path.join(app, 'scenarios', 'app.yaml'), 'id: from-the-app\nmatch: {message: hello app}\nsteps: [{text: Served from the app directory.}]\n');
    // the "app": answers on 3000 by relaying every run to the mock service
    writeFileSync(path.join(app, 'Dockerfile'), `FROM ${IMAGE}\nENV AGUI_MOCK_ADDR=0.0.0.0:3000 AGUI_MOCK_UPSTREAM=http://agui-mock:8000 AGUI_MOCK_RECORD_DIR=/tmp/recorded\nCMD ["record"]\n`);
    await compose('up', '-d', '--build'); // docker-compose 1.x has no --wait: the test waits
  });

  after(async () => {
    await compose('down', '-v', '--remove-orphans', '--rmi', 'local');
  });

  test('builds the app from its directory and serves the scenarios beside it', async () => {
    let events;
    await eventually(async () => {
      ({ events } = await postRun({ url: 'http://127.0.0.1:3000' }, runInput('hello app')).catch(() => ({})));
      return events?.length > 0;
    }, 'the app answers through the mock', 60_000);
    assert.deepEqual(streamedTexts(events), ['Served from the app directory.']);
  });
});
