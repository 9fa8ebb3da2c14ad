// What every spec shares: the topology options, the chat page, the mock's admin API, a
// recorder of the page's runtime traffic and console (written to observations/), and the
// ThreadMaker that gives a spec a thread in a known state — by chatting in the `runtime`
// topology (its runtime's in-memory runner holds threads only as it saw them run), by
// seeding the mock (POST /_mock/threads) where the mock holds the threads.

import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test as base, expect, type Locator, type Page, type Request, type TestInfo } from "@playwright/test";

export type Topology = "runtime" | "mock" | "kit";

export interface Options {
  /** Which server the page's runtimeUrl points at. */
  topology: Topology;
  /** The page's runtimeUrl: the CopilotKit runtime, or the mock's /copilotkit routes. */
  runtimeUrl: string;
  /** agui-mock's base URL, for its admin API. */
  mockUrl: string;
}

// ---------------------------------------------------------------------------------------
// The recorder: every request the page makes under runtimeUrl, its answer (bodies in
// full, SSE included) and how it ended, the page's console, in the order they happened,
// with marks ("reload", "stop", …) between the phases of a spec.

export interface Exchange {
  id: number;
  phase: string;
  method: string;
  /** The URL below runtimeUrl (e.g. /agent/default/connect), or the whole URL. */
  path: string;
  requestHeaders?: Record<string, string>;
  requestBody?: unknown;
  status?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  /** net::ERR_ABORTED and the like, when the request did not complete. */
  failure?: string;
  finished: boolean;
}

export type TimelineEntry =
  | { kind: "mark"; label: string }
  | { kind: "request" | "response" | "finished" | "failed"; id: number; method: string; path: string }
  | { kind: "console"; type: string; text: string }
  | { kind: "http-error"; status: number; method: string; url: string }
  | { kind: "pageerror"; text: string };

// Windows-1252's characters for the bytes 0x80–0x9f, where it differs from Latin-1.
const CP1252 = "\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178";

/**
 * A response body as the server sent it, decoded as UTF-8. Chromium hands some bodies of
 * text/event-stream answers without a charset (the runtime's connect replays) to the
 * DevTools protocol already decoded as Windows-1252, so "…" arrives as "â€¦"; such text
 * is turned back into its bytes and decoded again. The page itself reads them right.
 */
function decodeBody(body: Buffer): string {
  const text = body.toString("utf8");
  if (!/[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013-\u2122]/.test(text)) return text;
  const bytes: number[] = [];
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code < 0x80 || (code >= 0xa0 && code <= 0xff)) bytes.push(code);
    else if (CP1252.includes(ch)) bytes.push(0x80 + CP1252.indexOf(ch));
    else return text; // not Windows-1252 text: leave it
  }
  const repaired = Buffer.from(bytes).toString("utf8");
  return repaired.includes("\ufffd") ? text : repaired;
}

export class Recorder {
  readonly exchanges: Exchange[] = [];
  readonly timeline: TimelineEntry[] = [];
  private phase = "start";
  private readonly byRequest = new Map<Request, Exchange>();
  private readonly pending: Promise<unknown>[] = [];

  constructor(
    page: Page,
    private readonly runtimeUrl: string,
  ) {
    page.on("request", (r) => this.onRequest(r));
    page.on("response", (r) => {
      if (r.status() >= 400) this.timeline.push({ kind: "http-error", status: r.status(), method: r.request().method(), url: r.url() });
      const ex = this.byRequest.get(r.request());
      if (!ex) return;
      ex.status = r.status();
      ex.responseHeaders = r.headers();
      this.timeline.push({ kind: "response", id: ex.id, method: ex.method, path: ex.path });
      this.pending.push(
        // bytes decoded as UTF-8: the runtime's text/event-stream names no charset
        r.body().then(
          (body) => (ex.responseBody = decodeBody(body)),
          (err: Error) => (ex.responseBody = `<body unavailable: ${err.message.split("\n")[0]}>`),
        ),
      );
    });
    page.on("requestfinished", (r) => {
      const ex = this.byRequest.get(r);
      if (!ex) return;
      ex.finished = true;
      this.timeline.push({ kind: "finished", id: ex.id, method: ex.method, path: ex.path });
    });
    page.on("requestfailed", (r) => {
      const ex = this.byRequest.get(r);
      if (!ex) return;
      ex.failure = r.failure()?.errorText ?? "failed";
      this.timeline.push({ kind: "failed", id: ex.id, method: ex.method, path: ex.path });
    });
    page.on("console", (m) => this.timeline.push({ kind: "console", type: m.type(), text: m.text() }));
    page.on("pageerror", (e) => this.timeline.push({ kind: "pageerror", text: e.message }));
  }

