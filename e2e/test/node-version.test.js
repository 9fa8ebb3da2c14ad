// The Node.js the README asks for runs every package of the suite's lockfile: its
// version satisfies each one's engines.node.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import semver from 'semver'; // in the lockfile already, through the suite's packages
import { REPO_ROOT } from './harness.js';

test('the README names a Node.js every package of the lockfile supports', () => {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const stated = /end-to-end tests also need Node\.js (\d+\.\d+) or\s+later/.exec(readme);
  assert.ok(stated, 'the README names no Node.js version for the end-to-end tests');
  const version = `${stated[1]}.0`;
  const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'e2e', 'package-lock.json'), 'utf8'));
  const unmet = Object.entries(lock.packages)
    .filter(([, p]) => p.engines?.node && !semver.satisfies(version, p.engines.node))
    .map(([name, p]) => `${name} wants ${p.engines.node}`);
  assert.deepEqual(unmet, [], `Node.js ${version} does not run every package`);
  const older = `${semver.major(version)}.${semver.minor(version) - 1}.0`;
  assert.ok(Object.values(lock.packages).some((p) => p.engines?.node && !semver.satisfies(older, p.engines.node)),
    `Node.js ${older} would do too: the README asks for more than the packages need`);
  if (/not 23\b/.test(readme)) {
    assert.ok(Object.values(lock.packages).some((p) => p.engines?.node && !semver.satisfies('23.11.0', p.engines.node)),
      'the README rules Node.js 23 out, yet every package runs on it');
  }
});
