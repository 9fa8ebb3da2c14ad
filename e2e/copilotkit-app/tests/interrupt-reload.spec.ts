// A run that ended with a standard interrupt (RUN_FINISHED outcome interrupt) leaves the
// thread waiting: after a reload the interrupt card is back, and answering it resumes the
// thread. Typing a new message instead is refused by the client before anything is sent.
import { expect, sseEvents, sseTypes, test, type ChatPage, type Recorder } from "./support";

/** Reloads the page on the thread and checks that the interrupt came back with the replay. */
async function reloadWithCard(app: ChatPage, recorder: Recorder, thread: string) {
  recorder.mark("reload");
  await app.open(thread);
  await expect(app.testid("interrupt-card")).toBeVisible();
  await expect(app.testid("interrupt-message")).toHaveText("Publish the post?");
  await expect(app.testid("interrupt-card")).toHaveAttribute("data-interrupt-id", "int-publish");
  await expect(app.userMessage("publish the post")).toBeVisible();
  await expect(app.assistantMessage("The draft is ready.")).toBeVisible();
  await app.page.waitForLoadState("networkidle");
  await recorder.settle();
  app.notes.requestsOnReload = recorder.summary("reload");
  const connect = [recorder.connect("reload")];
  expect(sseTypes(connect[0].responseBody)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"]);
  expect(sseEvents(connect[0].responseBody).at(-1)).toMatchObject({
    type: "RUN_FINISHED",
    outcome: { type: "interrupt", interrupts: [{ id: "int-publish", reason: "confirmation", message: "Publish the post?", metadata: { draft: "post-7" } }] },
  });
  return connect[0];
}

test("a pending interrupt survives a reload, and Approve resumes it", async ({ app, threads, recorder, newThread }) => {
  const thread = newThread();
  await threads.pendingInterrupt(thread);
  const connect = await reloadWithCard(app, recorder, thread);

  recorder.mark("approve");
  await app.testid("interrupt-approve").click();
  await expect(app.assistantMessage("Published the post.")).toBeVisible();
  await expect(app.assistantMessage("Anything else?")).toBeVisible();
  await expect(app.testid("interrupt-card")).toHaveCount(0);
  await app.waitIdle();
  await recorder.settle();
  app.notes.requestsOnApprove = recorder.summary("approve");

  const [run] = recorder.select("/agent/default/run", "approve");
  expect(run.requestBody).toMatchObject({
    threadId: thread,
    resume: [{ interruptId: "int-publish", status: "resolved", payload: { approved: true } }],
    messages: [
      { role: "user", content: "publish the post" },
      { role: "assistant", content: "The draft is ready." },
    ],
  });
  // The resuming run reuses the runId of the page's connect request after the reload.
  app.notes.resumeRunIdIsConnectRunId = (run.requestBody as { runId: string }).runId === (connect.requestBody as { runId: string }).runId;
  expect((run.requestBody as { runId: string }).runId).toBe((connect.requestBody as { runId: string }).runId);
  expect(sseTypes(run.responseBody).at(-1)).toBe("RUN_FINISHED");
  expect(sseEvents(run.responseBody)[0]).toMatchObject({ type: "RUN_STARTED", input: { messages: [], resume: [{ interruptId: "int-publish", status: "resolved" }] } });
});

test("a pending interrupt survives a reload, and Reject cancels it", async ({ app, threads, recorder, newThread }) => {
  const thread = newThread();
  await threads.pendingInterrupt(thread);
  await reloadWithCard(app, recorder, thread);

  recorder.mark("reject");
  await app.testid("interrupt-reject").click();
  await expect(app.assistantMessage("Not published (cancelled).")).toBeVisible();
  await expect(app.assistantMessage("Anything else?")).toBeVisible();
  await expect(app.testid("interrupt-card")).toHaveCount(0);
  await app.waitIdle();
  await recorder.settle();
  const [run] = recorder.select("/agent/default/run", "reject");
  expect((run.requestBody as { resume: unknown }).resume).toEqual([{ interruptId: "int-publish", status: "cancelled" }]);
});

test("typing instead of answering a pending interrupt is refused in the client", async ({ app, threads, recorder, newThread }) => {
  const thread = newThread();
  await threads.pendingInterrupt(thread);
  await reloadWithCard(app, recorder, thread);

  recorder.mark("type");
  await app.say("hello ck typed");
  // what the user sees: the message stays in the chat, unanswered, the card still there,
  // and the provider's onError fired once
  await expect(app.testid("error-count")).toHaveText("1");
  await expect(app.testid("error-entry")).toHaveAttribute("data-code", "agent_run_failed");
  await expect(app.testid("error-message")).toHaveText("Thread has 1 pending interrupt(s) not addressed by resume: int-publish");
  await expect(app.userMessage("hello ck typed")).toBeVisible();
  await expect(app.testid("interrupt-card")).toBeVisible();
  await app.waitIdle();
  await app.page.waitForLoadState("networkidle");
  // nothing reached the runtime
  expect(recorder.select(/\/run$/, "type")).toHaveLength(0);
  app.notes.requestsOnType = recorder.summary("type");
  app.notes.consoleOnType = recorder.timeline.slice(recorder.timeline.findIndex((t) => t.kind === "mark" && t.label === "type")).filter((t) => t.kind === "console" || t.kind === "pageerror");

  // Answering afterwards still works; the typed message goes with the resume.
  recorder.mark("approve");
  await app.testid("interrupt-approve").click();
  await expect(app.assistantMessage("Published the post.")).toBeVisible();
  await app.waitIdle();
  await recorder.settle();
  const [run] = recorder.select("/agent/default/run", "approve");
  app.notes.resumeAfterTyping = run.requestBody;
  expect(run.requestBody).toMatchObject({
    resume: [{ interruptId: "int-publish", status: "resolved", payload: { approved: true } }],
    messages: [
      { role: "user", content: "publish the post" },
      { role: "assistant", content: "The draft is ready." },
      { role: "user", content: "hello ck typed" },
    ],
  });
});