  private onRequest(r: Request) {
    if (!r.url().startsWith(this.runtimeUrl)) return;
    let requestBody: unknown = r.postData() ?? undefined;
    if (typeof requestBody === "string") {
      try {
        requestBody = JSON.parse(requestBody);
      } catch {
        /* kept as text */
      }
    }
    const ex: Exchange = {
      id: this.exchanges.length + 1,
      phase: this.phase,
      method: r.method(),
      path: r.url().slice(this.runtimeUrl.length) || "/",
      requestHeaders: r.headers(),
      requestBody,
      finished: false,
    };
    this.exchanges.push(ex);
    this.byRequest.set(r, ex);
    this.timeline.push({ kind: "request", id: ex.id, method: ex.method, path: ex.path });
  }

  /** Starts a new phase: the exchanges after it are counted as its own. */
  mark(label: string) {
    this.phase = label;
    this.timeline.push({ kind: "mark", label });
  }

  /** The exchanges of a phase (all when none is named) whose path matches. */
  select(match: RegExp | string, phase?: string, method?: string): Exchange[] {
    return this.exchanges.filter(
      (e) =>
        (phase === undefined || e.phase === phase) &&
        (method === undefined || e.method === method) &&
        (typeof match === "string" ? e.path === match : match.test(e.path)),
    );
  }

  /**
   * The connect request of a page load that the chat went on with: the last one that
   * completed. A load sends one or two (CopilotChat connects again once /info has
   * answered); an earlier one is aborted by the page, or completes first when it is quick.
   */
  connect(phase: string, agent = "default"): Exchange {
    const done = this.select(`/agent/${agent}/connect`, phase).filter((c) => !c.failure);
    if (done.length === 0) throw new Error(`no completed connect in phase ${phase}: ${this.summary(phase).join("; ")}`);
    return done[done.length - 1];
  }

  /** The console messages so far (type: text). */
  console(): string[] {
    return this.timeline.flatMap((t) => (t.kind === "console" ? [`${t.type}: ${t.text}`] : t.kind === "pageerror" ? [`pageerror: ${t.text}`] : []));
  }

  /** Waits for the response bodies still being read. */
  async settle() {
    for (let n = 0; n < this.pending.length; n = this.pending.length) await Promise.allSettled(this.pending.slice(n));
  }

  /** A short account of the phase's requests: "GET /info 200", "POST /agent/default/connect ERR_ABORTED", … */
  summary(phase?: string): string[] {
    return this.exchanges
      .filter((e) => phase === undefined || e.phase === phase)
      .map((e) => `${e.method} ${e.path} ${e.failure ?? e.status ?? "(no answer)"}`);
  }
}

/** The events of an SSE body, in order: its data lines parsed. */
export function sseEvents(body: string | undefined): Array<Record<string, unknown>> {
  if (!body) return [];
  return body
    .split(/\r?\n/)
    .filter((l) => l.startsWith("data:"))
    .map((l) => JSON.parse(l.slice(5).trim()) as Record<string, unknown>);
}

/** The types of an SSE body's events. */
export function sseTypes(body: string | undefined): string[] {
  return sseEvents(body).map((e) => String(e.type));
}

// ---------------------------------------------------------------------------------------
// The chat page.

