// Real AG-UI agents for the end-to-end tests, from their own npm package in e2e/agents
// (its own lockfile; `make e2e-test` installs it): a LangGraph JS graph behind
// @ag-ui/langgraph, a Mastra agent behind @ag-ui/mastra, an A2A server of @a2a-js/sdk
// with a scripted executor behind @ag-ui/a2a, and CopilotKit's BuiltInAgent, on fake
// models. Each runs as a child process on a free loopback port, bounded in its start-up
// and killed when this process exits.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { makeTempDir, REPO_ROOT } from './harness.js';

/** The agents' package. */
export const AGENTS_DIR = path.join(REPO_ROOT, 'e2e', 'agents');

const STARTUP_TIMEOUT_MS = 60_000;
const LISTENING = /^listening on (http:\/\/\S+)$/;

const live = new Set();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * Whether the agents' package is installed. When it is not, the test file says so
 * loudly and skips outside CI; in CI (CI set) it fails.
 */
export function agentsInstalled(label) {
  if (existsSync(path.join(AGENTS_DIR, 'node_modules', '@ag-ui', 'encoder'))) return true;
  const why = `${label}: the real agents are not installed: run \`npm ci\` in ${AGENTS_DIR} (make e2e-test does)`;
  if (process.env.CI) {
    test(label, () => {
      throw new Error(why);
    });
  } else {
    console.warn(`\n*** SKIPPED: ${why} ***\n`);
    test(label, { skip: why }, () => {});
  }
  return false;
}

/**
 * Starts `node e2e/agents/<script> 0` in a new temporary directory, with the extra environment env and resolves with
 * {url, output, stop()} once it prints the address it listens on; rejects when it exits
 * first or says nothing within the start-up timeout.
 */
export async function startAgent(script, env = {}) {
  const child = spawn(process.execPath, [path.join(AGENTS_DIR, script), '0'], {
    cwd: makeTempDir('agui-mock-agent-'), // where the LangGraph server keeps its state

    env: { ...process.env, ...env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  for (const handle of [child, child.stdout, child.stderr]) handle.unref();
  const output = [];
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => (live.delete(child), resolve({ code, signal }))));
  createInterface({ input: child.stderr }).on('line', (line) => output.push(line));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not listen within ${STARTUP_TIMEOUT_MS} ms:\n${output.join('\n')}`));
    }, STARTUP_TIMEOUT_MS);
    createInterface({ input: child.stdout }).on('line', (line) => {
      output.push(line);
      const address = LISTENING.exec(line)?.[1];
      if (address) {
        clearTimeout(timer);
        resolve(address);
      }
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code ?? signal}) before it listened:\n${output.join('\n')}`));
    });
  });
  return {
    url,
    output,
    stop() {
      child.ref(); // the test process waits for the exit
      child.kill('SIGTERM');
      return exited;
    },
  };
}
