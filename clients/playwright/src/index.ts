// A Playwright kit for agui-mock. `test` gives each test its own X-Test-Id on every
// request the page sends to the mock and to the app's own CopilotKit runtime route,
// resets that test's state on the mock before it runs, and hands it `mock`, the typed
// admin client scoped to it; `aguiMockServer` starts the mock as a webServer of the
// config.

import { AguiMockClient, TEST_ID_HEADER, type ClientOptions, type JournalEntry, type JournalQuery } from "@agui-mock/client";
import { test as base, type TestInfo } from "@playwright/test";

export { expect } from "@playwright/test";
export * from "@agui-mock/client";
export { aguiMockServer, type AguiMockServer, type AguiMockServerOptions, type AguiMockWebServer } from "./server.js";

/** The app's CopilotKit runtime route a CopilotKit app calls by default, as URL globs: its base and what is under it. */
export const DEFAULT_RUNTIME_ROUTES = ["**/api/copilotkit", "**/api/copilotkit/**"];

/** The kit's options, set in playwright.config.ts's `use` (defineConfig<AguiMockOptions>). */
export interface AguiMockOptions {
  /** The mock's base URL: default AGUI_MOCK_URL, else http://127.0.0.1:8000. */
  mockUrl: string;
  /** The admin token when the mock has one (--admin-token, else --auth-token). */
  mockToken: string | undefined;
  /**
   * URL globs of the app's own CopilotKit runtime route, whose requests carry the test's
   * X-Test-Id too: the runtime forwards it to the mock (through its agent's HttpAgent or
   * @agui-mock/copilotkit). Default DEFAULT_RUNTIME_ROUTES (/api/copilotkit); false tags
   * the mock's origin alone.
   */
  runtimeRoutes: string | string[] | false;
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
  runtimeRoutes: [DEFAULT_RUNTIME_ROUTES, { option: true }],

  mockTestId: async ({}, use, testInfo) => {
    await use(`${testInfo.testId}-${testInfo.repeatEachIndex}-${testInfo.retry}`);
  },

  // Every request of the test's pages to the mock, and to the app's runtime route, carries
  // the test's id, whatever code of the page sends it.
  context: async ({ context, mockUrl, mockTestId, runtimeRoutes }, use) => {
    const mock = new URL(mockUrl);
    const tag = (route: Parameters<Parameters<typeof context.route>[1]>[0]) =>
      route.continue({ headers: { ...route.request().headers(), [TEST_ID_HEADER.toLowerCase()]: mockTestId } });
    await context.route((url) => sameServer(url, mock), tag);
    for (const glob of runtimeRoutes === false ? [] : [runtimeRoutes].flat()) {
      await context.route(glob, tag);
    }
    await use(context);
  },

  mock: async ({ mockUrl, mockToken, mockTestId }, use, testInfo) => {
    const client = new KitClient(mockUrl, { testId: mockTestId, token: mockToken }, testInfo);
    await client.reset();
    await use(client);
  },
});

/**
 * The kit's admin client: when a test's journal is empty while runs without an
 * X-Test-Id arrived since the test began, it says so, in a warning and the test's
 * annotations: the app's requests did not reach the mock as the test's.
 */
class KitClient extends AguiMockClient {
  readonly #since = Date.now();
  readonly #options: ClientOptions;
  readonly #testInfo: TestInfo;

  constructor(baseUrl: string, options: ClientOptions, testInfo: TestInfo) {
    super(baseUrl, options);
    this.#options = options;
    this.#testInfo = testInfo;
  }

  override async journal(query: JournalQuery = {}): Promise<JournalEntry[]> {
    const entries = await super.journal(query);
    if (entries.length > 0 || this.testId === undefined) return entries;
    const untagged = (await new AguiMockClient(this.baseUrl, { ...this.#options, testId: undefined }).journal(query)).filter(
      (e) => e.runId !== undefined && Date.parse(e.time) >= this.#since - 1000,
    );
    if (untagged.length > 0) {
      const paths = [...new Set(untagged.map((e) => e.path))].join(", ");
      const hint =
        `the journal of this test is empty, but ${untagged.length} run(s) without an X-Test-Id reached the mock since the test began (${paths}): ` +
        `the app's requests do not carry the test's id. A CopilotKit app calls its runtime route, not the mock: set the kit's runtimeRoutes option ` +
        `to that route's URL glob (default ${DEFAULT_RUNTIME_ROUTES.join(" and ")}), and let the runtime forward X-Test-Id to the mock ` +
        `(its HttpAgent forwards x-* headers; see @agui-mock/copilotkit).`;
      console.warn(`@agui-mock/playwright: ${hint}`);
      this.#testInfo.annotations.push({ type: "warning", description: hint });
    }
    return entries;
  }
}

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

/** Whether a URL is the mock's: the same scheme and port, and the same host or both loopback. */
function sameServer(url: URL, mock: URL): boolean {
  if (url.protocol !== mock.protocol || url.port !== mock.port) return false;
  return url.hostname === mock.hostname || (LOOPBACK.includes(url.hostname) && LOOPBACK.includes(mock.hostname));
}