export interface OpenOptions {
  agent?: string;
  clarify?: "auto" | "manual";
}

export class ChatPage {
  /** What a spec notes down for the observation file besides the traffic. */
  readonly notes: Record<string, unknown> = {};

  constructor(
    readonly page: Page,
    readonly runtimeUrl: string,
    readonly testId: string,
  ) {}

  url(threadId: string, { agent = "default", clarify }: OpenOptions = {}): string {
    const params = new URLSearchParams({ runtime: this.runtimeUrl, agent, thread: threadId, testId: this.testId });
    if (clarify) params.set("clarify", clarify);
    return `/?${params}`;
  }

  /** Loads the page on a thread: a reload when it is already there, else a navigation. */
  async open(threadId: string, options: OpenOptions = {}) {
    const url = this.url(threadId, options);
    if (this.page.url().endsWith(url)) await this.page.reload();
    else await this.page.goto(url);
    await expect(this.page.getByTestId("status").or(this.page.getByTestId("chat-crash"))).toBeVisible();
  }

  async reload() {
    await this.page.reload();
    await expect(this.page.getByTestId("status").or(this.page.getByTestId("chat-crash"))).toBeVisible();
  }

  testid(id: string): Locator {
    return this.page.getByTestId(id);
  }

  /** Types a message and sends it once the agent is ready. */
  async say(text: string) {
    await expect(this.testid("agent-ready")).toHaveText("ready");
    await this.testid("copilot-chat-textarea").fill(text);
    await expect(this.testid("copilot-send-button")).toBeEnabled();
    await this.testid("copilot-send-button").click();
  }

  userMessage(text: string | RegExp): Locator {
    return this.testid("copilot-user-message").filter({ hasText: text });
  }

  assistantMessage(text: string | RegExp): Locator {
    return this.testid("copilot-assistant-message").filter({ hasText: text });
  }

  async waitIdle() {
    await expect(this.testid("run-state")).toHaveText("idle");
  }
}

// ---------------------------------------------------------------------------------------
// The mock's admin API, as the test's X-Test-Id.

export class MockAdmin {
  constructor(
    readonly url: string,
    readonly testId: string,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { "X-Test-Id": this.testId, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* text */
    }
    return { status: response.status, body: parsed };
  }

