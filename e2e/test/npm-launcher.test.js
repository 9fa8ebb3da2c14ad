// The agui-mock launcher when there is no binary to run, as a user meets it: the launcher
// package alone, packed and installed from its tarball with no registry and an empty
// cache, so that npm cannot download the platform package and skips it without a word,
// as it does for a version that is not published or a mirror without it. What npx then
// prints must name both causes and the command that installs the package. And on a
// platform no binary is published for, what to run instead.
//
// No Go is needed: the launcher is packaged here as `make npm` (npm/pack.mjs) writes it,
// the repository's files at a version, with every platform package as an optional
// dependency of that version.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { before, describe, test } from 'node:test';
import { makeTempDir, REPO_ROOT } from './harness.js';

const run = promisify(execFile);
const VERSION = '9.8.7'; // a release's form: the messages name its image tag and Go module version
const PLATFORM = `${process.platform}-${process.arch}`;
const LAUNCHER = path.join(REPO_ROOT, 'npm', 'agui-mock');
const { PLATFORMS, binaryPath } = createRequire(import.meta.url)(path.join(LAUNCHER, 'index.js'));

/** Runs a command in a directory, without the developer's AGUI_MOCK_* and npm_config_* variables. */
const inDir = (cwd, cmd, args) =>
  run(cmd, args, {
    cwd,
    timeout: 120_000,
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AGUI_MOCK_') && !/^npm_config_/i.test(k))),
  });

/** The error message of fn's throw. */
function thrown(fn) {
  try {
    fn();
  } catch (err) {
    return err.message;
  }
  assert.fail('it did not throw');
}

describe('the launcher without its platform package', () => {
  const project = makeTempDir('agui-mock-launcher-project-');
  const cache = makeTempDir('agui-mock-launcher-cache-'); // empty: nothing to install offline but the tarball
  const launcher = path.join(project, 'node_modules', 'agui-mock');
  let installLog; // what npm install printed

  before(async () => {
    const work = makeTempDir('agui-mock-launcher-');
    const pkg = path.join(work, 'agui-mock');
    cpSync(LAUNCHER, pkg, { recursive: true });
    const manifest = JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8'));
    manifest.version = VERSION;
    manifest.optionalDependencies = Object.fromEntries(PLATFORMS.map((p) => [`@agui-mock/cli-${p}`, VERSION]));
    writeFileSync(path.join(pkg, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
    await inDir(work, 'npm', ['pack', '--silent', pkg]);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'launcher-only', private: true }));
    const { stdout, stderr } = await inDir(project, 'npm', ['install', '--offline', '--cache', cache, '--no-audit', '--no-fund', path.join(work, `agui-mock-${VERSION}.tgz`)]);
    installLog = stdout + stderr;
  });

  test('npm installed the launcher alone, saying nothing of the package it skipped', () => {
    const lock = JSON.parse(readFileSync(path.join(project, 'package-lock.json'), 'utf8'));
    const installed = Object.keys(lock.packages).filter((p) => p.startsWith('node_modules/'));
    assert.deepEqual(installed, ['node_modules/agui-mock']);
    assert.doesNotMatch(installLog, /cli-|optional/, 'npm printed something of it after all: revise the message');
  });

  test('npx agui-mock names both causes and the command that installs the package', { skip: !PLATFORMS.includes(PLATFORM) && `no binary is published for ${PLATFORM}` }, async () => {
    const err = await inDir(project, 'npx', ['agui-mock', '--version']).then(() => assert.fail('npx agui-mock ran'), (e) => e);
    assert.equal(err.code, 1);
    const pkg = `@agui-mock/cli-${PLATFORM}`;
    assert.equal(err.stderr.trim(), [
      `agui-mock: ${pkg}, the package with this platform's binary, is not installed.`,
      `It is an optional dependency of agui-mock ${VERSION}, and npm leaves one out without a word when`,
      `  - it was omitted: npm install --omit=optional (or --no-optional, or omit=optional in .npmrc or NPM_CONFIG_OMIT);`,
      `  - npm could not download it: ${pkg}@${VERSION} is not published, or your registry or mirror does not have it.`,
      `Install it (npm says why if it cannot):`,
      `  npm install --no-save ${pkg}@${VERSION}`,
    ].join('\n'));
  });

  test('on a platform without a binary, it names the image and the Go command of its version', async () => {
    const preload = path.join(project, 'freebsd.cjs');
    writeFileSync(preload, "Object.defineProperty(process, 'platform', { value: 'freebsd' });\n");
    const err = await inDir(project, 'node', ['--require', preload, path.join(launcher, 'bin', 'agui-mock.js'), '--version']).then(() => assert.fail('it ran'), (e) => e);
    assert.equal(err.code, 1);
    assert.equal(err.stderr.trim(), [
      `agui-mock: no binary is published for freebsd-${process.arch}, only for linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64. Instead:`,
      `  - run the container image: docker run --rm -p 8000:8000 ghcr.io/agui-mock/agui-mock:${VERSION}`,
      `  - or build it with Go: go install github.com/agui-mock/agui-mock@v${VERSION}`,
    ].join('\n'));
  });

  // last: it installs the package
  test('once installed as the message says, the launcher runs its binary and package.json is unchanged', { skip: !PLATFORMS.includes(PLATFORM) || process.platform === 'win32' ? `no shell-script binary stands in on ${PLATFORM}` : false }, async () => {
    // the platform package as a registry would serve it, its binary a script that says it ran
    const work = makeTempDir('agui-mock-launcher-platform-');
    const pkg = path.join(work, 'package');
    mkdirSync(path.join(pkg, 'bin'), { recursive: true });
    const [os, cpu] = PLATFORM.split('-');
    writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: `@agui-mock/cli-${PLATFORM}`, version: VERSION, os: [os], cpu: [cpu], files: ['bin'] }));
    writeFileSync(path.join(pkg, 'bin', 'agui-mock'), '#!/bin/sh\necho "the platform binary ran: $*"\n', { mode: 0o755 });
    await inDir(work, 'npm', ['pack', '--silent', pkg]);
    const before = readFileSync(path.join(project, 'package.json'), 'utf8');
    await inDir(project, 'npm', ['install', '--offline', '--cache', cache, '--no-audit', '--no-fund', '--no-save', path.join(work, `agui-mock-cli-${PLATFORM}-${VERSION}.tgz`)]);
    assert.equal(readFileSync(path.join(project, 'package.json'), 'utf8'), before, '--no-save keeps the project free of a dependency other platforms cannot install');
    const { stdout } = await inDir(project, 'npx', ['agui-mock', '--version']);
    assert.equal(stdout, 'the platform binary ran: --version\n');
  });
});

