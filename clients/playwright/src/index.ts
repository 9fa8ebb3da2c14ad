// A Playwright kit for agui-mock. `test` gives each test its own X-Test-Id on every
// request the page sends to the mock, resets that test's state on the mock before it
// runs, and hands it `mock`, the typed admin client scoped to it; `aguiMockServer`
// starts the mock as a webServer of the config.

import { AguiMockClient, TEST_ID_HEADER } from "@agui-mock/client";
import { test as base } from "@playwright/test";

export { expect } from "@playwright/test";
export * from "@agui-mock/client";
export { aguiMockServer, type AguiMockServer, type AguiMockServerOptions, type AguiMockWebServer } from "./server.js";

/** The kit's options, set in playwright.config.ts's `use` (defineConfig<AguiMockOptions>). */
export interface AguiMockOptions {
  /** The mock's base URL: default AGUI_MOCK_URL, else http://127.0.0.1:8000. */
  mockUrl: string;
  /** The admin token when the mock has one (--admin-token, else --auth-token). */
  mockToken: string | undefined;
}

/** What the kit gives a test. */
export interface AguiMockFixtures {
  /** The admin client, scoped to this test's id; the test's state was reset before it ran. */
  mock: AguiMockClient;
  /** The X-Test-Id of this test: unique per test, repetition and retry. */
  mockTestId: string;
}

/** Playwright's test, with the kit's fixtures and options. */
export const test = base.extend<AguiMockFixtures & AguiMockOptions>({
  mockUrl: [process.env.AGUI_MOCK_URL ?? "http://127.0.0.1:8000", { option: true }],
  mockToken: [undefined, { option: true }],

  mockTestId: async ({}, use, testInfo) => {
    await use(`${testInfo.testId}-${testInfo.repeatEachIndex}-${testInfo.retry}`);
  },

  // Every request of the test's pages to the mock carries the test's id, whatever code
  // of the page sends it.
  context: async ({ context, mockUrl, mockTestId }, use) => {
    const mock = new URL(mockUrl);
    await context.route(
      (url) => sameServer(url, mock),
      (route) => route.continue({ headers: { ...route.request().headers(), [TEST_ID_HEADER.toLowerCase()]: mockTestId } }),
    );
    await use(context);
  },

  mock: async ({ mockUrl, mockToken, mockTestId }, use) => {
    const client = new AguiMockClient(mockUrl, { testId: mockTestId, token: mockToken });
    await client.reset();
    await use(client);
  },
});

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

/** Whether a URL is the mock's: the same scheme and port, and the same host or both loopback. */
function sameServer(url: URL, mock: URL): boolean {
  if (url.protocol !== mock.protocol || url.port !== mock.port) return false;
  return url.hostname === mock.hostname || (LOOPBACK.includes(url.hostname) && LOOPBACK.includes(mock.hostname));
}
