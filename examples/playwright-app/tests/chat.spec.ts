// The chat page against agui-mock, through @agui-mock/playwright: every test has its own
// X-Test-Id on the page's runs, a reset mock and `mock`, the typed admin client. The
// tests run in parallel against one mock and never see each other's runs.
import type { Page } from "@playwright/test";
import { expect, test } from "@agui-mock/playwright";

async function say(page: Page, message: string) {
  await page.getByPlaceholder("Message").fill(message);
  await page.getByRole("button", { name: "Send" }).click();
}

test.beforeEach(async ({ page }) => {
  await page.goto("/");
});

test("answers from the scenario the message matches", async ({ page, mock }) => {
  await say(page, "forecast for Lisbon");
  await expect(page.getByTestId("assistant-message")).toHaveText("It is sunny in Lisbon.");

  const [run] = await mock.journal({ route: "/agui/chat" });
  expect([run.status, run.scenario, run.selection, run.outcome]).toEqual([200, "chat-forecast", "matched", "success"]);
});

test("shows a loading state until the answer streams in", async ({ page, mock }) => {
  const answer = await mock.breakpoint({ scenario: "chat-greeting", step: "answer" });
  await say(page, "hello");
  await answer.reached();

  await expect(page.getByTestId("typing-indicator")).toBeVisible();
  await expect(page.getByTestId("assistant-message")).toHaveCount(0);

  await answer.release();
  await expect(page.getByTestId("typing-indicator")).toBeHidden();
  await expect(page.getByTestId("assistant-message")).toHaveText("Hello! How can I help?");
});

test("shows the error of a failed run", async ({ page, mock }) => {
  await mock.force("run-error"); // a built-in scenario: whatever the user says, RUN_ERROR
  await say(page, "hello");
  await expect(page.getByRole("alert")).toContainText("overloaded");
});

test("recovers after a rate-limited run", async ({ page, mock }) => {
  await mock.fault({ kind: "status", status: 429, retryAfter: 3 });
  await say(page, "hello");
  await expect(page.getByRole("alert")).toBeVisible();

  await say(page, "hello"); // the fault applied once
  await expect(page.getByRole("alert")).toBeHidden();
  await expect(page.getByTestId("assistant-message")).toHaveText("Hello! How can I help?");
  const runs = await mock.journal({ route: "/agui/chat" });
  expect(runs.map((r) => [r.status, r.error ?? null])).toEqual([
    [429, "injected_fault"],
    [200, null],
  ]);
});

test("shows an error when the connection drops mid-stream", async ({ page, mock }) => {
  await mock.fault({ kind: "disconnect", after: 2 });
  await say(page, "hello");
  await expect(page.getByRole("alert")).toBeVisible();
});

test("sends the whole conversation on one thread", async ({ page, mock }) => {
  await say(page, "hello");
  await expect(page.getByTestId("assistant-message")).toHaveCount(1);
  await say(page, "forecast for Oslo");
  await expect(page.getByTestId("assistant-message")).toHaveCount(2);

  const runs = await mock.journal({ route: "/agui/chat" });
  type RunInput = { threadId: string; messages: { role: string; content?: unknown }[] };
  const [first, second] = runs.map((r) => r.request as RunInput);
  expect(second.threadId).toBe(first.threadId);
  expect(second.messages.map((m) => [m.role, m.content])).toEqual([
    ["user", "hello"],
    ["assistant", "Hello! How can I help?"],
    ["user", "forecast for Oslo"],
  ]);
});

test("plays a scenario the test adds", async ({ page, mock }) => {
  await mock.addScenarios(`
id: added-by-a-test
match: {message: "(?i)\\\\bsecret\\\\b"}
steps: [{text: The password is swordfish.}]
`);
  try {
    await say(page, "tell me the secret");
    await expect(page.getByTestId("assistant-message")).toHaveText("The password is swordfish.");
  } finally {
    await mock.removeScenario("added-by-a-test"); // added scenarios are every test's
  }
});
