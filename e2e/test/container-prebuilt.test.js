// The image `make image BINARY=path` builds around a binary built elsewhere, as someone
// without Go builds it (docs/docker.md): with a go that fails first on PATH, around the
// binary an npm install of the Linux platform package puts in node_modules, by the
// command the docs show. It must be the image `make image` builds, the binary aside: the
// same configuration, user, CA bundle and /scenarios, and it serves a run.
//
// The binary is built here as `make npm` builds the platform package's (make static,
// stamped with a version), for the architecture of the Docker daemon.
//
// Without a Docker daemon these tests skip loudly outside CI (see docker.js).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation } from './clients.js';
import { describeUnless, DOCKER, docker, IMAGE, NONROOT, runContainer, skipReason, waitReady } from './docker.js';
import { makeTempDir, REPO_ROOT } from './harness.js';

const run = promisify(execFile);
const VERSION = '0.0.0-prebuilt';
const PREBUILT = `agui-mock:prebuilt-e2e-${process.pid}`;

/** The docs' command for a project's node_modules on Linux x64. */
function documentedCommand() {
  const docs = readFileSync(path.join(REPO_ROOT, 'docs', 'docker.md'), 'utf8');
  const commands = docs.match(/^make image BINARY=.*node_modules.*$/gm);
  assert.equal(commands?.length, 1, 'docs/docker.md shows one make image BINARY=… command for node_modules');
  assert.equal(commands[0], 'make image BINARY="$APP/node_modules/@agui-mock/cli-linux-x64/bin/agui-mock"');
  return commands[0];
}

/** The uid and mode of the first entry of a tar stream (what docker cp writes to stdout). */
function tarOwner(tar) {
  return { uid: parseInt(tar.slice(108, 116), 8), mode: parseInt(tar.slice(100, 108), 8) };
}

describeUnless(skipReason, 'the image make image BINARY=path builds around a prebuilt binary', () => {
  let mock;
  let built; // make image's output

  before(async () => {
    const arch = (await docker(['version', '--format', '{{.Server.Arch}}'])).stdout.trim();
    const cpu = arch === 'amd64' ? 'x64' : arch;
    const app = makeTempDir('agui-mock-prebuilt-app-');
    const binary = path.join(app, 'node_modules', '@agui-mock', `cli-linux-${cpu}`, 'bin', 'agui-mock');
    await run('make', ['--no-print-directory', 'static', `OUT=${binary}`, `VERSION=${VERSION}`], {
      cwd: REPO_ROOT,
      timeout: 300_000,
      env: { ...process.env, GOOS: 'linux', GOARCH: arch },
    });

    const noGo = makeTempDir('agui-mock-prebuilt-nogo-');
    writeFileSync(path.join(noGo, 'go'), '#!/bin/sh\necho "make image BINARY=… ran go" >&2; exit 1\n', { mode: 0o755 });
    const command = documentedCommand().replace('cli-linux-x64', `cli-linux-${cpu}`);
    // its own build context: a concurrent make image may be using build/image
    const context = path.join(makeTempDir('agui-mock-prebuilt-context-'), 'image');
    const { stdout, stderr } = await run('sh', ['-c', `${command} DOCKER="${DOCKER}" IMAGE=${PREBUILT} IMAGE_CONTEXT=${context}`], {
      cwd: REPO_ROOT,
      timeout: 300_000,
      env: { ...process.env, APP: app, PATH: `${noGo}${path.delimiter}${process.env.PATH}` },
    });
    built = stdout + stderr;

    const scenarios = makeTempDir('agui-mock-prebuilt-scenarios-');
    writeFileSync(path.join(scenarios, 'greeting.yaml'), 'id: greeting\nmatch: {message: ^hello prebuilt$}\nsteps:\n  - text: from the prebuilt binary\n', { mode: 0o644 });
    chmodSync(scenarios, 0o755);
    mock = await runContainer({ image: PREBUILT, label: 'prebuilt', env: { AGUI_MOCK_SPEED: '0' }, volumes: [`${scenarios}:/scenarios:ro`] });
    await waitReady(mock);
  });

  after(async () => {
    await mock?.remove();
    await docker(['rmi', '-f', PREBUILT], { check: false });
  });

  test('runs the given binary, built without Go', async () => {
    assert.doesNotMatch(built, /ran go/);
    const { stdout } = await docker(['run', '--rm', PREBUILT, '--version']);
    assert.match(stdout, new RegExp(`^agui-mock ${VERSION.replaceAll('.', '\\.')} \\(go`));
  });

  test('is configured as the image make image builds', async () => {
    const config = async (image) => {
      const { Config, Architecture, Os } = JSON.parse((await docker(['image', 'inspect', image])).stdout)[0];
      delete Config.Image; // the id of its parent layer
      return { Config, Architecture, Os };
    };
    assert.deepEqual(await config(PREBUILT), await config(IMAGE));
    assert.equal((await config(PREBUILT)).Config.User, `${NONROOT}:${NONROOT}`);
  });

  test('runs as uid 65532, with the CA bundle and a /scenarios it owns', async () => {
    const { stdout } = await docker(['top', mock.id, '-o', 'pid,uid']);
    assert.deepEqual(stdout.trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/)[1]), [String(NONROOT)]);
    const bundle = (await docker(['cp', `${mock.id}:/etc/ssl/certs/ca-certificates.crt`, '-'])).stdout;
    assert.match(bundle, /BEGIN CERTIFICATE/);
    // the image's own directory, under the mount
    const image = await docker(['create', PREBUILT]);
    const id = image.stdout.trim();
    try {
      const { uid, mode } = tarOwner((await docker(['cp', `${id}:/scenarios`, '-'])).stdout);
      assert.equal(uid, NONROOT);
      assert.equal(mode & 0o777, 0o755);
    } finally {
      await docker(['rm', '-f', id], { check: false });
    }
  });

  test('serves the mounted scenarios to the official client', async () => {
    const result = await new Conversation(CLIENTS[0], { url: mock.url }).send('hello prebuilt');
    assertCleanRun(result);
    assert.equal(result.events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta).join(''), 'from the prebuilt binary');
  });
});
