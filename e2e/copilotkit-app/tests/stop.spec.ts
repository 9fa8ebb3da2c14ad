// The Stop button: CopilotChat's send button turns into Stop while a run streams. The test
// holds a long answer open with a breakpoint (at --speed 0 nothing would wait), clicks
// Stop, and follows what happens by the order of events, never by a clock.
import { expect, sseEvents, sseTypes, test } from "./support";

test("Stop calls the runtime's stop route and the chat returns to idle", async ({ app, mock, recorder, newThread, runtimeUrl }) => {
  const thread = newThread();
  const bp = await mock.breakpoint("ck-slow", "rest");
  try {
    await app.open(thread);
    recorder.mark("run");
    await app.say("tell me a long story");
    const paused = await mock.reached(bp);
    expect(paused.threadId).toBe(thread);
    await expect(app.assistantMessage("Once upon a time, the first part of a long story.")).toBeVisible();
    await expect(app.testid("run-state")).toHaveText("running");

    recorder.mark("stop");
    const stopRequest = app.page.waitForRequest((r) => r.method() === "POST" && r.url() === `${runtimeUrl}/agent/default/stop/${thread}`);
    await app.testid("copilot-send-button").click();
    const request = await stopRequest;
    const response = await request.response();
    expect(request.postDataJSON()).toEqual({ runId: paused.runId });
    expect(response?.status()).toBe(200);
    const stopBody = await response?.json();
    app.notes.stop = { request: request.postDataJSON(), status: response?.status(), body: stopBody };
    expect(stopBody).toEqual({ stopped: true, interrupt: { type: "RUN_ERROR", message: "Run stopped by user", code: "STOPPED" } });
    await app.waitIdle();
    await expect(app.testid("error-banner")).toHaveCount(0);

    // the run's stream ends with the client's abort, after the stop was asked for
    await recorder.settle();
    const [run] = recorder.select("/agent/default/run", "run");
    expect(run.finished).toBe(true);
    const types = sseTypes(run.responseBody);
    app.notes.runStream = types;
    expect(types.slice(0, 2)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START"]);
    expect(types.slice(-2)).toEqual(["TEXT_MESSAGE_END", "RUN_ERROR"]);
    expect(sseEvents(run.responseBody).at(-1)).toMatchObject({ type: "RUN_ERROR", code: "abort", message: "This operation was aborted" });
    const order = recorder.timeline.flatMap((t) => ("id" in t ? [`${t.kind} ${t.method} ${t.path}`] : []));
    app.notes.order = order;
    const stopPath = `/agent/default/stop/${thread}`;
    expect(order.indexOf(`request POST ${stopPath}`)).toBeGreaterThan(order.indexOf("response POST /agent/default/run"));
    expect(order.indexOf("finished POST /agent/default/run")).toBeGreaterThan(order.indexOf(`request POST ${stopPath}`));

    // how the mock saw the run end
    await expect.poll(async () => (await mock.journal({ thread })).filter((e) => e.runId === paused.runId).map((e) => e.outcome)).toEqual(["cancelled"]);
    const [entry] = (await mock.journal({ thread })).filter((e) => e.runId === paused.runId);
    app.notes.journal = { path: entry.path, status: entry.status, outcome: entry.outcome, events: entry.events, scenario: entry.scenario, selection: entry.selection };
  } finally {
    await mock.removeBreakpoint(bp);
  }

  // the rest of the story never comes; a reload restores the stopped turn as it was
  recorder.mark("reload");
  await app.open(thread);
  await expect(app.assistantMessage("Once upon a time, the first part of a long story.")).toBeVisible();
  await app.waitIdle();
  await app.page.waitForLoadState("networkidle");
  await expect(app.assistantMessage(/the rest of the story/)).toHaveCount(0);
  await expect(app.testid("error-count")).toHaveText("0");
  await recorder.settle();
  const connect = recorder.connect("reload");
  expect(sseTypes(connect.responseBody)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_ERROR"]);
  expect(sseEvents(connect.responseBody).at(-1)).toMatchObject({ type: "RUN_ERROR", code: "abort" });
});
