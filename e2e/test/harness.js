// Starts and stops agui-mock server processes for the end-to-end tests.
//
// The servers run the binary AGUI_MOCK_BIN names: `npm test` (e2e/run.js) builds it once
// for the whole run and passes it to every test file's process. A test file run alone
// (`node --test test/x.test.js`) without AGUI_MOCK_BIN builds its own, once per process.
// Every server listens on a free loopback port and is killed when the process exits,
// whatever happened to the tests.

import { execFile, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before } from 'node:test';

const here = import.meta.dirname ?? path.dirname(fileURLToPath(import.meta.url));

/** The Go module's root: the directory that holds main.go, two levels above this file. */
export const REPO_ROOT = path.resolve(here, '../..');

const STARTUP_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 10_000;
const BUILD_TIMEOUT_MS = 180_000;
const LISTENING = /^agui-mock listening on (http:\/\/\S+)$/;

/**
 * A stdout line as people read it: with --log-format json (which the servers here run
 * with) each is a JSON record, whose message is the line.
 */
export function printedLine(line) {
  try {
    const record = JSON.parse(line);
    return typeof record?.msg === 'string' ? record.msg : line;
  } catch {
    return line;
  }
}

// Temporary directories and server processes this test process created, cleaned up on
// exit even when a test fails before its own cleanup runs. Servers do not keep the
// process alive (see startServer), so a test that never stops its server cannot hang
// the run: the process exits and takes the server with it.
const tempDirs = new Set();
const liveServers = new Set();
function cleanUp() {
  for (const child of liveServers) child.kill('SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
}
process.on('exit', cleanUp);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    cleanUp();
    process.kill(process.pid, signal); // die of the signal as if there were no handler
  });
}

