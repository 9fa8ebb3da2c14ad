// @agui-mock/playwright's aguiMockServer (clients/playwright): what it makes of the
// options a playwright.config.ts gives it. An app origin that is not one (no scheme, a
// path, "null") stops the config with an Error naming it and the fix, instead of reaching
// the mock as an origin the user never wrote.
//
// The kit is imported from its build: `cd clients/playwright && npm ci && npm run build`
// (make e2e-test does).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

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

