// The npm packages `make npm` builds, as a frontend developer without Go gets them: the
// package of this platform and the agui-mock launcher, packed, installed from their
// tarballs into an empty project with no registry (--offline), and run with npx: its
// --version, its init, and a server that the official client talks to.
//
// Only the host's platform is built (all five take minutes; see the Makefile's npm).

import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation } from './clients.js';
import { freePort, makeTempDir, printedLine, REPO_ROOT } from './harness.js';

const run = promisify(execFile);
const VERSION = '0.0.0-e2e';
const PLATFORM = `${process.platform}-${process.arch}`;
const HOSTED = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64'].includes(PLATFORM);
const current = CLIENTS.find((c) => c.version === '1.0.0');

/** Runs npm (or npx) in a directory, without the developer's AGUI_MOCK_* variables. */
const npm = (cmd, args, cwd) =>
  run(cmd, args, { cwd, timeout: 120_000, env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AGUI_MOCK_'))) });

describe('the npm packages', { skip: !HOSTED && `no npm package is built for ${PLATFORM}` }, () => {
  const out = makeTempDir('agui-mock-npm-');
  const project = makeTempDir('agui-mock-npm-project-');
  const timings = {};

  before(async () => {
    let t = performance.now();
    await run('make', ['--no-print-directory', 'npm', `NPM_DIR=${out}/packages`, `NPM_VERSION=${VERSION}`, `NPM_PLATFORMS=${PLATFORM}`], { cwd: REPO_ROOT, timeout: 300_000 });
    timings.build = performance.now() - t;
    t = performance.now();
    for (const dir of ['agui-mock', PLATFORM]) {
      await npm('npm', ['pack', '--silent', '--pack-destination', out, path.join(out, 'packages', dir)], out);
    }
    timings.pack = performance.now() - t;
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'first-hour', private: true }));
    t = performance.now();
    await npm('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(out, `agui-mock-${VERSION}.tgz`), path.join(out, `agui-mock-cli-${PLATFORM}-${VERSION}.tgz`)], project);
    timings.install = performance.now() - t;
  });

  after(() => {
    console.log(`npm packages for ${PLATFORM}: build ${Math.round(timings.build)} ms, pack ${Math.round(timings.pack)} ms, install ${Math.round(timings.install)} ms`);
  });

  test('installs the launcher and this platform only, as dependencies of the project', () => {
    const manifest = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8'));
    assert.ok(manifest.dependencies['agui-mock'], 'agui-mock is a dependency');
    const lock = JSON.parse(readFileSync(path.join(project, 'package-lock.json'), 'utf8'));
    const installed = Object.keys(lock.packages).filter((p) => p.startsWith('node_modules/')).sort();
    assert.deepEqual(installed, ['node_modules/@agui-mock/cli-' + PLATFORM, 'node_modules/agui-mock']);
  });

  test('npx agui-mock --version prints the stamped version', async () => {
    const { stdout } = await npm('npx', ['agui-mock', '--version'], project);
    assert.match(stdout, new RegExp(`^agui-mock ${VERSION.replaceAll('.', '\\.')} \\(go1\\.`));
  });

  test('npx agui-mock init and serve: the official client plays the starter scenario', async () => {
    await npm('npx', ['agui-mock', 'init'], project);
    const server = spawn('npx', ['agui-mock', '--addr', '127.0.0.1:0', '--scenarios', 'scenarios', '--log-format', 'json'], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: npx, the launcher and the binary stop together
    });
    const stderr = [];
    server.stderr.on('data', (chunk) => stderr.push(chunk));
    const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
    try {
      const url = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`npx agui-mock did not start: ${Buffer.concat(stderr)}`)), 20_000);
        createInterface({ input: server.stdout }).on('line', (line) => {
          const m = /^agui-mock listening on (http:\/\/\S+)$/.exec(printedLine(line));
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
        exited.then(({ code }) => reject(new Error(`npx agui-mock exited with ${code}: ${Buffer.concat(stderr)}`)));
      });
      const result = await new Conversation(current, { url }).send('hello');
      assertCleanRun(result);
      const text = result.events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta).join('');
      assert.equal(text, 'Hello! I am a mock agent. Ask me to delete a file, or to pick a colour.');
    } finally {
      process.kill(-server.pid, 'SIGTERM'); // as Ctrl-C in a terminal reaches the whole group
      const { code, signal } = await exited;
      assert.ok(code === 0 || signal === 'SIGTERM', `npx agui-mock stopped with code ${code}, signal ${signal}: ${Buffer.concat(stderr)}`);
    }
  });

  test("the Playwright kit's webServer entry starts the binary of the installed package", async () => {
    const kit = path.join(REPO_ROOT, 'clients/playwright/dist/server.js'); // built by make e2e-test
    assert.ok(existsSync(kit), `${kit} is missing: run npm run build in clients/playwright (make e2e-test does)`);
    const port = await freePort();
    const script = `const { aguiMockServer } = await import(${JSON.stringify(pathToFileURL(kit).href)});
      console.log(JSON.stringify(aguiMockServer({ port: ${port}, scenarios: 'scenarios', speed: 0 })));`;
    const { stdout } = await npm('node', ['--input-type=module', '-e', script], project);
    const { url, webServer } = JSON.parse(stdout);
    const binary = path.join(project, 'node_modules', '@agui-mock', `cli-${PLATFORM}`, 'bin', process.platform === 'win32' ? 'agui-mock.exe' : 'agui-mock');
    assert.ok(webServer.command.startsWith(binary + ' '), `the command runs ${webServer.command}, not ${binary}`);
    assert.equal(webServer.url, `${url}/_mock/readyz`);

    const server = spawn(webServer.command, { cwd: project, shell: true, stdio: 'ignore', detached: true });
    try {
      let ready;
      for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
        ready = await fetch(webServer.url).then((r) => r.status, () => undefined);
        if (ready === 200) break;
      }
      assert.equal(ready, 200, 'the mock never answered its readiness URL');
      const result = await new Conversation(current, { url }).send('delete notes.txt');
      assert.equal(result.finished?.outcome, 'interrupt', 'the starter interrupt scenario paused the run');
    } finally {
      process.kill(-server.pid, 'SIGTERM');
    }
  });

  test('the launcher says what to do when the platform package is missing', async () => {
    const bare = makeTempDir('agui-mock-npm-bare-');
    writeFileSync(path.join(bare, 'package.json'), JSON.stringify({ name: 'bare', private: true }));
    await npm('npm', ['install', '--offline', '--no-audit', '--no-fund', '--omit=optional', path.join(out, `agui-mock-${VERSION}.tgz`)], bare);
    await assert.rejects(npm('npx', ['agui-mock', '--version'], bare), (err) => {
      assert.match(err.stderr, new RegExp(`@agui-mock/cli-${PLATFORM}, the package with this platform's binary, is not installed`));
      return true;
    });
  });
});
