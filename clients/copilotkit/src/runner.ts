// AguiMockRunner: the AgentRunner of a team's own CopilotKit runtime when its agents are
// to be played by agui-mock. The runtime goes on doing what it does — its middleware and
// hooks, its agents and their middleware, the headers it forwards — and the runner puts
// the mock where the agent's transport and the runner's thread store were: a run goes to
// the mock's run route, a restore to its connect route, a stop to its stop route, so the
// mock's threads (seeded ones among them) are the threads the app sees.

import {
  AgentRunner,
  createRunEventFinalizer,
  type AgentRunnerConnectRequest,
  type AgentRunnerIsRunningRequest,
  type AgentRunnerRunRequest,
  type AgentRunnerStopRequest,
  type LocalThreadEndpointRecord,
  type LocalThreadEndpointRunner,
} from "@copilotkit/runtime/v2";
import { Observable, ReplaySubject } from "rxjs";
import {
  AguiMockError,
  describeError,
  mockHeaders,
  postToMock,
  readEvents,
  resolveMock,
  setHeader,
  type AguiMockOptions,
  type BaseEvent,
  type Mock,
} from "./mock.js";

type RunAgentInput = AgentRunnerRunRequest["input"];
type Message = ReturnType<LocalThreadEndpointRunner["getThreadMessages"]>[number];

/** The agent a request names when it names none, as the runtime's. */
const DEFAULT_AGENT = "default";

/** How many threads the runner remembers (for stop) before it forgets the oldest idle ones. */
const MAX_THREADS = 10_000;

/** What the runner knows of a thread: whom to ask the mock as, and the run it relays. */
interface ThreadRecord {
  agentId: string;
  /** The headers of the thread's last run or connect: its X-Test-Id, among others. */
  headers: Record<string, string>;
  run?: { runId: string; stopped: boolean };
}

/** The message of the thread routes' methods, which the mock serves through the hooks. */
const THREAD_ROUTES_MESSAGE =
  "AguiMockRunner does not serve the thread routes by itself: agui-mock serves them, through aguiMockHooks() " +
  "(createCopilotEndpoint's hooks) or aguiMockMiddleware() (the runtime's beforeRequestMiddleware; withAguiMock sets it)";

/**
 * An AgentRunner for `new CopilotRuntime({runner})` that plays the runtime's agents on
 * agui-mock instead of running them:
 *
 * - `run` runs the agent as the runtime's in-memory runner does (its middleware, A2UI's
 *   and the team's own, apply), but the agent's transport is the mock's run route,
 *   `POST {url}{path}/agent/<agentId>/run`, with the headers the runtime gives the agent
 *   (the browser's `X-Test-Id` among them). The run goes on if the browser goes away,
 *   as with the in-memory runner, so that a reload finds it on the mock.
 * - `connect` replays the thread from the mock's connect route: its past runs, seeded or
 *   played, then the run in progress.
 * - `stop` asks the mock's stop route, as the thread's last run or connect did (the
 *   runtime gives stop no headers); the run's stream ends as the runtime ends a stopped run.
 * - the thread routes (`GET /threads`, `/threads/:id/messages|events|state`,
 *   `POST /threads/clear`) are answered by the mock through aguiMockHooks() or
 *   aguiMockMiddleware(); the runner's own thread methods, which the runtime calls
 *   synchronously, cannot ask the mock and throw.
 *
 * A mock that cannot be reached or answers with an error ends the run with a RUN_ERROR
 * whose message names the mock's URL.
 */
export class AguiMockRunner extends AgentRunner implements LocalThreadEndpointRunner {
  /** Tells the runtime that /info may offer the thread routes, which the mock answers. */
  override readonly ɵsupportsLocalThreadEndpoints = true as const;
  private readonly mock: Mock;
  private readonly threads = new Map<string, ThreadRecord>();

  constructor(options: AguiMockOptions = {}) {
    super();
    this.mock = resolveMock(options);
  }

  run({ threadId, agent, input }: AgentRunnerRunRequest): Observable<BaseEvent> {
    const agentId = agent.agentId ?? DEFAULT_AGENT;
    const url = `${this.mock.base}/agent/${encodeURIComponent(agentId)}/run`;
    const headers = mockHeaders(this.mock, (agent as { headers?: Record<string, string> }).headers);
    const run = { runId: input.runId, stopped: false };
    const thread = this.remember(threadId, agentId, headers);
    thread.run = run;

    // The agent's own transport is replaced, on the runtime's per-request clone of it,
    // by the mock's run route; everything else of runAgent (middleware, chunk
    // transformation, event checks) runs as under the in-memory runner.
    (agent as { run: (input: RunAgentInput) => Observable<BaseEvent> }).run = (runInput) =>
      this.stream(url, runInput, headers);

    const subject = new ReplaySubject<BaseEvent>(Infinity);
    const finalizer = createRunEventFinalizer();
    const emit = (event: BaseEvent) => {
      finalizer.observe(event);
      subject.next(event);
    };
    void (async () => {
      try {
        await agent.runAgent(input, { onEvent: ({ event }) => emit(event) });
        // a stream that ended without RUN_FINISHED or RUN_ERROR is closed as the runtime closes it
        for (const event of finalizer.finalize({ stopRequested: run.stopped })) subject.next(event);
      } catch (err) {
        const closers = finalizer.finalize({ stopRequested: run.stopped, interruptionMessage: describeError(err) });
        for (const event of closers) {
          const code = err instanceof AguiMockError && (event.type as string) === "RUN_ERROR" ? err.code : undefined;
          subject.next(code ? ({ ...event, code } as BaseEvent) : event);
        }
      } finally {
        if (thread.run === run) thread.run = undefined;
        subject.complete();
      }
    })();
    return subject.asObservable();
  }

