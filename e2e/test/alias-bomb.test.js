// A YAML alias bomb — ten levels of ten aliases, a few hundred bytes that name 10¹⁰ nodes —
// is refused at its alias wherever scenarios are read, by the real binary: by validate, on
// a hot reload (the last good set serving on), through POST /_mock/scenarios; and SIGTERM
// during its reloads stops the server.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { admin } from './admin.js';
import { eventually, serverBinary, startServer, writeTempFiles } from './harness.js';

const PROBLEM = /the aliases of this file add more than 100000 nodes \(the alias \*x3 here goes past it\)/;

function bomb() {
  let text = 'id: bomb\nmatch: {message: bomb}\nsteps:\n  - text: a\nx0: &x0 [a, a, a, a, a, a, a, a, a, a]\n';
  for (let i = 1; i <= 9; i++) text += `x${i}: &x${i} [${Array(10).fill(`*x${i - 1}`).join(', ')}]\n`;
  return text; // past the budget at line 9, where x4 names x3 ten times
}

// The refusal names the alias that goes past the budget: the bomb is refused there, before
// it is resolved (which would never end). What refusing it costs is checked in bytes
// allocated by the Go tests (scenarios, internal/cmd), which the machine's load does not change.

test('validate refuses the bomb at its alias', async () => {
  const dir = writeTempFiles({ 'bomb.yaml': bomb() });
  const file = path.join(dir, 'bomb.yaml');
  const binary = await serverBinary();
  const failure = await promisify(execFile)(binary, ['validate', file]).then(() => null, (err) => err);
  assert.equal(failure?.code, 1);
  assert.match(failure.stdout, new RegExp(`${file.replaceAll(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:9:45: `));
  assert.match(failure.stdout, PROBLEM);
});

test('a hot reload and POST /_mock/scenarios refuse it, the last good set serves on, and SIGTERM stops the server', async () => {
  const dir = writeTempFiles({ 'alpha.yaml': 'id: alpha\nmatch: {message: alpha}\nsteps:\n  - text: served\n' });
  const server = await startServer(['--scenarios', dir, '--no-builtin', '--watch', 'poll', '--poll-interval', '50ms']);
  try {
    writeFileSync(path.join(dir, 'bomb.yaml'), bomb());
    const body = await eventually(async () => {
      const { body } = await admin(server, 'GET', '/status');
      return body.failed && body;
    }, 'the reload reports the bomb');
    assert.equal(body.errors.length, 1);
    assert.deepEqual([body.errors[0].file, body.errors[0].line], [path.join(dir, 'bomb.yaml'), 9]);
    assert.match(body.errors[0].message, PROBLEM);
    assert.equal(body.scenarios, 1, 'the last good set serves on');
    const added = await admin(server, 'POST', '/scenarios', { body: bomb(), contentType: 'application/yaml' });
    assert.equal(added.status, 422);
    assert.match(added.body.message, PROBLEM);
    assert.equal(added.body.details.problems[0].line, 9);
    for (let i = 0; i < 5; i++) writeFileSync(path.join(dir, 'bomb.yaml'), `${bomb()}# save ${i}\n`);
  } finally {
    const { code } = await server.stop(); // killed, with no exit code, if it does not stop
    assert.equal(code, 0);
  }
});
