// Runs agui-mock's image with the docker CLI for the container tests.
//
// The image is the one `make image` builds (AGUI_MOCK_IMAGE names another); DOCKER names
// the CLI (default: docker). Without a daemon the container tests skip with a loud
// message, but only outside CI: in CI (CI set) a missing daemon fails them. Every
// container started here is removed when the process exits, whatever happened to the
// tests.

import { execFile, execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { eventually as waitUntil } from './harness.js';

export const DOCKER = process.env.DOCKER || 'docker';
export const IMAGE = process.env.AGUI_MOCK_IMAGE || 'agui-mock:dev';

/** The non-root user the image runs as (distroless's nonroot). */
export const NONROOT = 65532;

const READY_TIMEOUT_MS = 20_000;

/**
 * Runs the docker CLI and resolves with {code, stdout, stderr}; rejects on a non-zero exit
 * unless check is false.
 */
export async function docker(args, { check = true, timeoutMs = 60_000 } = {}) {
  try {
    const { stdout, stderr } = await promisify(execFile)(DOCKER, args, { timeout: timeoutMs });
    return { code: 0, stdout, stderr };
  } catch (err) {
    if (check || typeof err.code !== 'number') { // a number is the exit code; anything else, no run
      throw new Error(`${DOCKER} ${args.join(' ')}: ${err.stderr || err.message}`);
    }
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/**
 * Why the container tests cannot run here, or false when they can: a suite's `skip`
 * option. In CI a missing daemon or image is an error, not a reason to skip.
 */
export const skipReason = await (async () => {
  try {
    await docker(['version', '--format', '{{.Server.Version}}'], { timeoutMs: 15_000 });
  } catch (err) {
    if (process.env.CI) throw new Error(`CI is set but no Docker daemon answers: ${err.message}`);
    const why = `no Docker daemon answers (${DOCKER} version failed), so the container tests are SKIPPED`;
    console.warn(`\n${'!'.repeat(80)}\n!! ${why}.\n!! Start Docker (or run .ci/with-docker make test) to run them.\n${'!'.repeat(80)}\n`);
    return why;
  }
  const { code } = await docker(['image', 'inspect', IMAGE], { check: false });
  if (code !== 0) throw new Error(`the image ${IMAGE} is missing: build it with \`make image\``);
  return false;
})();

/**
 * describe(name, fn), unless skip gives a reason not to run it: then one skipped test of
 * that name, so the run's summary counts it as skipped (node:test counts the tests of a
 * skipped suite nowhere).
 */
export function describeUnless(skip, name, fn) {
  if (skip) test(name, { skip });
  else describe(name, fn);
}

// Containers and host paths to remove when the process exits.
const liveContainers = new Set();
const hostPaths = new Set();
process.on('exit', () => {
  if (liveContainers.size > 0) {
    try {
      execFileSync(DOCKER, ['rm', '-f', '-v', ...liveContainers], { stdio: 'ignore', timeout: 30_000 });
    } catch {
      // best effort: the process is exiting anyway
    }
  }
  for (const p of hostPaths) rmSync(p, { recursive: true, force: true });
});

/** Removes path when the process exits (a host path docker created for a bind mount). */
export function removeAtExit(path) {
  hostPaths.add(path);
}

/** A container name no other test run uses. */
function uniqueName(label) {
  return `agui-mock-e2e-${label}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Starts the image (or the one given) detached: `docker run -d` with the given options
 * (env {NAME: value}, volumes ['host:container[:ro]'], extra docker options, the command
 * after the image).
 * The port 8000 is published on a random loopback port unless network is 'host'.
 * Resolves with a handle: id, name, url (unless it has already exited), logs(),
 * records(), inspect(), wait(), stop(), remove().
 */
export async function runContainer({ image = IMAGE, label = 'mock', env = {}, volumes = [], options = [], command = [], network } = {}) {
  const name = uniqueName(label);
  const args = ['run', '-d', '--name', name];
  if (network) args.push('--network', network);
  else args.push('-p', '127.0.0.1::8000');
  for (const [key, value] of Object.entries(env)) args.push('-e', `${key}=${value}`);
  for (const volume of volumes) args.push('-v', volume);
  liveContainers.add(name);
  const { stdout } = await docker([...args, ...options, image, ...command]);
  const id = stdout.trim();
  const container = {
    id,
    name,
    async inspect() {
      return JSON.parse((await docker(['inspect', id])).stdout)[0];
    },
    /** The container's output: stdout and stderr, as lines. */
    async logs() {
      const { stdout: out, stderr } = await docker(['logs', id]);
      return { stdout: lines(out), stderr: lines(stderr) };
    },
    /** Its JSON log records (stderr lines that parse). */
    async records() {
      return (await container.logs()).stderr.flatMap((line) => {
        try {
          return [JSON.parse(line)];
        } catch {
          return [];
        }
      });
    },
    /** Resolves with the exit code once the container has stopped. */
    async wait(timeoutMs = 20_000) {
      return Number((await docker(['wait', id], { timeoutMs })).stdout.trim());
    },
    async stop(seconds = 10) {
      await docker(['stop', '-t', String(seconds), id], { timeoutMs: (seconds + 10) * 1000 });
    },
    async remove() {
      await docker(['rm', '-f', '-v', id], { check: false });
      liveContainers.delete(name);
    },
  };
  if (!network) {
    // none when the container has already exited
    const { code, stdout: port } = await docker(['port', id, '8000/tcp'], { check: false });
    if (code === 0) container.url = `http://${port.trim().split('\n')[0]}`;
  }
  return container;
}

/**
 * Resolves once url answers GET /_mock/readyz with 200; rejects, with the container's
 * logs, if it stops first or the wait runs out.
 */
export async function waitReady(container, url = container.url, timeoutMs = READY_TIMEOUT_MS) {
  const notReady = async () => {
    const { State } = await container.inspect();
    const { stderr } = await container.logs();
    return new Error(`${container.name} is not ready (${State.Status}, exit ${State.ExitCode}); its log:\n${stderr.join('\n')}`);
  };
  let stopped;
  await waitUntil(async () => {
    // A request that docker's port proxy accepted for a container not listening yet can
    // hang on a socket that does not keep node alive, and AbortSignal.timeout's timer does
    // not either: with nothing else pending, node would end the test run mid-wait
    // ("Promise resolution is still pending"). A plain timer keeps it alive.
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), 1_000);
    try {
      const res = await fetch(`${url}/_mock/readyz`, { signal: abort.signal });
      if (res.status === 200) return true;
    } catch {
      // not listening yet
    } finally {
      clearTimeout(timer);
    }
    stopped = !(await container.inspect()).State.Running;
    return stopped; // no use waiting for a container that stopped
  }, `${container.name} is ready`, timeoutMs, 100).catch(() => {
    stopped = true;
  });
  if (stopped) throw await notReady();
}

/** The suite's eventually (harness.js), with the longer wait a container may need. */
export const eventually = (check, what, timeoutMs = 15_000) => waitUntil(check, what, timeoutMs, 100);

const lines = (text) => text.split('\n').filter((line) => line !== '');
