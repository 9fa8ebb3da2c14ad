// A thread whose first turn failed with RUN_ERROR and whose second turn succeeded: a reload
// brings both turns back, and the replayed RUN_ERROR reaches the provider's onError again,
// on every reload.
import { expect, sseEvents, sseTypes, test } from "./support";

test("a history with an earlier RUN_ERROR restores both turns, and onError fires on every reload", async ({ app, threads, recorder, newThread }) => {
  const thread = newThread();
  const made = await threads.errorThenAnswer(thread);
  if (made.errors > 0) await expect(app.testid("error-count-total")).toHaveText(String(made.errors));

  for (const n of [1, 2]) {
    const total = String(made.errors + n);
    recorder.mark(`reload-${n}`);
    await app.open(thread);
    await expect(app.userMessage("fail please")).toBeVisible();
    await expect(app.assistantMessage("Let me look into that…")).toBeVisible();
    await expect(app.userMessage("hello ck after the error")).toBeVisible();
    await expect(app.assistantMessage("Hello from the mock, hello ck after the error.")).toBeVisible();
    await expect(app.testid("message-count")).toHaveText("4");
    await app.waitIdle();
    await app.page.waitForLoadState("networkidle");
    // onError: once in this load, once more in the tab
    await expect(app.testid("error-count")).toHaveText("1");
    await expect(app.testid("error-count-total")).toHaveText(total);
    await expect(app.testid("error-entry")).toHaveAttribute("data-code", "agent_run_error_event");
    await expect(app.testid("error-message")).toHaveText("The model provider is overloaded. Try again in a minute.");
    expect(recorder.select(/\/run$/, `reload-${n}`)).toHaveLength(0);
  }

  await recorder.settle();
  app.notes.requestsOnReload = recorder.summary("reload-1");
  const connect = recorder.connect("reload-1");
  expect(sseTypes(connect.responseBody)).toEqual([
    "RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_ERROR",
    "RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED",
  ]);
  const events = sseEvents(connect.responseBody);
  expect(events[4]).toMatchObject({ type: "RUN_ERROR", code: "provider_overloaded", message: "The model provider is overloaded. Try again in a minute." });
  // the second run's input holds only its own new message
  expect(events[5]).toMatchObject({ input: { messages: [{ role: "user", content: "hello ck after the error" }] } });
});
