// A YAML alias bomb — ten levels of ten aliases, a few hundred bytes that name 10¹⁰ nodes —
// is refused within milliseconds wherever scenarios are read, by the real binary: at
// start-up, on a hot reload (the last good set serving on), through POST
// /_mock/scenarios; and SIGTERM during its reloads stops the server at once.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { admin } from './admin.js';
import { serverBinary, startServer, writeTempFiles } from './harness.js';

const PROBLEM = /the aliases of this file add more than 100000 nodes \(the alias \*x3 here goes past it\)/;

function bomb() {
  let text = 'id: bomb\nmatch: {message: bomb}\nsteps:\n  - text: a\nx0: &x0 [a, a, a, a, a, a, a, a, a, a]\n';
  for (let i = 1; i <= 9; i++) text += `x${i}: &x${i} [${Array(10).fill(`*x${i - 1}`).join(', ')}]\n`;
  return text; // past the budget at line 9, where x4 names x3 ten times
}

async function quickly(what, work, limitMs = 2000) {
  const started = performance.now();
  const result = await work();
  const took = performance.now() - started;
  assert.ok(took < limitMs, `${what} took ${Math.round(took)} ms`);
  return result;
}

test('validate refuses the bomb at its alias, within milliseconds', async () => {
  const dir = writeTempFiles({ 'bomb.yaml': bomb() });
  const file = path.join(dir, 'bomb.yaml');
  const binary = await serverBinary(); // built before the clock starts
  const failure = await quickly('validate', () => promisify(execFile)(binary, ['validate', file]).then(() => null, (err) => err));
  assert.equal(failure?.code, 1);
  assert.match(failure.stdout, new RegExp(`${file.replaceAll(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:9:45: `));
  assert.match(failure.stdout, PROBLEM);
});

test('a hot reload and POST /_mock/scenarios refuse it, the last good set serves on, and SIGTERM is prompt', async () => {
  const dir = writeTempFiles({ 'alpha.yaml': 'id: alpha\nmatch: {message: alpha}\nsteps:\n  - text: served\n' });
  const server = await startServer(['--scenarios', dir, '--no-builtin', '--watch', 'poll', '--poll-interval', '50ms']);
  try {
    await quickly('the reload', async () => {
      writeFileSync(path.join(dir, 'bomb.yaml'), bomb());
      for (;;) {
        const { body } = await admin(server, 'GET', '/status');
        if (body.failed) {
          assert.equal(body.errors.length, 1);
          assert.deepEqual([body.errors[0].file, body.errors[0].line], [path.join(dir, 'bomb.yaml'), 9]);
          assert.match(body.errors[0].message, PROBLEM);
          assert.equal(body.scenarios, 1, 'the last good set serves on');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    const added = await quickly('POST /_mock/scenarios', () =>
      admin(server, 'POST', '/scenarios', { body: bomb(), contentType: 'application/yaml' }));
    assert.equal(added.status, 422);
    assert.match(added.body.message, PROBLEM);
    assert.equal(added.body.details.problems[0].line, 9);
    for (let i = 0; i < 5; i++) writeFileSync(path.join(dir, 'bomb.yaml'), `${bomb()}# save ${i}\n`);
  } finally {
    const { code } = await quickly('SIGTERM', () => server.stop());
    assert.equal(code, 0);
  }
});
