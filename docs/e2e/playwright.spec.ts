// Playwright tests of a chat frontend whose AG-UI agent is agui-mock.
//
// The app under test (Playwright's baseURL) sends its runs to AGUI_MOCK_URL + /agui/chat.
// Each test gets its own X-Test-Id: the mock keeps that test's threads, journal, forced
// scenarios, faults and breakpoints apart from every other test's, so the tests can run
// in parallel against one mock. Adapt the selectors (placeholder "Message", the Send
// button, the typing indicator, assistant messages, the error alert) to your UI.

import { expect, test, type APIRequestContext, type APIResponse, type Page } from '@playwright/test';

const MOCK = process.env.AGUI_MOCK_URL ?? 'http://localhost:8000';

/** One request the mock answered, as GET /_mock/journal lists it. */
interface JournalEntry {
  seq: number;
  method: string;
  path: string;
  threadId?: string;
  runId?: string;
  scenario?: string;
  status: number;
  error?: string; // a refused request's error code, e.g. 'unauthorized'
  reason?: string; // and why
  outcome?: string;
  events?: number;
  request?: { threadId: string; runId: string; messages: { role: string; content?: unknown }[]; tools: { name: string }[]; forwardedProps?: Record<string, unknown> };
}

/** The mock's admin API, scoped to one test. */
function mockFor(request: APIRequestContext, testId: string) {
  const headers = { 'X-Test-Id': testId };
  const ok = async (response: APIResponse) => {
    expect(response.ok(), `${response.url()}: ${await response.text()}`).toBeTruthy();
    return response;
  };
  return {
    reset: async () => ok(await request.post(`${MOCK}/_mock/reset`, { headers })),
    /** Plays this scenario for the next `times` runs (0: every run), whatever they say. */
    force: async (scenario: string, times = 1) => ok(await request.post(`${MOCK}/_mock/force`, { headers, data: { scenario, times } })),
    /** Makes the next run misbehave, e.g. {kind: 'status', status: 429, retryAfter: 3}. */
    fault: async (fault: Record<string, unknown>) => ok(await request.post(`${MOCK}/_mock/faults`, { headers, data: fault })),
    /** Pauses the next stream that reaches a step (by its id) or an event (by its index). */
    breakpoint: async (where: { scenario?: string; step?: string; event?: number }) => {
      const { id } = await (await ok(await request.post(`${MOCK}/_mock/breakpoints`, { headers, data: where }))).json();
      return {
        /** Resolves once a stream is paused here (the mock answers 408 after 10 s). */
        reached: async () => ok(await request.get(`${MOCK}/_mock/breakpoints/${id}?wait=10s`)),
        release: async () => ok(await request.post(`${MOCK}/_mock/breakpoints/${id}/release`)),
      };
    },
    /** What the frontend sent, e.g. journal({route: '/agui/chat'}). */
    journal: async (query: Record<string, string> = {}): Promise<JournalEntry[]> =>
      (await (await ok(await request.get(`${MOCK}/_mock/journal?${new URLSearchParams(query)}`, { headers }))).json()).entries,
  };
}

let mock: ReturnType<typeof mockFor>;

test.beforeEach(async ({ page, request }, testInfo) => {
  const testId = testInfo.testId;
  // Every request the page sends to the mock carries this test's id.
  await page.route(`${MOCK}/**`, (route) => route.continue({ headers: { ...route.request().headers(), 'x-test-id': testId } }));
  mock = mockFor(request, testId);
  await mock.reset();
  await page.goto('/');
});

async function say(page: Page, message: string) {
  await page.getByPlaceholder('Message').fill(message);
  await page.getByRole('button', { name: 'Send' }).click();
}

test('shows a loading state until the answer streams in', async ({ page }) => {
  // Hold the showcase scenario just before its answer (the step with id "answer").
  const answer = await mock.breakpoint({ scenario: 'showcase', step: 'answer' });
  await say(page, 'showcase');
  await answer.reached();

  await expect(page.getByTestId('typing-indicator')).toBeVisible();
  await expect(page.getByTestId('assistant-message')).toHaveCount(0);

  await answer.release();
  await expect(page.getByTestId('typing-indicator')).toBeHidden();
  await expect(page.getByTestId('assistant-message').last()).toContainText('Here is what I found');
});

test('shows the error of a failed run', async ({ page }) => {
  await mock.force('run-error'); // whatever the user says, the next run fails with RUN_ERROR
  await say(page, 'Hello');
  await expect(page.getByRole('alert')).toContainText('overloaded');
});

test('tells the user to wait when rate-limited', async ({ page }) => {
  await mock.fault({ kind: 'status', status: 429, retryAfter: 3 });
  await say(page, 'Hello');
  await expect(page.getByRole('alert')).toBeVisible();
  // the fault applied once: the next message gets an answer
  await say(page, 'explicit please');
  await expect(page.getByTestId('assistant-message').last()).toHaveText('Every event exactly as written.');
});

test('survives a dropped connection', async ({ page }) => {
  await mock.fault({ kind: 'disconnect', after: 3 });
  await say(page, 'Hello');
  await expect(page.getByRole('alert')).toBeVisible();
});

test('sends the whole conversation on the same thread', async ({ page }) => {
  await say(page, 'explicit please');
  await expect(page.getByTestId('assistant-message')).toHaveCount(1);
  await say(page, 'explicit again');
  await expect(page.getByTestId('assistant-message')).toHaveCount(2);

  const runs = await mock.journal({ route: '/agui/chat' });
  expect(runs.map((r) => [r.status, r.scenario, r.outcome])).toEqual([
    [200, 'explicit-events', 'success'],
    [200, 'explicit-events', 'success'],
  ]);
  const [first, second] = runs.map((r) => r.request!);
  expect(second.threadId).toBe(first.threadId);
  expect(second.messages.map((m) => [m.role, m.content])).toEqual([
    ['user', 'explicit please'],
    ['assistant', 'Every event exactly as written.'],
    ['user', 'explicit again'],
  ]);
});
