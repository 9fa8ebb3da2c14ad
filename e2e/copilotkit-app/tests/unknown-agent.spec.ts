// The page configured with an agent the runtime does not have (agent=nope).
import { expect, test } from "./support";

test("an unknown agent: the chat fails to render, onError is not called", async ({ app, recorder, newThread, request, runtimeUrl }) => {
  const thread = newThread();
  await app.open(thread, { agent: "nope" });
  // useAgent throws while rendering; the page's error boundary shows its message
  await expect(app.testid("chat-crash")).toBeVisible();
  await expect(app.testid("chat-crash-message")).toHaveText(
    `useAgent: Agent 'nope' not found after runtime sync (runtimeUrl=${runtimeUrl}). Known agents: [default] Verify your runtime /info and/or agents__unsafe_dev_only.`,
  );
  await app.page.waitForLoadState("networkidle");
  await expect(app.testid("error-banner")).toHaveCount(0);
  await expect(app.testid("threads-state")).toHaveText("0 thread(s)");
  await recorder.settle();
  app.notes.requests = recorder.summary();
  app.notes.console = recorder.console();
  expect(recorder.console()).toContain("warning: Agent nope not found");
  // no connect to the unknown agent completes (one may be started, then aborted)
  for (const c of recorder.select("/agent/nope/connect")) expect(c.failure).toBe("net::ERR_ABORTED");
  expect(recorder.select("/threads?agentId=nope")).toHaveLength(1);

  // what the runtime answers when asked about the agent directly
  const input = { threadId: thread, runId: "r-1", messages: [], tools: [], context: [], state: {}, forwardedProps: {} };
  for (const route of ["connect", "run"]) {
    const response = await request.post(`${runtimeUrl}/agent/nope/${route}`, { data: input });
    app.notes[`direct-${route}`] = { status: response.status(), body: await response.text() };
    expect(response.status()).toBe(404);
    expect(await response.json()).toEqual({ error: "Agent not found", message: "Agent 'nope' does not exist" });
  }
  const stop = await request.post(`${runtimeUrl}/agent/nope/stop/${thread}`, { data: {} });
  app.notes["direct-stop"] = { status: stop.status(), body: await stop.text() };
  expect(stop.status()).toBe(404);
});
