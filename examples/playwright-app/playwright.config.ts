// The chat page and agui-mock, both started by Playwright. aguiMockServer runs the binary
// of the agui-mock npm package; MOCK_BIN names another one (make test builds it from
// this repository). Chromium comes from the lockfile (@sparticuz/chromium), so nothing is
// downloaded; CHROMIUM_PATH names another browser.
import chromium from "@sparticuz/chromium";
import { defineConfig } from "@playwright/test";
import { aguiMockServer, type AguiMockOptions } from "@agui-mock/playwright";

const app = `http://127.0.0.1:${process.env.APP_PORT ?? 48_081}`;
const mock = aguiMockServer({
  port: Number(process.env.MOCK_PORT ?? 48_080),
  scenarios: "scenarios",
  speed: 0,
  seed: 7,
  appOrigins: app, // the page's requests carry X-Test-Id: the mock takes it from the app's origin
  binary: process.env.MOCK_BIN,
  reuseExistingServer: false,
});

export default defineConfig<AguiMockOptions>({
  testDir: "tests",
  fullyParallel: true, // the tests share one mock: each has its own X-Test-Id
  workers: 2,
  forbidOnly: !!process.env.CI,
  reporter: process.env.CI ? "list" : [["list"], ["html", { open: "never" }]],
  use: {
    baseURL: app,
    mockUrl: mock.url,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? (await chromium.executablePath()),
      args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
  webServer: [
    mock.webServer,
    {
      command: "node serve.js",
      url: app,
      reuseExistingServer: false,
      env: { APP_PORT: new URL(app).port, AGENT_URL: mock.url },
    },
  ],
});
