// Each test gets its own X-Test-Id on every request the page sends to the mock, a reset
// mock, and `mock`, the typed admin client scoped to the test. Adapt the selectors to
// your UI.
import { expect, test } from "@agui-mock/playwright";

test("greets the user", async ({ page, mock }) => {
  await page.goto("/");
  await page.getByPlaceholder("Message").fill("hello");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByText("Hello! I am a mock agent.")).toBeVisible();

  const [run] = await mock.journal({ route: "/agui/chat" });
  expect([run.scenario, run.outcome]).toEqual(["hello", "success"]);
});

test("shows the error of a failed run", async ({ page, mock }) => {
  await mock.fault({ kind: "runError", message: "The model is overloaded" });
  await page.goto("/");
  await page.getByPlaceholder("Message").fill("hello");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByRole("alert")).toContainText("overloaded");
});
