// The handshake shaped through the mock (POST /_mock/faults with `on`, POST
// /_mock/copilotkit/info), which only the mock topology has: behind a real runtime, /info
// is the runtime's own. Each reproduces a state CopilotKit apps break in: a slow runtime,
// an /info without the app's agent (CopilotKit #5533, #3205), a runtime that serves the
// single endpoint only.
import { expect, sseTypes, test } from "./support";

test("a slow /info: the chat waits for it, then restores and runs", async ({ app, mock, recorder, newThread, threads }) => {
  const thread = newThread();
  await threads.finished(thread, "hello ck before");
  // every /info of the page load is held for 2 s
  await mock.ok("POST", "/_mock/faults", { on: "info", kind: "slowStart", delay: "2s", times: 0 });
  recorder.mark("load");
  await app.page.goto(app.url(thread));
  await expect(app.testid("agent-ready")).toHaveText("not ready");
  await expect(app.testid("agent-ready")).toHaveText("ready");
  await expect(app.assistantMessage("Hello from the mock, hello ck before.")).toBeVisible();
  await app.say("hello ck after");
  await expect(app.assistantMessage("Hello from the mock, hello ck after.")).toBeVisible();
  await app.waitIdle();
  await expect(app.testid("error-count")).toHaveText("0");
  await recorder.settle();
  const order = recorder.timeline.flatMap((t) => ("id" in t ? [`${t.kind} ${t.method} ${t.path}`] : []));
  app.notes.order = order;
  // nothing of the thread is asked before the runtime said who it is
  expect(order.indexOf("response GET /info")).toBeLessThan(order.indexOf("request POST /agent/default/connect"));
});

test("an /info that does not list the app's agent: the chat fails to render", async ({ app, mock, newThread, runtimeUrl }) => {
  await mock.ok("POST", "/_mock/copilotkit/info", { agents: { researcher: { description: "Finds sources" } } });
  await app.open(newThread());
  await expect(app.testid("chat-crash-message")).toHaveText(
    `useAgent: Agent 'default' not found after runtime sync (runtimeUrl=${runtimeUrl}). Known agents: [researcher] Verify your runtime /info and/or agents__unsafe_dev_only.`,
  );
  await expect(app.testid("error-banner")).toHaveCount(0);
});

test("a 404 on GET /info: the client falls back to the single endpoint and goes on there", async ({ app, mock, recorder, newThread }) => {
  await mock.ok("POST", "/_mock/faults", { on: "info", kind: "status", status: 404, times: 0 });
  const thread = newThread();
  recorder.mark("load");
  await app.open(thread);
  await app.say("hello ck through the envelope");
  await expect(app.assistantMessage("Hello from the mock, hello ck through the envelope.")).toBeVisible();
  await app.waitIdle();
  await recorder.settle();
  app.notes.requests = recorder.summary();
  // every call after the 404s is a POST of an envelope to the runtime's base
  const envelopes = recorder.select("/", undefined, "POST").map((e) => (e.requestBody as { method: string }).method);
  expect(envelopes).toContain("info");
  expect(envelopes).toContain("agent/run");
  expect(recorder.select("/agent/default/run")).toHaveLength(0);
  const [run] = recorder.select("/", undefined, "POST").filter((e) => (e.requestBody as { method: string }).method === "agent/run");
  expect(sseTypes(run.responseBody).at(-1)).toBe("RUN_FINISHED");

  // a reload restores the thread through the envelope's connect
  recorder.mark("reload");
  await app.open(thread);
  await expect(app.assistantMessage("Hello from the mock, hello ck through the envelope.")).toBeVisible();
});
