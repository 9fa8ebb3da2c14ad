// A typed client of agui-mock's admin API (/_mock), scoped to one test id: what a test
// sets up (forced scenarios, faults, breakpoints, speed, runtime scenarios, seeded
// threads, the CopilotKit runtime's /info) and reads back (the journal). Its fault and
// journal types come from the Go source (types.generated.ts).

import type { FaultKind, FaultParameters, JournalEntry } from "./types.generated.js";

export type { ErrorCode, FaultKind, FaultParameters, JournalEntry, Outcome } from "./types.generated.js";

/** The request header that keeps a test's threads, journal, forcing, faults and breakpoints its own. */
export const TEST_ID_HEADER = "X-Test-Id";

/**
 * A fault for the next runs of a test: a kind and the parameters it takes, and `times`,
 * how many runs it applies to (default 1; 0: every run until clearFaults()).
 */
export type Fault = { [K in FaultKind]: { kind: K; times?: number; on?: "run" } & FaultParameters[K] }[FaultKind];

/** The routes of the CopilotKit runtime's handshake a fault may shape instead of runs. */
export type HandshakeRoute = "info" | "connect" | "stop";

/**
 * A fault for a test's next requests of a route of the CopilotKit runtime's handshake
 * (`on`): it fails (status), waits (slowStart) or drops the connection (disconnect), once
 * `after` requests of the route have passed (default 0), for `times` requests (default 1;
 * 0: every one).
 */
export type HandshakeFault = { on: HandshakeRoute; after?: number; times?: number } & (
  | ({ kind: "status" } & FaultParameters["status"])
  | ({ kind: "slowStart" } & FaultParameters["slowStart"])
  | { kind: "disconnect" }
);

/** An AG-UI message of a seeded thread: user, system, developer, assistant (with its toolCalls) or tool. */
export interface SeededMessage {
  id?: string;
  role: "user" | "system" | "developer" | "assistant" | "tool";
  content?: string | unknown[];
  name?: string;
  toolCallId?: string;
  toolCalls?: { id: string; type?: "function"; function: { name: string; arguments: string } }[];
}

/** An interrupt a seeded thread waits for, as AG-UI 1.x sends it. */
export interface SeededInterrupt {
  id: string;
  reason: string;
  message?: string;
  toolCallId?: string;
  responseSchema?: unknown;
  expiresAt?: string;
  metadata?: Record<string, unknown>;
}

/** How a seeded run ended, besides plainly: with an error, or (the last run only) waiting for interrupts. */
export interface SeededEnding {
  state?: unknown;
  error?: { message: string; code?: string };
  interrupts?: SeededInterrupt[];
}

/** One run of a seeded thread. */
export interface SeededRun extends SeededEnding {
  runId?: string;
  messages: SeededMessage[];
}

/**
 * A conversation a test starts from, as if its runs had been played: a CopilotKit app
 * restores it through the runtime's connect route. Give the whole conversation as
 * `messages` (cut into runs at each user message; the ending applies to the last run)
 * or its `runs` one by one.
 */
export type SeededThread = {
  threadId: string;
  /** The runtime agent the thread belongs to; default "default". */
  agent?: string;
  /** How its interrupts were raised: agui (the 1.0 outcome, the default) or langgraph (on_interrupt events). */
  dialect?: "agui" | "langgraph";
  /** The scenario that answers the thread's next run: it continues where the thread waits, or starts afresh. */
  scenario?: string;
} & ((SeededEnding & { messages: SeededMessage[]; runs?: never }) | { runs: SeededRun[]; messages?: never });

/** What the mock says of a thread it seeded. */
export interface SeededThreadState {
  threadId: string;
  agent: string;
  runs: number;
  /** What the thread's next run must answer. */
  awaiting: { interrupts: string[]; toolCalls: string[] };
  scenario?: string;
}

/** An agent the CopilotKit runtime's /info lists. */
export interface RuntimeAgent {
  description?: string;
  capabilities?: Record<string, unknown>;
}

/**
 * How a test shapes the CopilotKit runtime's GET /info: the agents it lists (and which
 * the run, connect and stop routes take), and members of the answer to replace.
 */
