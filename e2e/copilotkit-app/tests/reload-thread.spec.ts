// A finished conversation comes back when the page is reloaded: CopilotChat connects to
// the thread (POST …/agent/default/connect) and the runtime replays its runs.
import { expect, sseEvents, sseTypes, test } from "./support";

test("reload restores a finished conversation", async ({ app, threads, recorder, newThread }) => {
  const thread = newThread();
  await threads.finished(thread, "hello ck one");

  recorder.mark("reload");
  await app.open(thread);
  await expect(app.userMessage("hello ck one")).toBeVisible();
  await expect(app.assistantMessage("Hello from the mock, hello ck one.")).toBeVisible();
  await expect(app.testid("message-count")).toHaveText("2");
  await app.waitIdle();
  await app.page.waitForLoadState("networkidle");
  await recorder.settle();

  app.notes.requestsOnReload = recorder.summary("reload");
  // One or two connects; one that did not complete was aborted by the page itself.
  const connects = recorder.select("/agent/default/connect", "reload");
  expect(connects.length).toBeGreaterThanOrEqual(1);
  expect(connects.length).toBeLessThanOrEqual(2);
  for (const c of connects.filter((c) => c.failure)) expect(c.failure).toBe("net::ERR_ABORTED");
  const completed = [recorder.connect("reload")];
  expect(completed[0].requestBody).toMatchObject({ threadId: thread, messages: [], state: {}, forwardedProps: {}, context: [] });
  expect(completed[0].status).toBe(200);
  expect(completed[0].responseHeaders?.["content-type"]).toContain("text/event-stream");
  // the replay: the run compacted to one content event, the user's message in RUN_STARTED.input
  const events = sseEvents(completed[0].responseBody);
  expect(sseTypes(completed[0].responseBody)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"]);
  expect(events[0]).toMatchObject({ threadId: thread, input: { threadId: thread, messages: [{ role: "user", content: "hello ck one" }] } });
  expect(events[2]).toMatchObject({ delta: "Hello from the mock, hello ck one." });
  // nothing is run again
  expect(recorder.select(/\/run$/, "reload")).toHaveLength(0);
  expect(recorder.select("/info", "reload").length).toBeGreaterThanOrEqual(1);
});
