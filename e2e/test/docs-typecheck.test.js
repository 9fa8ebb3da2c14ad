// The TypeScript the docs show type-checks with the packages they tell the reader to
// install: each ```ts block that is a whole module of AG-UI or CopilotKit code (it
// imports from @ag-ui/*, @copilotkit/* or @agui-mock/copilotkit) is compiled by tsc
// --strict, with @ag-ui/client resolved to the version its page's `npm install` names and
// @agui-mock/copilotkit to the package of this repository (clients/copilotkit, built).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from './harness.js';

const E2E = path.join(REPO_ROOT, 'e2e');
const TSC = path.join(E2E, 'node_modules', 'typescript', 'bin', 'tsc');
const DOCS = ['README.md', 'clients/copilotkit/README.md', ...readdirSync(path.join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const KIT = path.join(REPO_ROOT, 'clients', 'copilotkit');

// The copies of @ag-ui/client installed here, by version: the suite's own (topLevel), and
// the one @copilotkit/runtime depends on.
const clientCopies = new Map();
for (const dir of ['node_modules/@ag-ui/client', 'node_modules/@copilotkit/runtime/node_modules/@ag-ui/client']) {
  const { version } = JSON.parse(readFileSync(path.join(E2E, dir, 'package.json'), 'utf8'));
  clientCopies.set(version, path.join(E2E, dir));
}
const topLevel = [...clientCopies.keys()][0];
const runtime = JSON.parse(readFileSync(path.join(E2E, 'node_modules/@copilotkit/runtime/package.json'), 'utf8'));

/** The ```ts blocks of a Markdown text that import from @ag-ui/* or @copilotkit/* only. */
function moduleBlocks(text) {
  const blocks = [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  return blocks.filter((code) => {
    const from = [...code.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    return from.length > 0 && from.every((p) => /^@(ag-ui|copilotkit)\//.test(p) || p === '@agui-mock/copilotkit');
  });
}

const work = mkdtempSync(path.join(E2E, '.doc-snippets-')); // inside e2e: its node_modules resolve
after(() => rmSync(work, { recursive: true, force: true }));

test('the route of docs/copilotkit.md names the @ag-ui/client the runtime brings', () => {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs/copilotkit.md'), 'utf8');
  const install = /^npm install @copilotkit\/runtime@(\S+) @ag-ui\/client@(\S+)$/m.exec(doc);
  assert.ok(install, 'docs/copilotkit.md shows no npm install of the runtime and @ag-ui/client');
  assert.deepEqual([install[1], install[2]], [runtime.version, runtime.dependencies['@ag-ui/client']]);
});

test('every AG-UI and CopilotKit TypeScript block of the docs type-checks', async () => {
  const files = [];
  for (const doc of DOCS) {
    const text = readFileSync(path.join(REPO_ROOT, doc), 'utf8');
    const pinned = /@ag-ui\/client@(\S+)/.exec(text)?.[1];
    moduleBlocks(text).forEach((code, i) => {
      const name = `${doc.replace(/\W+/g, '-')}-${i}`;
      const version = pinned ?? topLevel;
      assert.ok(clientCopies.has(version), `${doc} installs @ag-ui/client@${version}, which is not installed here`);
      writeFileSync(path.join(work, `${name}.ts`), code);
      writeFileSync(path.join(work, `${name}.json`), JSON.stringify({
        compilerOptions: {
          strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler',
          lib: ['es2022', 'dom'], types: ['node'], skipLibCheck: true,
          // where the page installs the runtime's version, npm shares the runtime's copy
          paths: {
            '@agui-mock/copilotkit': [KIT],
            ...(version === topLevel ? {} : { '@ag-ui/client': [clientCopies.get(version)] }),
          },
        },
        files: [`${name}.ts`],
      }));
      files.push({ doc, name });
    });
  }
  assert.ok(files.some((f) => f.doc === 'docs/copilotkit.md'), 'the route of docs/copilotkit.md is no TypeScript block');
  for (const { doc, name } of files) {
    const result = await promisify(execFile)(process.execPath, [TSC, '-p', path.join(work, `${name}.json`)], { timeout: 120_000 })
      .then(() => '', (err) => err.stdout || err.message);
    assert.equal(result, '', `a TypeScript block of ${doc} does not type-check:\n${result}`);
  }
});