describe('binaryPath', () => {
  const missing = () => {
    throw Object.assign(new Error('not found'), { code: 'MODULE_NOT_FOUND' });
  };

  test('is the bin of the platform package that resolves', () => {
    const resolve = (id) => {
      assert.equal(id, '@agui-mock/cli-darwin-arm64/package.json');
      return '/app/node_modules/@agui-mock/cli-darwin-arm64/package.json';
    };
    assert.equal(binaryPath({ platform: 'darwin', arch: 'arm64', resolve }), path.join('/app/node_modules/@agui-mock/cli-darwin-arm64', 'bin', 'agui-mock'));
    const win = binaryPath({ platform: 'win32', arch: 'x64', resolve: () => 'C:/app/node_modules/@agui-mock/cli-win32-x64/package.json' });
    assert.equal(path.basename(win), 'agui-mock.exe');
  });

  test('without the package, names the command with the version the launcher depends on', () => {
    const message = thrown(() => binaryPath({ platform: 'linux', arch: 'arm64', resolve: missing }));
    // the repository's launcher has no optional dependencies: its own version stands in
    const { version } = JSON.parse(readFileSync(path.join(LAUNCHER, 'package.json'), 'utf8'));
    assert.match(message, /--omit=optional/);
    assert.match(message, /is not published, or your registry or mirror does not have it/);
    assert.ok(message.endsWith(`\n  npm install --no-save @agui-mock/cli-linux-arm64@${version}`), message);
  });

  test('on an unsupported platform, names the latest image and module for a version that is no release', () => {
    const message = thrown(() => binaryPath({ platform: 'linux', arch: 's390x', resolve: missing }));
    assert.match(message, /^agui-mock: no binary is published for linux-s390x, only for linux-x64, /);
    assert.match(message, /docker run --rm -p 8000:8000 ghcr\.io\/agui-mock\/agui-mock:latest$/m);
    assert.match(message, /go install github\.com\/agui-mock\/agui-mock@latest$/m);
  });
});
