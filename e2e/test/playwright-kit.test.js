// @agui-mock/playwright's aguiMockServer (clients/playwright): what it makes of the
// options a playwright.config.ts gives it. An app origin that is not one (no scheme, a
// path, "null") stops the config with an Error naming it and the fix, instead of reaching
// the mock as an origin the user never wrote; the tokens of args reach the binary in its
// environment, never on a command line that `ps` shows, and the mock it starts requires
// them.
//
// The kit is imported from its build: `cd clients/playwright && npm ci && npm run build`
// (make e2e-test does).

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { ADMIN, newTestId, runInput, TEST_ID_HEADER } from './admin.js';
import { eventually, freePort, serverBinary } from './harness.js';

const KIT = '../../clients/playwright/dist/server.js';
const { aguiMockServer } = await import(KIT).catch((err) => {
  throw new Error(`@agui-mock/playwright is not built (cd clients/playwright && npm ci && npm run build): ${err.message}`);
});

/** The kit's options with a binary given, so that no agui-mock package need be installed. */
const withBinary = (options) => ({ binary: '/opt/agui-mock/bin/agui-mock', ...options });

/** The Error aguiMockServer throws for appOrigins, or a failure when it throws none. */
function refusal(appOrigins) {
  try {
    const { webServer } = aguiMockServer(withBinary({ appOrigins }));
    assert.fail(`appOrigins ${JSON.stringify(appOrigins)} was taken: ${webServer.command}`);
  } catch (err) {
    if (err instanceof assert.AssertionError) throw err;
    return err.message;
  }
}

/** The values of a flag in a webServer command, in order. */
function flagValues(command, flag) {
  const words = command.split(' ');
  return words.flatMap((word, i) => (word === flag ? [words[i + 1].replace(/^"|"$/g, '')] : []));
}

describe('@agui-mock/playwright aguiMockServer: appOrigins', () => {
  test('refuses an origin without its scheme, naming it and the fix', () => {
    assert.equal(
      refusal('localhost:3000'),
      '@agui-mock/playwright: appOrigins: "localhost:3000" is not an origin: write it with its scheme, like "http://localhost:3000"',
    );
    assert.equal(
      refusal('127.0.0.1:5173'),
      '@agui-mock/playwright: appOrigins: "127.0.0.1:5173" is not an origin: write it with its scheme, like "http://127.0.0.1:5173"',
    );
    assert.equal(
      refusal('//localhost:3000/'),
      '@agui-mock/playwright: appOrigins: "//localhost:3000/" is not an origin: write it with its scheme, like "http://localhost:3000"',
    );
    // among good ones: the bad one is named
    assert.equal(
      refusal(['http://localhost:3000', 'app.localhost:8080']),
      '@agui-mock/playwright: appOrigins: "app.localhost:8080" is not an origin: write it with its scheme, like "http://app.localhost:8080"',
    );
  });

  test('refuses every other value that is not an origin, saying why', () => {
    const cases = {
      'http://localhost:3000/app': 'it has a path (/app); an origin is a scheme, a host and a port alone: write "http://localhost:3000"',
      'http://localhost:3000?tab=1': 'it has a query; an origin is a scheme, a host and a port alone: write "http://localhost:3000"',
      'http://localhost:3000?': 'it has a query; an origin is a scheme, a host and a port alone: write "http://localhost:3000"',
      'http://localhost:3000/#chat': 'it has a fragment; an origin is a scheme, a host and a port alone: write "http://localhost:3000"',
      'http://user:secret@localhost:3000': 'it has a user name or password; an origin is a scheme, a host and a port alone: write "http://localhost:3000"',
      'null': '"null" is the origin of sandboxed and file: pages, which may not act as a test; give the app\'s origin, like "http://localhost:3000"',
      '': 'give the app\'s origin, like "http://localhost:3000"',
      ' ': 'give the app\'s origin, like "http://localhost:3000"',
      '/app': 'it is a path; give the app\'s origin, like "http://localhost:3000"',
      'file:///srv/app/index.html': 'the app\'s pages are served over http or https, not file; give its origin, like "http://localhost:3000"',
      'ws://localhost:3000': 'the app\'s pages are served over http or https, not ws; give its origin, like "http://localhost:3000"',
      'http://': 'it does not parse as a URL; give the app\'s origin, like "http://localhost:3000"',
      'http://localhost:*': 'appOrigins takes origins, not patterns; give a pattern to the mock itself in args: ["--cors-origins", "http://localhost:*"]',
    };
    for (const [value, why] of Object.entries(cases)) {
      assert.equal(refusal(value), `@agui-mock/playwright: appOrigins: ${JSON.stringify(value)} is not an origin: ${why}`);
    }
    for (const value of [3000, null, undefined]) {
      assert.equal(
        refusal([value]),
        `@agui-mock/playwright: appOrigins: ${value} is not an origin: give the app's origin as a string, like "http://localhost:3000"`,
      );
    }
  });

  test('lists each origin as a browser sends it', () => {
    const { webServer } = aguiMockServer(
      withBinary({ appOrigins: ['http://localhost:3000/', 'HTTPS://App.Example.com:443', 'http://[::1]:5173', 'http://127.0.0.1:80'] }),
    );
    assert.deepEqual(flagValues(webServer.command, '--cors-origins'), [
      'http://localhost:3000',
      'https://app.example.com',
      'http://[::1]:5173',
      'http://127.0.0.1',
    ]);
  });
});

