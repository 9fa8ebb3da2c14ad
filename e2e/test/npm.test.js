// The npm packages `make npm` builds, as a frontend developer without Go gets them: the
// package of this platform and the agui-mock launcher, packed, installed from their
// tarballs into an empty project with no registry (--offline), and run with npx as
// docs/installing.md shows it: its --version, its init, and a server that the official
// client talks to. Then every
// package `make npm` writes (the clients too), packed and installed together offline into
// a project that has the clients' peer dependencies, and imported; and there `npx
// agui-mock init`, whose Playwright spec then passes against a chat page.
//
// Only the host's platform is built (all five take minutes; see the Makefile's npm).

import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { build } from 'esbuild';
import { chromiumPath } from '../browser/chromium.js';
import { assertCleanRun, CLIENTS, Conversation } from './clients.js';
import { eventually, freePort, makeTempDir, printedLine, REPO_ROOT } from './harness.js';

const run = promisify(execFile);
const VERSION = '0.0.0-e2e';
const PLATFORM = `${process.platform}-${process.arch}`;
const HOSTED = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64'].includes(PLATFORM);
const current = CLIENTS.find((c) => c.version === '1.0.0');

/**
 * A directory whose `go` fails, first on the PATH of what a user runs: installing and
 * running the packages must not need Go.
 */
const NO_GO = makeTempDir('agui-mock-npm-nogo-');
writeFileSync(path.join(NO_GO, 'go'), '#!/bin/sh\necho "the npm packages ran go" >&2; exit 1\n', { mode: 0o755 });

/**
 * Runs npm (or npx) in a directory as a user without Go does: without the developer's
 * AGUI_MOCK_* variables, and with a go that fails first on the PATH.
 */
const npm = (cmd, args, cwd, timeout = 120_000) => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AGUI_MOCK_')));
  env.PATH = `${NO_GO}${path.delimiter}${env.PATH}`;
  return run(cmd, args, { cwd, timeout, env });
};

/**
 * The npx commands docs/installing.md shows a frontend developer in its npm section (its
 * first sh block), each as its arguments after `npx`, comments left out: what the tests
 * below run, so that the documented commands are the ones that work.
 */
function documentedNpx() {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs', 'installing.md'), 'utf8');
  const section = doc.slice(doc.indexOf('\n## npm\n'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)[1];
  const commands = block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line.startsWith('npx agui-mock'))
    .map((line) => line.split(/\s+/).slice(1));
  const find = (what, test) => {
    const found = commands.find(test);
    assert.ok(found, `docs/installing.md's npm section shows no npx command that ${what}: ${JSON.stringify(commands)}`);
    return found;
  };
  return {
    version: find('prints the version', (c) => c.includes('--version')),
    init: find('writes the starter', (c) => c[1] === 'init'),
    serve: find('serves scenarios', (c) => c.includes('--scenarios')),
  };
}
const DOCUMENTED = documentedNpx();

/** Whether a port of 127.0.0.1 is free to listen on. */
const portFree = (port) =>
  new Promise((resolve) => {
    const probe = createServer().once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

/**
 * Installs, into the project dir, the third-party packages the clients expect beside them
 * (their peer dependencies), at the versions the clients are built against (their
 * devDependencies), as a user's project has them: from the npm cache, else the registry.
 */
async function installPeers(dir) {
  const peers = {};
  for (const client of readdirSync(path.join(REPO_ROOT, 'clients'))) {
    const file = path.join(REPO_ROOT, 'clients', client, 'package.json');
    if (!existsSync(file)) continue;
    const m = JSON.parse(readFileSync(file, 'utf8'));
    for (const name of Object.keys(m.peerDependencies ?? {})) {
      if (name !== 'agui-mock' && !name.startsWith('@agui-mock/')) peers[name] = m.devDependencies[name];
    }
  }
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'all-packages', private: true, devDependencies: peers }));
  const t = performance.now();
  await npm('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], dir, 300_000);
  return performance.now() - t;
}