/** Creates a temporary directory that is removed when the process exits. */
export function makeTempDir(prefix = 'agui-mock-e2e-') {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/** Writes the given {name: content} files into a new temporary directory and returns it. */
export function writeTempFiles(files) {
  const dir = makeTempDir('agui-mock-scenarios-');
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

let binary;

/** Returns the path of the server binary, building it on first use. */
export function serverBinary() {
  binary ??= buildBinary();
  return binary;
}

async function buildBinary() {
  const prebuilt = process.env.AGUI_MOCK_BIN;
  if (prebuilt) {
    const bin = path.resolve(prebuilt);
    accessSync(bin, constants.X_OK); // fail early and clearly on a wrong path
    return bin;
  }
  const bin = path.join(makeTempDir(), 'agui-mock');
  try {
    await promisify(execFile)('go', ['build', '-o', bin, '.'], { cwd: REPO_ROOT, timeout: BUILD_TIMEOUT_MS });
  } catch (err) {
    throw new Error(`go build in ${REPO_ROOT} failed: ${err.stderr || err.message}`);
  }
  return bin;
}

/**
 * The environment for a server: ours without AGUI_MOCK_* variables, which the server
 * would read as flag values (AGUI_MOCK_SPEED=0 in a developer's shell would break the
 * timing tests).
 */
function serverEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AGUI_MOCK_')));
}

/**
 * Starts a server with `--addr 127.0.0.1:0 --seed 42 --log-format json` plus args and
 * resolves once it prints its address. command, when given, is the subcommand written
 * before the flags (e.g. 'record'). The result has:
 *   url      the base URL, e.g. http://127.0.0.1:41234
 *   adminToken  the admin API's token, as the server resolves it from its flags
 *            (--admin-token, else --auth-token), or undefined
 *   logs     the JSON log records written so far (the array grows while it runs)
 *   output   the lines written to stdout after the address line (the array grows)
 *   waitForLog(predicate, timeoutMs)  resolves with the first record that matches
 *   waitForOutput(predicate, timeoutMs)  likewise for a stdout line (a JSON record's message)
 *   stop()   sends SIGTERM and resolves with {code, signal} once the process has exited
 */
export async function startServer(args = [], { command } = {}) {
  const bin = await serverBinary();
  const argv = [...(command ? [command] : []), '--addr', '127.0.0.1:0', '--seed', '42', '--log-format', 'json', ...args];
  const child = spawn(bin, argv, {
    cwd: REPO_ROOT,
    env: serverEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  liveServers.add(child);
  // Whoever waits for the server holds a timer or a socket of its own; the process and
  // its pipes alone must not keep this process running.
  for (const handle of [child, child.stdout, child.stderr]) handle.unref();
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      liveServers.delete(child);
      resolve({ code, signal });
    });
  });

  const logs = [];
  const logWaiters = new Set();
  const output = [];
  const outputWaiters = new Set();
  const stderrText = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    stderrText.push(line);
    let record;
    try {
      record = JSON.parse(line);
    } catch {
      return; // not a log record (e.g. a flag error), kept in stderrText for diagnostics
    }
    logs.push(record);
    for (const waiter of logWaiters) waiter(record);
  });

  let starting = true;
  const url = await new Promise((resolve, reject) => {
    const settle = (why, address) => {
      if (!starting) return;
      starting = false;
      clearTimeout(timer);
      if (address) return resolve(address);
      child.kill('SIGKILL');
      reject(new Error(`${[path.basename(bin), ...args].join(' ')} ${why}; stderr:\n${stderrText.join('\n')}`));
    };
    const timer = setTimeout(() => settle(`did not start within ${STARTUP_TIMEOUT_MS} ms`), STARTUP_TIMEOUT_MS);
    exited.then(({ code, signal }) => settle(`exited during startup (code ${code}, signal ${signal})`));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const printed = printedLine(line);
      const m = LISTENING.exec(printed);
      if (m && starting) return settle('', m[1]);
      output.push(printed);
      for (const waiter of outputWaiters) waiter(printed);
    });
  });

  /** Resolves with the first entry of list that matches, waiting up to timeoutMs for it. */
  const waitFor = (list, waiters, what) => (predicate, timeoutMs = 5_000) => {
    const found = list.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`no matching ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = (entry) => {
        if (predicate(entry)) {
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(entry);
        }
      };
      waiters.add(waiter);
    });
  };

  return {
    url,
    adminToken: flagValue(args, '--admin-token') ?? flagValue(args, '--auth-token'),
    logs,
    output,
    waitForLog: waitFor(logs, logWaiters, 'server log record'),
    waitForOutput: waitFor(output, outputWaiters, 'stdout line'),
    async stop() {
      if (liveServers.has(child)) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      }
      return exited;
    },
  };
}

/** The value of a flag in args, given as `--name value` or `--name=value`, or undefined. */
function flagValue(args, name) {
  const i = args.findIndex((arg) => arg === name || arg.startsWith(`${name}=`));
  if (i < 0) return undefined;
  return args[i] === name ? args[i + 1] : args[i].slice(name.length + 1);
}

/**
 * Starts a server before the tests of the enclosing suite (or file) and stops it after
 * them. Returns an object that holds the server's properties once `before` has run.
 */
export function useServer(args = [], options = {}) {
  const server = {};
  before(async () => Object.assign(server, await startServer(args, options)));
  after(() => server.stop?.());
  return server;
}

/**
 * Polls check() (which may be async) until it returns a truthy value, and resolves with
 * that value; rejects, naming what (a string, or a function that says it at the time of
 * the failure), once timeoutMs has passed without one. It is the suite's one wait for
 * what happens in its own time: a journal entry, a reload, a file, a readiness answer.
 * The time is a guard against waiting for ever, not a bound the test checks.
 */
export async function eventually(check, what, timeoutMs = 10_000, intervalMs = 20) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (performance.now() > deadline) {
      throw new Error(`${typeof what === 'function' ? what() : what}: not within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A TCP port nothing listens on now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}
