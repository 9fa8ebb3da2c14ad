// A CopilotKit app (CopilotKitProvider, CopilotChat) pointed at the mock's CopilotKit
// routes. Each test gets its own X-Test-Id on every request the page sends to the mock,
// a reset mock, and `mock`, the typed admin client scoped to the test: it seeds the
// threads the app restores. The chat's elements are CopilotChat's own (its data-testid);
// how your app opens a thread (here ?thread=) and shows an interrupt are yours: adapt them.
import { expect, test } from "@agui-mock/playwright";
import type { Page } from "@playwright/test";

const assistant = (page: Page, text: string) => page.getByTestId("copilot-assistant-message").filter({ hasText: text });

async function say(page: Page, text: string) {
  await page.getByTestId("copilot-chat-textarea").fill(text);
  await page.getByTestId("copilot-send-button").click();
}

test("opens on the conversation of scenarios/welcome-back.yaml", async ({ page }) => {
  await page.goto("/?thread=welcome-back");
  await expect(assistant(page, "Hello! I am a mock agent.")).toBeVisible();
});

test("restores a conversation the test seeded", async ({ page, mock }) => {
  await mock.seedThread({
    threadId: "yesterday",
    messages: [
      { role: "user", content: "hello" },
      { role: "assistant", content: "Hello! I am a mock agent. Ask me to delete a file, or to pick a colour." },
    ],
  });
  await page.goto("/?thread=yesterday");
  await expect(assistant(page, "Hello! I am a mock agent.")).toBeVisible();
});

test("a pending approval survives a reload, and answering it goes on", async ({ page, mock }) => {
  await mock.seedThread({
    threadId: "pending",
    scenario: "approval", // answers the thread's next run: the interrupt's branch
    messages: [
      { role: "user", content: "delete notes.txt" },
      { role: "assistant", content: "Deleting notes.txt cannot be undone." },
    ],
    interrupts: [{ id: "delete-notes", reason: "confirmation", message: "Delete notes.txt?" }],
  });
  await page.goto("/?thread=pending");
  await expect(page.getByText("Delete notes.txt?")).toBeVisible(); // your interrupt card (useInterrupt)
  await page.reload();
  await expect(page.getByText("Delete notes.txt?")).toBeVisible();
  await page.getByRole("button", { name: "Approve" }).click(); // your card's button
  await expect(assistant(page, "Deleted notes.txt.")).toBeVisible();
});

test("Stop ends a run, and the journal shows it cancelled", async ({ page, mock }) => {
  const held = await mock.breakpoint({ scenario: "hello", event: 2 }); // the answer is held after its first word
  await page.goto("/?thread=stopped");
  await say(page, "hello");
  await held.reached();
  await page.getByTestId("copilot-send-button").click(); // CopilotChat's Stop while a run streams
  await expect.poll(async () => (await mock.journal({ thread: "stopped" })).map((run) => run.outcome)).toContain("cancelled");
});
