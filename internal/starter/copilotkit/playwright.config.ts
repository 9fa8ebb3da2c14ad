// Playwright runs the mock beside your CopilotKit app: aguiMockServer starts the agui-mock
// binary of the npm package (npm install -D agui-mock @agui-mock/playwright @playwright/test)
// on the scenarios of this folder, and the app starts with its runtimeUrl at the mock's
// CopilotKit routes (mock.url + "/copilotkit"): read it from the variable your provider
// reads, e.g. <CopilotKitProvider runtimeUrl={process.env.NEXT_PUBLIC_COPILOTKIT_URL ?? "/api/copilotkit"}>.
import { defineConfig } from "@playwright/test";
import { aguiMockServer, type AguiMockOptions } from "@agui-mock/playwright";

const app = "http://localhost:3000"; // your app
const mock = aguiMockServer({ port: 8000, scenarios: "scenarios", speed: 0, appOrigins: app }); // the page calls the mock: its origin is listed

export default defineConfig<AguiMockOptions>({
  testDir: "tests",
  use: {
    baseURL: app,
    mockUrl: mock.url,
  },
  webServer: [
    mock.webServer,
    {
      command: "npm run dev",
      url: app,
      reuseExistingServer: true,
      env: { NEXT_PUBLIC_COPILOTKIT_URL: `${mock.url}/copilotkit`, VITE_COPILOTKIT_URL: `${mock.url}/copilotkit` },
    },
  ],
});