  connect({ threadId, agentId = DEFAULT_AGENT, headers: given }: AgentRunnerConnectRequest): Observable<BaseEvent> {
    const url = `${this.mock.base}/agent/${encodeURIComponent(agentId)}/connect`;
    const headers = mockHeaders(this.mock, given);
    this.remember(threadId, agentId, headers);
    const input: RunAgentInput = {
      threadId,
      runId: globalThis.crypto.randomUUID(),
      messages: [],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    };
    return new Observable<BaseEvent>((subscriber) => {
      const subscription = this.stream(url, input, headers).subscribe({
        next: (event) => subscriber.next(event),
        complete: () => subscriber.complete(),
        error: (err: unknown) => {
          // the runtime has answered 200 already: the app learns of it from a RUN_ERROR
          const message = describeError(err);
          console.error(`[agui-mock] connect of thread ${threadId}: ${message}`);
          const code = err instanceof AguiMockError ? err.code : "AGUI_MOCK_ERROR";
          subscriber.next({ type: "RUN_ERROR", message, code } as unknown as BaseEvent);
          subscriber.complete();
        },
      });
      return () => subscription.unsubscribe();
    });
  }

  isRunning({ threadId }: AgentRunnerIsRunningRequest): Promise<boolean> {
    const run = this.threads.get(threadId)?.run;
    return Promise.resolve(run !== undefined && !run.stopped);
  }

  /**
   * Asks the mock to stop the thread's run (runId: only that run), as the thread's last
   * run or connect through this runner asked it (its agent, its X-Test-Id); false for a
   * thread this runner has not seen. Throws when the mock cannot be asked, which the
   * runtime answers with a 500 that carries the message.
   */
  async stop({ threadId, runId }: AgentRunnerStopRequest): Promise<boolean> {
    const thread = this.threads.get(threadId);
    if (!thread) return false;
    const url = `${this.mock.base}/agent/${encodeURIComponent(thread.agentId)}/stop/${encodeURIComponent(threadId)}`;
    const headers = { ...thread.headers };
    setHeader(headers, "Content-Type", "application/json");
    const res = await postToMock(this.mock, url, runId === undefined ? {} : { runId }, headers);
    const answer = (await res.json().catch(() => null)) as { stopped?: unknown } | null;
    const stopped = answer?.stopped === true;
    if (stopped && thread.run && (runId === undefined || thread.run.runId === runId)) thread.run.stopped = true;
    return stopped;
  }

  listThreads(): LocalThreadEndpointRecord[] {
    throw new Error(THREAD_ROUTES_MESSAGE);
  }

  getThreadMessages(_threadId: string): Message[] {
    throw new Error(THREAD_ROUTES_MESSAGE);
  }

  getThreadEvents(_threadId: string): BaseEvent[] {
    throw new Error(THREAD_ROUTES_MESSAGE);
  }

  getThreadState(_threadId: string): Record<string, unknown> | null {
    throw new Error(THREAD_ROUTES_MESSAGE);
  }

  clearThreads(): void {
    throw new Error(THREAD_ROUTES_MESSAGE);
  }

  /**
   * The events of a POST to a streaming route of the mock, as they arrive. Unsubscribing
   * closes the request.
   */
  private stream(url: string, input: RunAgentInput, given: Record<string, string>): Observable<BaseEvent> {
    return new Observable<BaseEvent>((subscriber) => {
      const controller = new AbortController();
      const headers = { ...given };
      setHeader(headers, "Content-Type", "application/json");
      setHeader(headers, "Accept", "text/event-stream");
      void (async () => {
        const res = await postToMock(this.mock, url, input, headers, controller.signal);
        for await (const event of readEvents(res, url)) {
          if (controller.signal.aborted) return;
          subscriber.next(event);
        }
        subscriber.complete();
      })().catch((err: unknown) => {
        if (!controller.signal.aborted) subscriber.error(err);
      });
      return () => controller.abort();
    });
  }

  /** Notes whom the thread's requests go to the mock as, for a later stop. */
  private remember(threadId: string, agentId: string, headers: Record<string, string>): ThreadRecord {
    // the record is kept, and moved to the end of the map: the run it relays stays its run
    const thread = this.threads.get(threadId) ?? { agentId, headers };
    thread.agentId = agentId;
    thread.headers = headers;
    this.threads.delete(threadId);
    this.threads.set(threadId, thread);
    if (this.threads.size > MAX_THREADS) {
      for (const [id, t] of this.threads) {
        if (this.threads.size <= MAX_THREADS) break;
        if (!t.run) this.threads.delete(id);
      }
    }
    return thread;
  }
}