export interface RuntimeInfoShape {
  agents?: Record<string, RuntimeAgent> | string[];
  version?: string;
  mode?: string;
  threadEndpoints?: unknown;
  suggestions?: boolean;
  audioFileTranscriptionEnabled?: boolean;
  a2uiEnabled?: boolean;
  a2ui?: unknown;
  openGenerativeUIEnabled?: boolean;
  telemetryDisabled?: boolean;
  singleRoute?: unknown;
  licenseStatus?: string;
  intelligence?: unknown;
}

/** Filters of the journal. */
export interface JournalQuery {
  /** a request path, e.g. /agui/chat */
  route?: string;
  thread?: string;
  scenario?: string;
  /** only the entries after this one (its seq): those the mock answered since */
  after?: number;
}

/** Where a breakpoint pauses the next stream that reaches it: a step (by its id) or an event (by its index). */
export type BreakpointAt = { scenario?: string } & ({ step: string; event?: never } | { event: number; step?: never });

/** A breakpoint's state, as the server answers it. */
export interface BreakpointState {
  id: string;
  testId?: string;
  scenario?: string;
  step?: string;
  event?: number;
  reached: boolean;
  released: boolean;
  threadId?: string;
  runId?: string;
}

/** An error answer of the admin API: the status, and the body's code and message. */
export class AguiMockError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
    this.name = "AguiMockError";
  }
}

/** How a client reaches the mock. */
export interface ClientOptions {
  /** The test id sent as X-Test-Id with every call; without one, calls act on the requests that carry none (reset: on everything). */
  testId?: string;
  /** The admin token (--admin-token or --auth-token), sent as a Bearer token. */
  token?: string;
  /** The fetch to use; the global one by default. */
  fetch?: typeof fetch;
}

/** A client of agui-mock's admin API; every call carries its test id, if it has one. */
export class AguiMockClient {
  /** The base URL of the mock, e.g. http://127.0.0.1:8000, without a trailing slash. */
  readonly baseUrl: string;
  readonly testId?: string;
  readonly #options: ClientOptions;

  constructor(baseUrl: string, options: ClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.testId = options.testId;
    this.#options = options;
  }