describe('@agui-mock/playwright aguiMockServer: tokens', () => {
  test('takes the tokens out of args and hands them over in the environment', () => {
    for (const [args, env] of [
      [['--admin-token', 'adm 1', '--auth-token', 'run-1'], { AGUI_MOCK_ADMIN_TOKEN: 'adm 1', AGUI_MOCK_AUTH_TOKEN: 'run-1' }],
      [['--admin-token=adm=2', '--auth-token=run-2'], { AGUI_MOCK_ADMIN_TOKEN: 'adm=2', AGUI_MOCK_AUTH_TOKEN: 'run-2' }],
      [['-admin-token', 'adm-3', '-auth-token=run-3'], { AGUI_MOCK_ADMIN_TOKEN: 'adm-3', AGUI_MOCK_AUTH_TOKEN: 'run-3' }],
      [['--admin-token', 'old', '--admin-token', 'adm-4'], { AGUI_MOCK_ADMIN_TOKEN: 'adm-4' }], // the last wins, as with the flag
    ]) {
      const { webServer } = aguiMockServer(withBinary({ port: 9123, args: ['--log-level', 'debug', ...args, '--strict'] }));
      assert.equal(webServer.command, '/opt/agui-mock/bin/agui-mock --addr 127.0.0.1:9123 --log-level debug --strict', `args ${JSON.stringify(args)}`);
      assert.deepEqual(webServer.env, env, `args ${JSON.stringify(args)}`);
    }
    // without a token, no environment; a flag without its value stays, for the binary to refuse
    assert.equal(aguiMockServer(withBinary({ args: ['--speed', '0'] })).webServer.env, undefined);
    const { webServer } = aguiMockServer(withBinary({ port: 9123, args: ['--admin-token'] }));
    assert.equal(webServer.command, '/opt/agui-mock/bin/agui-mock --addr 127.0.0.1:9123 --admin-token');
    assert.equal(webServer.env, undefined);
  });

  test('the mock it starts requires the tokens, and no command line holds them', async () => {
    const adminToken = `admin-${randomUUID()}`;
    const authToken = `auth-${randomUUID()}`;
    const port = await freePort();
    const binary = await serverBinary();
    const { url, webServer } = aguiMockServer({
      binary,
      port,
      speed: 0,
      appOrigins: 'http://localhost:3000/',
      args: ['--admin-token', adminToken, `--auth-token=${authToken}`],
    });
    assert.ok(!webServer.command.includes(adminToken) && !webServer.command.includes(authToken), webServer.command);

    // as Playwright's webServer plugin starts it: through a shell, its env on top of ours
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AGUI_MOCK_')));
    const server = spawn(webServer.command, { shell: true, env: { ...inherited, ...webServer.env }, stdio: 'ignore', detached: true });
    const exited = new Promise((resolve) => server.once('exit', resolve));
    try {
      const admin = (path, token) => fetch(url + ADMIN + path, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
      await eventually(() => admin('/readyz', adminToken).then((r) => r.status === 200, () => false), 'the mock answers its readiness URL with the admin token', 15_000, 100);

      // every command line on the machine: the mock's is among them, and none holds a token
      const lines = commandLines();
      const mock = lines.filter((argv) => argv.includes(`127.0.0.1:${port}`));
      assert.ok(
        mock.some((argv) => argv[0] === binary),
        `no process runs the mock's binary with --addr 127.0.0.1:${port}: ${JSON.stringify(mock)}`,
      );
      for (const argv of lines) {
        const line = argv.join(' ');
        assert.ok(!line.includes(adminToken) && !line.includes(authToken), `a command line shows a token: ${line}`);
      }

      // the admin API takes the admin token only; the AG-UI endpoints the AG-UI token
      assert.equal((await admin('/status')).status, 401);
      assert.equal((await admin('/status', authToken)).status, 401);
      assert.equal((await admin('/status', adminToken)).status, 200);
      const run = (headers) =>
        fetch(`${url}/agui/chat`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...headers },
          body: JSON.stringify(runInput('hello')),
        });
      const testId = newTestId('kit');
      assert.equal((await run({ [TEST_ID_HEADER]: testId })).status, 401);
      assert.equal((await run({ Authorization: `Bearer ${adminToken}` })).status, 401);
      // a page of the app's origin may act as a test (appOrigins reached --cors-origins as
      // the browser sends it, without its slash); a page of another may not
      const fromApp = await run({ Authorization: `Bearer ${authToken}`, Origin: 'http://localhost:3000', [TEST_ID_HEADER]: testId });
      assert.equal(fromApp.status, 200, await fromApp.clone().text());
      assert.match(await fromApp.text(), /RUN_FINISHED/);
      const fromElsewhere = await run({ Authorization: `Bearer ${authToken}`, Origin: 'http://localhost:4000', [TEST_ID_HEADER]: testId });
      assert.equal(fromElsewhere.status, 403);
      assert.equal((await fromElsewhere.json()).error, 'forbidden_origin');
    } finally {
      process.kill(-server.pid, 'SIGTERM'); // the shell and the mock, as Playwright stops them
      await exited;
    }
  });
});

/**
 * The command line of every process this user can see, as `ps` shows it: each a list of
 * its words. On Linux, from /proc; elsewhere, from ps itself.
 */
function commandLines() {
  if (process.platform === 'linux') {
    const lines = [];
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      let raw;
      try {
        raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        continue; // ended meanwhile
      }
      if (raw !== '') lines.push(raw.replace(/\0$/, '').split('\0'));
    }
    return lines;
  }
  return psLines();
}

/** The command lines `ps` prints, split at spaces. */
function psLines() {
  return execFileSync('ps', ['-A', '-ww', '-o', 'args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.trim().split(' '));
}
