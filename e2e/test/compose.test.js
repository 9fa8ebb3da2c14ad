// The compose example of the docs (docs/e2e/compose.yaml) run as written with
// docker-compose, against make image's image: it turns healthy and serves the scenario
// mounted beside it, with the settings the file gives.
//
// Without a Docker daemon these tests skip loudly outside CI (see docker.js); so they do
// without docker-compose. A skip is one skipped test, counted in the summary.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { runInput } from './admin.js';
import { describeUnless, docker, eventually, IMAGE, skipReason } from './docker.js';
import { REPO_ROOT } from './harness.js';
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
