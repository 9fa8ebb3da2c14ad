// The thread panel (useThreads, GET …/threads?agentId=default) lists the agent's threads.
import { expect, test } from "./support";

test("after conversations on two threads, the thread panel lists both", async ({ app, threads, recorder, newThread }) => {
  const first = newThread("first");
  const second = newThread("second");
  await threads.finished(first, "hello ck first");
  // The panel is fetched when the page loads; a run does not refresh it.
  await expect(app.testid("thread-item").and(app.page.locator(`[data-thread-id="${first}"]`))).toHaveCount(0);
  await threads.finished(second, "hello ck second");

  recorder.mark("load");
  await app.open(first);
  const item = (id: string) => app.page.locator(`[data-testid="thread-item"][data-thread-id="${id}"]`);
  await expect(item(first)).toBeVisible();
  await expect(item(second)).toBeVisible();
  await expect(item(first)).toHaveAttribute("aria-current", "true");
  await recorder.settle();
  const [list] = recorder.select(/^\/threads\?/, "load");
  expect(list.path).toBe("/threads?agentId=default");
  const body = JSON.parse(list.responseBody ?? "{}");
  app.notes.threadsBody = body;
  expect(body.nextCursor).toBeNull();
  const ids = body.threads.map((t: { id: string }) => t.id);
  // most recently updated first
  expect(ids.indexOf(second)).toBeLessThan(ids.indexOf(first));
  expect(body.threads.find((t: { id: string }) => t.id === first)).toMatchObject({ id: first, name: null, agentId: "default", archived: false });

  // a thread's link opens it with its conversation
  recorder.mark("switch");
  await item(second).getByRole("link").click();
  await expect(app.testid("thread-id")).toHaveText(second);
  await expect(app.assistantMessage("Hello from the mock, hello ck second.")).toBeVisible();
});
