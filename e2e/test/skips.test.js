// A suite that cannot run here is counted as skipped, and fails in CI: the compose test,
// run without Docker or docker-compose, as a fresh clone runs it.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Runs test/compose.test.js in a child node:test without Docker, with env; resolves {code, output}. */
async function runComposeTest(env) {
  const childEnv = { ...process.env, DOCKER: '/nonexistent/docker', DOCKER_COMPOSE: '/nonexistent/docker-compose', ...env };
  delete childEnv.NODE_TEST_CONTEXT; // run as a top-level test run, with its own summary
  if (!env.CI) delete childEnv.CI;
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath, ['--test', '--test-reporter=tap', path.join(here, 'compose.test.js')],
      { env: childEnv, timeout: 60_000 },
    );
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    if (typeof err.code !== 'number') throw err;
    return { code: err.code, output: err.stdout + err.stderr };
  }
}

test('without Docker each compose suite is one skipped test in the summary', async () => {
  const { code, output } = await runComposeTest({});
  assert.equal(code, 0, output);
  assert.match(output, /# SKIP .*SKIPPED/);
  assert.match(output, /^# tests 2$/m, output);
  assert.match(output, /^# skipped 2$/m, output);
});

test('without Docker, in CI, the compose suite fails', async () => {
  const { code, output } = await runComposeTest({ CI: 'true' });
  assert.notEqual(code, 0, output);
  assert.match(output, /CI is set but/);
});
