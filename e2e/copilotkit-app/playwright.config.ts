// The chat page on @copilotkit/react-core v2, driven by the real Playwright runner in the
// headless Chromium of @sparticuz/chromium (from the lockfile: nothing is downloaded).
//
// Topologies, one Playwright project each; TOPOLOGIES picks them (comma-separated,
// default all):
//   runtime  the page → a real CopilotKit runtime 1.75 (runtime-server.mjs) → its HttpAgent →
//            agui-mock's POST /agui/chat
//   mock     the page → agui-mock's own CopilotKit routes (<mock>/copilotkit)
//   kit      the page → a real CopilotKit runtime 1.75 with @agui-mock/copilotkit plugged in
//            (runtime-server.mjs, KIT=1) → agui-mock's CopilotKit routes
//
// agui-mock runs from its binary: MOCK_BIN, by default ../../build/agui-mock (built by
// `make static OUT=build/agui-mock` in the repository). CHROMIUM_PATH names another browser.
import chromium from "@sparticuz/chromium";
import { defineConfig, type PlaywrightTestConfig } from "@playwright/test";
import type { Options } from "./tests/support";

const mockPort = Number(process.env.MOCK_PORT ?? 48_180);
const appPort = Number(process.env.APP_PORT ?? 48_181);
const runtimePort = Number(process.env.RUNTIME_PORT ?? 48_182);
const kitPort = Number(process.env.KIT_PORT ?? 48_183);
const mockUrl = `http://127.0.0.1:${mockPort}`;
const appUrl = `http://127.0.0.1:${appPort}`;
const runtimeServerUrl = `http://127.0.0.1:${runtimePort}`;
const kitServerUrl = `http://127.0.0.1:${kitPort}`;
const mockBin = process.env.MOCK_BIN ?? "../../build/agui-mock";

const topologies = (process.env.TOPOLOGIES ?? "runtime,mock,kit")
  .split(",")
  .map((t) => t.trim())
  .filter(Boolean);
for (const t of topologies) if (!["runtime", "mock", "kit"].includes(t)) throw new Error(`TOPOLOGIES: unknown topology ${t} (runtime, mock, kit)`);

const projects: PlaywrightTestConfig<Options>["projects"] = [];
if (topologies.includes("runtime")) {
  // the handshake is shaped through the mock; in front of the real runtime, /info is its own
  projects.push({ name: "runtime", testIgnore: ["**/handshake.spec.ts"], use: { topology: "runtime", runtimeUrl: `${runtimeServerUrl}/api/copilotkit` } });
}
if (topologies.includes("mock")) {
  projects.push({ name: "mock", use: { topology: "mock", runtimeUrl: `${mockUrl}/copilotkit` } });
}
if (topologies.includes("kit")) {
  // the handshake is the app's runtime's own here too
  projects.push({ name: "kit", testIgnore: ["**/handshake.spec.ts"], use: { topology: "kit", runtimeUrl: `${kitServerUrl}/api/copilotkit` } });
}

const webServer: PlaywrightTestConfig["webServer"] = [
  {
    command: `${mockBin} --addr 127.0.0.1:${mockPort} --scenarios scenarios --speed 0 --seed 7 --cors-origins ${appUrl}`,
    url: `${mockUrl}/_mock/readyz`,
    reuseExistingServer: false,
    stdout: "ignore",
    stderr: process.env.MOCK_LOG ? "pipe" : "ignore", // MOCK_LOG=1 shows the mock's log
  },
  {
    command: "node serve.mjs",
    url: appUrl,
    reuseExistingServer: false,
    env: { APP_PORT: String(appPort) },
  },
];
if (topologies.includes("runtime")) {
  webServer.push({
    command: "node runtime-server.mjs",
    url: `${runtimeServerUrl}/api/copilotkit/info`,
    reuseExistingServer: false,
    env: { MOCK_URL: mockUrl, RUNTIME_PORT: String(runtimePort) },
  });
}
if (topologies.includes("kit")) {
  webServer.push({
    command: "node runtime-server.mjs",
    url: `${kitServerUrl}/api/copilotkit/info`,
    reuseExistingServer: false,
    env: { MOCK_URL: mockUrl, RUNTIME_PORT: String(kitPort), KIT: "1" },
  });
}

export default defineConfig<Options>({
  testDir: "tests",
  fullyParallel: true, // every test has its own threads and X-Test-Id
  workers: Number(process.env.WORKERS ?? 2),
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? "list" : [["list"], ["html", { open: "never" }]],
  use: {
    baseURL: appUrl,
    mockUrl,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? (await chromium.executablePath()),
      args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
    trace: "retain-on-failure",
  },
  projects,
  webServer,
});