describe('the npm packages', { skip: !HOSTED && `no npm package is built for ${PLATFORM}` }, () => {
  const out = makeTempDir('agui-mock-npm-');
  const project = makeTempDir('agui-mock-npm-project-');
  const timings = {};
  const tarballs = new Map(); // directory of make npm's output -> its tarball
  // the project that every package installs into: its third-party packages install while
  // make npm builds (see installPeers)
  const all = makeTempDir('agui-mock-npm-all-');
  let peersInstalled;
  let installedAll = false;

  before(async () => {
    peersInstalled = installPeers(all).then((ms) => { timings.peers = ms; }, (err) => err);
    let t = performance.now();
    await run('make', ['--no-print-directory', 'npm', `NPM_DIR=${out}/packages`, `NPM_VERSION=${VERSION}`, `NPM_PLATFORMS=${PLATFORM}`], { cwd: REPO_ROOT, timeout: 600_000, maxBuffer: 64 << 20 });
    timings.build = performance.now() - t;
    t = performance.now();
    await Promise.all(readdirSync(path.join(out, 'packages')).map(async (dir) => {
      const { stdout } = await npm('npm', ['pack', '--silent', '--pack-destination', out, path.join(out, 'packages', dir)], out);
      tarballs.set(dir, path.join(out, stdout.trim().split('\n').at(-1)));
    }));
    timings.pack = performance.now() - t;
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'first-hour', private: true }));
    t = performance.now();
    await npm('npm', ['install', '--offline', '--no-audit', '--no-fund', tarballs.get('agui-mock'), tarballs.get(PLATFORM)], project);
    timings.install = performance.now() - t;
  });

  after(() => {
    const ms = (k) => `${Math.round(timings[k])} ms`;
    console.log(`npm packages for ${PLATFORM}: build ${ms('build')}, pack ${ms('pack')}, install ${ms('install')}; every package: peers ${ms('peers')}, install ${ms('all')}`);
  });

  test('installs the launcher and this platform only, as dependencies of the project', () => {
    const manifest = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8'));
    assert.ok(manifest.dependencies['agui-mock'], 'agui-mock is a dependency');
    const lock = JSON.parse(readFileSync(path.join(project, 'package-lock.json'), 'utf8'));
    const installed = Object.keys(lock.packages).filter((p) => p.startsWith('node_modules/')).sort();
    assert.deepEqual(installed, ['node_modules/@agui-mock/cli-' + PLATFORM, 'node_modules/agui-mock']);
  });

  test('npx agui-mock --version, as docs/installing.md shows it, prints the stamped version', async () => {
    const { stdout } = await npm('npx', DOCUMENTED.version, project);
    assert.match(stdout, new RegExp(`^agui-mock ${VERSION.replaceAll('.', '\\.')} \\(go1\\.`));
  });

  test('npx agui-mock init and serve, as docs/installing.md shows them: the official client plays the starter scenario', async () => {
    await npm('npx', DOCUMENTED.init, project);
    // as documented, on a free port of the test's instead of 8000
    const server = spawn('npx', [...DOCUMENTED.serve, '--addr', '127.0.0.1:0', '--log-format', 'json'], {
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
      await eventually(() => fetch(webServer.url).then((r) => r.status === 200, () => false), 'the mock answers its readiness URL', 15_000, 100);
      const result = await new Conversation(current, { url }).send('delete notes.txt');
      assert.equal(result.finished?.outcome, 'interrupt', 'the starter interrupt scenario paused the run');
    } finally {
      process.kill(-server.pid, 'SIGTERM');
    }
  });

  test('the launcher says what to do when the platform package is missing', async () => {
    const bare = makeTempDir('agui-mock-npm-bare-');
    writeFileSync(path.join(bare, 'package.json'), JSON.stringify({ name: 'bare', private: true }));
    await npm('npm', ['install', '--offline', '--no-audit', '--no-fund', '--omit=optional', tarballs.get('agui-mock')], bare);
    await assert.rejects(npm('npx', ['agui-mock', '--version'], bare), (err) => {
      assert.match(err.stderr, new RegExp(`@agui-mock/cli-${PLATFORM}, the package with this platform's binary, is not installed`));
      return true;
    });
  });

  test('every package installs together offline from its tarball, at one version, and imports', async () => {
    // A project as a user's, which has the third-party packages the clients expect beside
    // them (installPeers). Into it, every package of make npm from its tarball alone, with
    // --offline: a dependency among them that only a registry could resolve (a file: path,
    // a version no registry has) fails here, and anything third-party they need comes from
    // the project or the npm cache (which make npm's npm ci of the clients fills).
    const manifests = [...tarballs.keys()].filter((d) => d !== PLATFORM).map((d) => JSON.parse(readFileSync(path.join(out, 'packages', d, 'package.json'), 'utf8')));
    const ours = new Set(manifests.map((m) => m.name).concat(`@agui-mock/cli-${PLATFORM}`));
    assert.deepEqual([...ours].sort(), ['@agui-mock/cli-' + PLATFORM, '@agui-mock/client', '@agui-mock/copilotkit', '@agui-mock/playwright', '@agui-mock/testcontainers', 'agui-mock']);
    for (const m of manifests) {
      assert.equal(m.version, VERSION, `${m.name} is at ${VERSION}`);
      for (const [name, spec] of Object.entries(m.dependencies ?? {})) {
        if (ours.has(name)) assert.equal(spec, VERSION, `${m.name} depends on ${name} at ${VERSION}`);
      }
    }
    const err = await peersInstalled;
    if (err) throw err;
    const t = performance.now();
    await npm('npm', ['install', '--offline', '--no-audit', '--no-fund', ...tarballs.values()], all, 300_000);
    timings.all = performance.now() - t;

    const lock = JSON.parse(readFileSync(path.join(all, 'package-lock.json'), 'utf8'));
    for (const name of ours) {
      const copies = Object.entries(lock.packages).filter(([p]) => p === `node_modules/${name}` || p.endsWith(`/node_modules/${name}`));
      assert.deepEqual(copies.map(([p, e]) => [p, e.version]), [[`node_modules/${name}`, VERSION]], `one ${name}, at ${VERSION}`);
    }

    // each entry point of each package, as its type loads it: import for ES modules,
    // require for the CommonJS launcher
    const entries = manifests.flatMap((m) => Object.keys(m.exports).map((sub) => ({ specifier: path.posix.join(m.name, sub), cjs: m.type === 'commonjs' })));
    const script = `import { createRequire } from 'node:module';
      const require = createRequire(process.cwd() + '/');
      const loaded = {};
      for (const { specifier, cjs } of ${JSON.stringify(entries)}) {
        loaded[specifier] = Object.keys(cjs ? require(specifier) : await import(specifier)).sort();
      }
      console.log(JSON.stringify(loaded));`;
    const { stdout } = await npm('node', ['--input-type=module', '-e', script], all);
    const loaded = JSON.parse(stdout);
    assert.deepEqual(Object.keys(loaded).sort(), entries.map((e) => e.specifier).sort());
    for (const [specifier, names] of Object.entries(loaded)) assert.ok(names.length > 0, `${specifier} exports nothing`);
    assert.ok(loaded['@agui-mock/client'].includes('AguiMockClient'), loaded['@agui-mock/client'].join(', '));
    assert.ok(loaded['@agui-mock/playwright'].includes('test'), loaded['@agui-mock/playwright'].join(', '));
    assert.ok(loaded['@agui-mock/playwright/server'].includes('aguiMockServer'), loaded['@agui-mock/playwright/server'].join(', '));

    const { stdout: version } = await npm('npx', ['agui-mock', '--version'], all);
    assert.match(version, new RegExp(`^agui-mock ${VERSION.replaceAll('.', '\\.')} `));
    installedAll = true;
  });

  test("npx agui-mock init, then Playwright runs the spec it wrote against a chat page", async (t) => {
    assert.ok(installedAll, 'every package installed (the test above)');
    // init's config starts the mock on 8000 and expects the app on 3000 (npm run dev)
    for (const port of [8000, 3000]) {
      if (await portFree(port)) continue;
      const why = `port ${port} is taken: init's playwright.config.ts listens there`;
      if (process.env.CI) assert.fail(why); // CI has the ports free: a taken one is a fault to see
      console.warn(`\n*** SKIPPED: ${why} ***\n`);
      return t.skip(why);
    }
    await npm('npx', ['agui-mock', 'init'], all);
    // the app: the example app's chat page (examples/playwright-app), which has what the
    // spec's selectors look for, bundled with this suite's @ag-ui/client and esbuild
    const example = path.join(REPO_ROOT, 'examples', 'playwright-app');
    await build({
      entryPoints: [path.join(example, 'src', 'main.ts')],
      bundle: true, format: 'esm', target: 'es2022', logLevel: 'warning',
      nodePaths: [path.join(REPO_ROOT, 'e2e', 'node_modules')],
      outfile: path.join(all, 'dist', 'app.js'),
    });
    for (const file of ['index.html', 'serve.js']) copyFileSync(path.join(example, file), path.join(all, file));
    const manifest = JSON.parse(readFileSync(path.join(all, 'package.json'), 'utf8'));
    writeFileSync(path.join(all, 'package.json'), JSON.stringify({ ...manifest, type: 'module', scripts: { dev: 'node serve.js' } }, null, 2));
    // init's config as it is, with this suite's Chromium (Playwright downloads none here)
    writeFileSync(path.join(all, 'chromium.config.ts'), `import config from "./playwright.config";
export default { ...config, use: { ...config.use, launchOptions: { executablePath: ${JSON.stringify(await chromiumPath())}, args: ["--headless=new", "--no-sandbox", "--disable-gpu"] } } };
`);
    const { stdout } = await npm('npx', ['playwright', 'test', '--config', 'chromium.config.ts', '--reporter', 'line'], all, 180_000).catch((err) => {
      throw new Error(`the spec init wrote failed:\n${err.stdout}\n${err.stderr}`);
    });
    assert.match(stdout, /\b2 passed\b/);
  });
});