  async ok(method: string, path: string, body?: unknown): Promise<any> {
    const r = await this.call(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  reset() {
    return this.ok("POST", "/_mock/reset");
  }

  /** Pauses the test's next run of `scenario` before its step `step`; resolves with the breakpoint's id. */
  async breakpoint(scenario: string, step: string): Promise<string> {
    return (await this.ok("POST", "/_mock/breakpoints", { scenario, step })).id;
  }

  reached(id: string, wait = "10s") {
    return this.ok("GET", `/_mock/breakpoints/${id}?wait=${wait}`);
  }

  removeBreakpoint(id: string) {
    return this.call("DELETE", `/_mock/breakpoints/${id}`);
  }

  /** The test's journal entries, optionally of one thread or route: every page of them. */
  async journal(filter: { thread?: string; route?: string } = {}): Promise<any[]> {
    const q = new URLSearchParams(Object.entries(filter).filter(([, v]) => v) as [string, string][]);
    const entries: any[] = [];
    for (;;) {
      const page = await this.ok("GET", `/_mock/journal?${q}`);
      entries.push(...page.entries);
      if (page.next === undefined) return entries;
      q.set("after", String(page.next));
    }
  }
}

// ---------------------------------------------------------------------------------------
// Threads in a known state. One implementation per topology: in `runtime` the runtime's
// in-memory runner holds threads only as it saw them run, so they are made by chatting;
// in `mock` they are to be seeded through the mock's admin API (POST /_mock/threads).

/**
 * What the tab counted while a thread was made, before the spec reloads it: how often
 * the page's clarify handler ran, and how often onError fired. A thread seeded on the
 * mock was made without the page: both are 0.
 */
export interface Made {
  clarifyRuns: number;
  errors: number;
}

export interface ThreadMaker {
  /** A finished plain conversation: the user's `text` and the mock's answer to it. */
  finished(threadId: string, text: string): Promise<Made>;
  /** A run that ended with the ck-approval interrupt (int-publish), not answered. */
  pendingInterrupt(threadId: string): Promise<Made>;
  /** The clarify call, answered by the page's handler, and the follow-up run that used it. */
  frontendToolAnswered(threadId: string): Promise<Made>;
  /** The clarify call whose handler has not answered yet (the page opened with clarify=manual). */
  frontendToolAwaiting(threadId: string): Promise<Made>;
  /** A turn that failed with RUN_ERROR (the built-in run-error), then a plain turn. */
  errorThenAnswer(threadId: string): Promise<Made>;
}

/** Makes each state the way a user would: by chatting on the page. */
export class ChattedThreads implements ThreadMaker {
  constructor(readonly app: ChatPage) {}

  async finished(threadId: string, text: string) {
    await this.app.open(threadId);
    await this.app.say(text);
    await expect(this.app.assistantMessage(`Hello from the mock, ${text}.`)).toBeVisible();
    await this.app.waitIdle();
    return { clarifyRuns: 0, errors: 0 };
  }

  async pendingInterrupt(threadId: string) {
    await this.app.open(threadId);
    await this.app.say("publish the post");
    await expect(this.app.testid("interrupt-card")).toBeVisible();
    await this.app.waitIdle();
    return { clarifyRuns: 0, errors: 0 };
  }

  async frontendToolAnswered(threadId: string) {
    await this.app.open(threadId);
    await this.app.say("render a clip");
    await expect(this.app.assistantMessage("Rendering has started.")).toBeVisible();
    await expect(this.app.testid("clarify-runs")).toHaveText("1");
    await this.app.waitIdle();
    return { clarifyRuns: 1, errors: 0 };
  }

  async frontendToolAwaiting(threadId: string) {
    await this.app.open(threadId, { clarify: "manual" });
    await this.app.say("render a clip");
    await expect(this.app.testid("clarify-answer")).toBeVisible();
    await expect(this.app.testid("clarify-runs")).toHaveText("1");
    await this.app.waitIdle();
    return { clarifyRuns: 1, errors: 0 };
  }

  async errorThenAnswer(threadId: string) {
    await this.app.open(threadId);
    await this.app.say("fail please");
    await expect(this.app.testid("error-count")).toHaveText("1");
    await this.app.waitIdle();
    await this.app.say("hello ck after the error");
    await expect(this.app.assistantMessage("Hello from the mock, hello ck after the error.")).toBeVisible();
    await this.app.waitIdle();
    return { clarifyRuns: 0, errors: 1 };
  }
}

const CLARIFY_ARGS = JSON.stringify({ question: "Which format should the clip be?", choices: ["MP4", "GIF"] });

/**
 * Seeds each state on the mock (POST /_mock/threads, as the test's X-Test-Id) without
 * opening the page: the conversation an app restores on its first load. A thread that
 * waits names the scenario that answers its next run, which continues where it waits.
 */
export class MockSeededThreads implements ThreadMaker {
  constructor(readonly mock: MockAdmin) {}

  private async seed(thread: Record<string, unknown>): Promise<Made> {
    await this.mock.ok("POST", "/_mock/threads", thread);
    return { clarifyRuns: 0, errors: 0 };
  }

  finished(threadId: string, text: string) {
    return this.seed({ threadId, messages: [{ role: "user", content: text }, { role: "assistant", content: `Hello from the mock, ${text}.` }] });
  }

  pendingInterrupt(threadId: string) {
    return this.seed({
      threadId,
      scenario: "ck-approval",
      messages: [{ role: "user", content: "publish the post" }, { role: "assistant", content: "The draft is ready." }],
      interrupts: [{ id: "int-publish", reason: "confirmation", message: "Publish the post?", metadata: { draft: "post-7" } }],
    });
  }

  frontendToolAnswered(threadId: string) {
    return this.seed({
      threadId,
      runs: [
        { messages: [{ role: "user", content: "render a clip" }, { role: "assistant", content: "One question first.", toolCalls: [{ id: `call-${threadId}`, type: "function", function: { name: "clarify", arguments: CLARIFY_ARGS } }] }] },
        { messages: [{ role: "tool", toolCallId: `call-${threadId}`, content: "GIF" }, { role: "assistant", content: "A GIF it is." }, { role: "assistant", content: "Rendering has started." }] },
      ],
    });
  }

  frontendToolAwaiting(threadId: string) {
    return this.seed({
      threadId,
      scenario: "ck-clarify",
      messages: [{ role: "user", content: "render a clip" }, { role: "assistant", content: "One question first.", toolCalls: [{ id: `call-${threadId}`, type: "function", function: { name: "clarify", arguments: CLARIFY_ARGS } }] }],
    });
  }

  errorThenAnswer(threadId: string) {
    return this.seed({
      threadId,
      runs: [
        { messages: [{ role: "user", content: "fail please" }, { role: "assistant", content: "Let me look into that…" }], error: { message: "The model provider is overloaded. Try again in a minute.", code: "provider_overloaded" } },
        { messages: [{ role: "user", content: "hello ck after the error" }, { role: "assistant", content: "Hello from the mock, hello ck after the error." }] },
      ],
    });
  }
}

// ---------------------------------------------------------------------------------------
// The test: options, fixtures, and observations/<project>/<spec>--<title>.json.

interface Fixtures {
  testId: string;
  mock: MockAdmin;
  recorder: Recorder;
  app: ChatPage;
  threads: ThreadMaker;
  /** A new thread id, unique to this test. */
  newThread: (label?: string) => string;
}

function slug(s: string): string {
  return s.replace(/[^a-zA-Z0-9]+/g, "-").replace(/^-|-$/g, "").toLowerCase().slice(0, 80);
}

function observationFile(info: TestInfo): string {
  const spec = path.basename(info.file).replace(/\.spec\.ts$/, "");
  const repeat = info.repeatEachIndex > 0 ? `--${info.repeatEachIndex}` : "";
  return path.join("observations", info.project.name, `${spec}--${slug(info.title)}${repeat}.json`);
}

export const test = base.extend<Fixtures & Options>({
  topology: ["runtime", { option: true }],
  runtimeUrl: ["", { option: true }],
  mockUrl: ["", { option: true }],

  testId: async ({}, use, info) => {
    await use(`ck-${info.project.name}-${slug(info.title).slice(0, 40)}-${randomUUID().slice(0, 8)}`);
  },

  mock: async ({ mockUrl, testId }, use) => {
    const mock = new MockAdmin(mockUrl, testId);
    await mock.reset();
    await use(mock);
  },

  recorder: async ({ page, runtimeUrl }, use) => {
    await use(new Recorder(page, runtimeUrl));
  },

  app: async ({ page, runtimeUrl, testId, recorder, mock }, use, info) => {
    void mock; // the mock is reset before the page opens
    const app = new ChatPage(page, runtimeUrl, testId);
    await use(app);
    await recorder.settle();
    const file = observationFile(info);
    mkdirSync(path.dirname(file), { recursive: true });
    const observation = {
      test: info.title,
      project: info.project.name,
      status: info.status,
      runtimeUrl,
      testId,
      notes: app.notes,
      exchanges: recorder.exchanges,
      timeline: recorder.timeline,
    };
    writeFileSync(file, JSON.stringify(observation, null, 2));
    await info.attach("observation", { path: file, contentType: "application/json" });
  },

  threads: async ({ app, topology, mock }, use) => {
    await use(topology === "runtime" ? new ChattedThreads(app) : new MockSeededThreads(mock));
  },

  newThread: async ({ testId }, use) => {
    await use((label = "t") => `${label}-${testId}-${randomUUID().slice(0, 6)}`);
  },
});

export { expect };
