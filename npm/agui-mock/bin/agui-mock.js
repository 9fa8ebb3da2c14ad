#!/usr/bin/env node
// Runs this platform's agui-mock binary with the arguments, input and output given, and
// exits as it does. Signals that stop the launcher (Ctrl-C, a test runner's SIGTERM) are
// passed on, so the server shuts down cleanly.

'use strict';

const { spawn } = require('node:child_process');
const { binaryPath } = require('../index.js');

let binary;
try {
  binary = binaryPath();
} catch (err) {
  console.error(err.message);
  process.exit(1);
}

const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('error', (err) => {
  console.error(`agui-mock: cannot run ${binary}: ${err.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal); // die of the same signal
  } else {
    process.exit(code ?? 1);
  }
});