  /** The same mock, scoped to another test id. */
  forTest(testId: string): AguiMockClient {
    return new AguiMockClient(this.baseUrl, { ...this.#options, testId });
  }

  /** The AG-UI run endpoint, for HttpAgent's url. */
  get chatUrl(): string {
    return `${this.baseUrl}/agui/chat`;
  }

  /** The next `times` runs (default 1; 0: every run until unforce()) play the scenario, whatever they say. */
  async force(scenario: string, times?: number): Promise<void> {
    await this.call("POST", "/force", { scenario, ...(times !== undefined && { times }) });
  }

  /** Stops forcing a scenario. */
  async unforce(): Promise<void> {
    await this.call("DELETE", "/force");
  }

  /**
   * Queues a fault for the test's next runs, e.g. {kind: "status", status: 429, retryAfter: 3};
   * or, with `on`, for its next requests of a route of the CopilotKit runtime's handshake,
   * e.g. {on: "info", kind: "status", status: 404}.
   */
  async fault(fault: Fault | HandshakeFault): Promise<void> {
    await this.call("POST", "/faults", fault);
  }

  /** Forgets the test's queued faults, of runs and of the handshake. */
  async clearFaults(): Promise<void> {
    await this.call("DELETE", "/faults");
  }

  /** Sets the test's speed factor: 0 plays its runs without delays, 1 as the scenarios time them. */
  async speed(factor: number): Promise<void> {
    await this.call("POST", "/speed", { speed: factor });
  }

  /** Goes back to the server's speed for the test's runs. */
  async resetSpeed(): Promise<void> {
    await this.call("DELETE", "/speed");
  }

  /** Pauses the next stream of the test that reaches a step or an event. */
  async breakpoint(at: BreakpointAt): Promise<Breakpoint> {
    const state = (await this.call("POST", "/breakpoints", at)) as BreakpointState;
    return new Breakpoint(this, state.id);
  }

  /**
   * The requests of the test (of every test, without a test id) the mock answered, oldest
   * first: every one the journal keeps, however many pages of GET /_mock/journal they take.
   */
  async journal(query: JournalQuery = {}): Promise<JournalEntry[]> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
    const entries: JournalEntry[] = [];
    for (;;) {
      const page = (await this.call("GET", `/journal?${params}`)) as { entries: JournalEntry[]; next?: number };
      entries.push(...page.entries);
      if (page.next === undefined) return entries;
      params.set("after", String(page.next));
    }
  }

  /**
   * Adds scenarios (YAML or JSON, as a file holds them), checked as files are; a scenario
   * with the id of an earlier added one replaces it. Returns the ids added. Added
   * scenarios are the server's, not the test's: every test sees them.
   */
  async addScenarios(yaml: string): Promise<string[]> {
    const body = (await this.call("POST", "/scenarios", yaml, "application/yaml")) as { added: string[] };
    return body.added;
  }

  /** Removes a scenario added through addScenarios. */
  async removeScenario(id: string): Promise<void> {
    await this.call("DELETE", `/scenarios/${encodeURIComponent(id)}`);
  }

  /**
   * Seeds a thread of the test, in place of what it was: a conversation the app restores
   * through the CopilotKit runtime's connect route, as if its runs had been played.
   * A thread that breaks the protocol's rules is refused with an AguiMockError naming the member.
   */
  async seedThread(thread: SeededThread): Promise<SeededThreadState> {
    return (await this.call("POST", "/threads", thread)) as SeededThreadState;
  }

  /** Forgets the test's threads, seeded or played. */
  async clearThreads(): Promise<void> {
    await this.call("DELETE", "/threads");
  }

  /** Shapes what the CopilotKit runtime's GET /info reports to the test, until resetRuntimeInfo() or a reset. */
  async runtimeInfo(shape: RuntimeInfoShape): Promise<Record<string, unknown>> {
    return (await this.call("POST", "/copilotkit/info", shape)) as Record<string, unknown>;
  }

  /** Goes back to the /info the mock's scenarios make. */
  async resetRuntimeInfo(): Promise<void> {
    await this.call("DELETE", "/copilotkit/info");
  }

  /** Forgets the test's threads, journal, forced scenario, faults, breakpoints and speed (everything's, without a test id). */
  async reset(): Promise<void> {
    await this.call("POST", "/reset");
  }

  /** Calls the admin API: the answer's JSON, or an AguiMockError. */
  async call(method: string, route: string, body?: unknown, contentType = "application/json"): Promise<unknown> {
    const headers: Record<string, string> = {};
    if (this.testId !== undefined) headers[TEST_ID_HEADER] = this.testId;
    if (this.#options.token !== undefined) headers.Authorization = `Bearer ${this.#options.token}`;
    if (body !== undefined) headers["Content-Type"] = contentType;
    const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const res = await (this.#options.fetch ?? fetch)(`${this.baseUrl}/_mock${route}`, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = text;
    }
    if (!res.ok) {
      const error = parsed as { error?: string; message?: string } | undefined;
      throw new AguiMockError(res.status, error?.error, `agui-mock: ${method} /_mock${route} answered ${res.status}: ${error?.message ?? text}`, parsed);
    }
    return parsed;
  }
}

/** A breakpoint: wait for a stream to reach it, then release it. */
export class Breakpoint {
  constructor(
    readonly client: AguiMockClient,
    readonly id: string,
  ) {}

  /** Resolves once a stream is paused here; rejects with code not_reached after `timeout` (a duration such as "10s", at most 5m). */
  async reached(timeout = "10s"): Promise<BreakpointState> {
    return (await this.client.call("GET", `/breakpoints/${this.id}?wait=${encodeURIComponent(timeout)}`)) as BreakpointState;
  }

  /** Lets the paused stream go on. */
  async release(): Promise<BreakpointState> {
    return (await this.client.call("POST", `/breakpoints/${this.id}/release`)) as BreakpointState;
  }

  /** The breakpoint's state now. */
  async state(): Promise<BreakpointState> {
    return (await this.client.call("GET", `/breakpoints/${this.id}`)) as BreakpointState;
  }

  /** Removes the breakpoint, releasing a stream paused here. */
  async remove(): Promise<void> {
    await this.client.call("DELETE", `/breakpoints/${this.id}`);
  }
}
