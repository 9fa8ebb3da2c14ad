// agui-mock as a Testcontainers module: the image started on a random host port, waited
// for until it serves, with its scenarios, seed and speed set the way e2e suites need, and
// a small client of its admin API (/_mock) scoped to a test id.

import path from "node:path";
import { AbstractStartedContainer, GenericContainer, type StartedTestContainer, Wait } from "testcontainers";

/** The port the image listens on. */
export const AGUI_MOCK_PORT = 8000;

/** The published image; pin a version tag in your tests. */
export const AGUI_MOCK_IMAGE = "ghcr.io/agui-mock/agui-mock:latest";

/** An agui-mock container to configure and start. */
export class AguiMockContainer extends GenericContainer {
  constructor(image: string = AGUI_MOCK_IMAGE) {
    super(image);
    // ready, not only alive: /_mock/readyz answers once a scenario is loaded
    this.withExposedPorts(AGUI_MOCK_PORT)
      .withWaitStrategy(Wait.forHttp("/_mock/readyz", AGUI_MOCK_PORT).forStatusCode(200))
      .withStartupTimeout(30_000);
  }

  /**
   * Serves the scenario files of a host directory, mounted read-only at /scenarios and
   * watched: a file saved there is played by the next run. Its files must be readable by
   * the container's user (uid 65532).
   */
  withScenarios(hostDir: string): this {
    return this.withBindMounts([{ source: path.resolve(hostDir), target: "/scenarios", mode: "ro" }]);
  }

  /** Fixes the seed of generated ids, fake data and jitter: the same on every run. */
  withSeed(seed: number): this {
    return this.withEnvironment({ AGUI_MOCK_SEED: String(seed) });
  }

  /** Multiplies every delay: 0 plays runs without delays, 1 as the scenarios time them. */
  withSpeed(speed: number): this {
    return this.withEnvironment({ AGUI_MOCK_SPEED: String(speed) });
  }

  override async start(): Promise<StartedAguiMockContainer> {
    return new StartedAguiMockContainer(await super.start());
  }
}

/** A started agui-mock container. */
export class StartedAguiMockContainer extends AbstractStartedContainer {
  constructor(started: StartedTestContainer) {
    super(started);
  }

  /** The base URL from the host, e.g. http://localhost:32768. */
  getBaseUrl(): string {
    return `http://${this.getHost()}:${this.getMappedPort(AGUI_MOCK_PORT)}`;
  }

  /** The AG-UI run endpoint, for HttpAgent's url. */
  getChatUrl(): string {
    return `${this.getBaseUrl()}/agui/chat`;
  }

  /** A client of the admin API, scoped to testId when given (send the same X-Test-Id on runs). */
  admin(testId?: string): AguiMockAdmin {
    return new AguiMockAdmin(this.getBaseUrl(), testId);
  }
}

/** A fault for the next runs of a test: a kind and its parameters (see docs/e2e-testing.md#faults). */
export interface Fault {
  /**
   * The kind, generated from the table of fault kinds in scenarios/fault.go:
   * - `status`: Answer an HTTP error instead of a stream.
   * - `slowStart`: Send nothing, not even headers, for the delay; then the run.
   * - `split`: Write every frame in tiny pieces, splitting characters, escapes and the data: prefix.
   * - `runError`: End the run with RUN_ERROR (message and code optional).
   * - `disconnect`: Drop the connection without ending the response: no terminal event, no final chunk.
   * - `stall`: Stop sending until the client gives up (or the run is cancelled); keepAlive: true keeps sending keep-alive comments meanwhile.
   * - `malformed`: Send a data: frame that is not JSON, then end the stream.
   * - `truncate`: End the stream cleanly but without a terminal event (no RUN_FINISHED, no RUN_ERROR).
   */
  kind: "status" | "slowStart" | "split" | "runError" | "disconnect" | "stall" | "malformed" | "truncate";
  /** How many runs it applies to: default 1, 0 for every run until clearFaults(). */
  times?: number;
  [parameter: string]: unknown;
}

/** A request the mock answered, as GET /_mock/journal lists it. */
export interface JournalEntry {
  seq: number;
  time: string;
  testId?: string;
  method: string;
  path: string;
  threadId?: string;
  runId?: string;
  scenario?: string;
  status: number;
  outcome?: "success" | "interrupt" | "error" | "cancelled" | "fault";
  events?: number;
  durationMs?: number;
  /** The body as the frontend sent it. */
  request?: unknown;
}

/** Filters of the journal. */
export interface JournalQuery {
  route?: string;
  thread?: string;
  scenario?: string;
}

/** The request header that keeps a test's threads, journal, forcing and faults its own. */
export const TEST_ID_HEADER = "X-Test-Id";

/** A client of agui-mock's admin API; every call carries its test id, if it has one. */
export class AguiMockAdmin {
  constructor(
    readonly baseUrl: string,
    readonly testId?: string,
  ) {}

  /** The same mock, scoped to another test id. */
  forTest(testId: string): AguiMockAdmin {
    return new AguiMockAdmin(this.baseUrl, testId);
  }

  /** The next `times` runs (default 1; 0: every run until unforce()) play the scenario. */
  async force(scenario: string, times?: number): Promise<void> {
    await this.call("POST", "/force", { scenario, ...(times !== undefined && { times }) });
  }

  /** Stops forcing a scenario. */
  async unforce(): Promise<void> {
    await this.call("DELETE", "/force");
  }

  /** Queues a fault for the test's next runs. */
  async fault(fault: Fault): Promise<void> {
    await this.call("POST", "/faults", fault);
  }

  /** Forgets the test's queued faults. */
  async clearFaults(): Promise<void> {
    await this.call("DELETE", "/faults");
  }

  /** The requests of the test (of every test without a test id) the mock answered. */
  async journal(query: JournalQuery = {}): Promise<JournalEntry[]> {
    const params = new URLSearchParams(Object.entries(query).filter((kv): kv is [string, string] => kv[1] !== undefined));
    const body = (await this.call("GET", `/journal?${params}`)) as { entries: JournalEntry[] };
    return body.entries;
  }

  /** Forgets the test's threads, journal, forced scenario, faults and breakpoints (everything's, without a test id). */
  async reset(): Promise<void> {
    await this.call("POST", "/reset");
  }

  private async call(method: string, route: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = {};
    if (this.testId !== undefined) headers[TEST_ID_HEADER] = this.testId;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(`${this.baseUrl}/_mock${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`agui-mock: ${method} /_mock${route} answered ${res.status}: ${text}`);
    return text === "" ? undefined : JSON.parse(text);
  }
}
