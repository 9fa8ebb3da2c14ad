// Playwright runs the mock beside your app: aguiMockServer starts the agui-mock binary of
// the npm package (npm install -D agui-mock @agui-mock/playwright @playwright/test) on the
// scenarios of this folder. Point your app's AG-UI agent at mock.url + "/agui/chat".
import { defineConfig } from "@playwright/test";
import { aguiMockServer, type AguiMockOptions } from "@agui-mock/playwright";

const mock = aguiMockServer({ port: 8000, scenarios: "scenarios", speed: 0, appOrigins: "http://localhost:3000" }); // your app's origin

export default defineConfig<AguiMockOptions>({
  testDir: "tests",
  use: {
    baseURL: "http://localhost:3000", // your app
    mockUrl: mock.url,
  },
  webServer: [
    mock.webServer,
    { command: "npm run dev", url: "http://localhost:3000", reuseExistingServer: true }, // your app
  ],
});
