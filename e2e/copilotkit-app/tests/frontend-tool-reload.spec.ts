// The page's frontend tool (clarify): the run ends after the call, the page's handler
// answers, and the follow-up run carries the answer. After a reload the call and its
// answer come back from the replay without the handler running again.
import { expect, sseEvents, sseTypes, test } from "./support";

test("an answered frontend tool call restores without running the handler again", async ({ app, threads, recorder, newThread }) => {
  const thread = newThread();
  const made = await threads.frontendToolAnswered(thread);

  recorder.mark("reload");
  await app.open(thread);
  await expect(app.assistantMessage("Rendering has started.")).toBeVisible();
  await expect(app.userMessage("render a clip")).toBeVisible();
  await expect(app.assistantMessage("One question first.")).toBeVisible();
  await expect(app.assistantMessage("A GIF it is.")).toBeVisible();
  await expect(app.testid("clarify-card")).toHaveCount(1);
  await expect(app.testid("clarify-status")).toHaveText("complete");
  await expect(app.testid("clarify-result")).toHaveText("GIF");
  await app.waitIdle();
  await app.page.waitForLoadState("networkidle");
  // the handler ran before the reload (when the thread was made by chatting), and not since
  await expect(app.testid("clarify-runs")).toHaveText("0");
  await expect(app.testid("clarify-runs-total")).toHaveText(String(made.clarifyRuns));
  expect(recorder.select(/\/run$/, "reload")).toHaveLength(0);

  await recorder.settle();
  app.notes.requestsOnReload = recorder.summary("reload");
  const connect = recorder.connect("reload");
  // both runs replayed: the call (run 1), then the run whose input carried the tool result
  expect(sseTypes(connect.responseBody)).toEqual([
    "RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
    "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "RUN_FINISHED",
    "RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
    "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED",
  ]);
  const events = sseEvents(connect.responseBody);
  expect(events[4]).toMatchObject({ toolCallName: "clarify" });
  expect(events[8]).toMatchObject({ input: { messages: [{ role: "tool", content: "GIF", toolCallId: events[4].toolCallId }] } });
});

test("a frontend tool call still awaiting its handler at reload is not run again", async ({ app, threads, recorder, newThread }) => {
  const thread = newThread();
  const made = await threads.frontendToolAwaiting(thread);

  recorder.mark("reload");
  await app.open(thread, { clarify: "manual" });
  await expect(app.assistantMessage("One question first.")).toBeVisible();
  await expect(app.testid("clarify-card")).toHaveCount(1);
  await app.waitIdle();
  await app.page.waitForLoadState("networkidle");
  // the call is back without a result, and nobody is asked to answer it again
  await expect(app.testid("clarify-status")).toHaveText("inProgress");
  await expect(app.testid("clarify-result")).toHaveCount(0);
  await expect(app.testid("clarify-answer")).toHaveCount(0);
  await expect(app.testid("clarify-runs")).toHaveText("0");
  await expect(app.testid("clarify-runs-total")).toHaveText(String(made.clarifyRuns));
  expect(recorder.select(/\/run$/, "reload")).toHaveLength(0);
  await recorder.settle();
  app.notes.requestsOnReload = recorder.summary("reload");
  const connect = recorder.connect("reload");
  expect(sseTypes(connect.responseBody)).toEqual([
    "RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
    "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "RUN_FINISHED",
  ]);

  // The user moves on: the next message is sent with the unanswered call in the history.
  recorder.mark("next");
  await app.say("hello ck after the tool");
  await expect(app.assistantMessage("Hello from the mock, hello ck after the tool.")).toBeVisible();
  await app.waitIdle();
  await recorder.settle();
  const [run] = recorder.select("/agent/default/run", "next");
  app.notes.nextRunMessages = (run.requestBody as { messages: unknown }).messages;
  expect(run.requestBody).toMatchObject({
    messages: [
      { role: "user", content: "render a clip" },
      { role: "assistant", content: "One question first.", toolCalls: [{ function: { name: "clarify" } }] },
      { role: "user", content: "hello ck after the tool" },
    ],
  });
  await expect(app.testid("clarify-runs")).toHaveText("0");
});
