// The runtime's routes that the runner cannot serve, answered by the mock: the thread
// routes (the runtime asks a runner for threads synchronously, and the mock's threads are
// only an HTTP request away) and suggestions (which the runtime runs on the agent itself,
// not through the runner). They are forwarded before the runtime's handler runs, either
// from the endpoint's hooks (aguiMockHooks) or from the runtime's beforeRequestMiddleware
// (aguiMockMiddleware, which withAguiMock sets beside the runner).

import {
  resolveAgents,
  type CopilotRuntimeHooks,
  type CopilotSseRuntimeOptions,
  type RouteInfo,
} from "@copilotkit/runtime/v2";
import { AguiMockRunner } from "./runner.js";
import { describeError, mockHeaders, resolveMock, setHeader, type AguiMockOptions, type Mock } from "./mock.js";

/** The runtime's beforeRequestMiddleware. */
export type BeforeRequestMiddleware = NonNullable<CopilotSseRuntimeOptions["beforeRequestMiddleware"]>;
type MiddlewareParameters = Parameters<BeforeRequestMiddleware>[0];
type Runtime = MiddlewareParameters["runtime"];

/** A request to the mock that answers a route of the runtime. */
interface MockCall {
  method: "GET" | "POST";
  /** The path under the mock's runtime routes, with the query. */
  path: string;
  body?: string;
  stream?: boolean;
}

/**
 * Hooks for the runtime's endpoint (`createCopilotEndpoint({runtime, basePath, hooks})`,
 * or any of the runtime's endpoints that take hooks) that answer the thread routes —
 * `GET /threads`, `GET /threads/:id/messages|events|state`, `POST /threads/clear` — and
 * `POST /agent/:id/suggest` from the mock, after the runtime has matched the route
 * (both transports, multi-route and single-route) and run the hooks given, which come
 * first. The request's `Authorization` and `X-*` headers go with them (its `X-Test-Id`
 * among them), and `headers` over them. A mock that cannot be reached is answered with
 * a 502 whose message names its URL.
 */
export function aguiMockHooks(options: AguiMockOptions = {}, hooks: CopilotRuntimeHooks = {}): CopilotRuntimeHooks {
  const mock = resolveMock(options);
  return {
    ...hooks,
    async onBeforeHandler(ctx) {
      const replaced = await hooks.onBeforeHandler?.(ctx);
      const request = replaced instanceof Request ? replaced : ctx.request;
      const call = await mockCall(ctx.route, request, ctx.runtime);
      if (!call) return replaced;
      throw await forward(mock, call, request);
    },
  };
}

/**
 * A beforeRequestMiddleware for `new CopilotRuntime({beforeRequestMiddleware})` that
 * answers the routes aguiMockHooks answers from the mock, for a runtime whose endpoint
 * takes no hooks of yours. `next`, the middleware you had, runs first. The runtime logs
 * each answer a middleware gives in its place as "Error running before request
 * middleware"; aguiMockHooks does not make it.
 */
export function aguiMockMiddleware(options: AguiMockOptions = {}, next?: BeforeRequestMiddleware): BeforeRequestMiddleware {
  const mock = resolveMock(options);
  return async (params: MiddlewareParameters) => {
    const replaced = next ? await next(params) : undefined;
    const request = replaced instanceof Request ? replaced : params.request;
    const found = await routeOf(request, params.path);
    if (!found) return replaced;
    const call = await mockCall(found.route, found.request, params.runtime);
    if (!call) return replaced;
    throw await forward(mock, call, found.request);
  };
}

/**
 * The options of a CopilotRuntime whose agents agui-mock plays: the options given, with
 * an AguiMockRunner as the runner and aguiMockMiddleware (after the options' own
 * beforeRequestMiddleware) answering the thread routes.
 *
 * ```ts
 * const runtime = new CopilotRuntime(process.env.AGUI_MOCK_URL ? withAguiMock(options) : options);
 * ```
 */
export function withAguiMock<O extends CopilotSseRuntimeOptions>(
  runtimeOptions: O,
  options: AguiMockOptions = {},
): O & { runner: AguiMockRunner; beforeRequestMiddleware: BeforeRequestMiddleware } {
  return {
    ...runtimeOptions,
    runner: new AguiMockRunner(options),
    beforeRequestMiddleware: aguiMockMiddleware(options, runtimeOptions.beforeRequestMiddleware),
  };
}

/** The request to the mock that answers a route, or undefined when the runtime answers it itself. */
async function mockCall(route: RouteInfo, request: Request, runtime: Runtime): Promise<MockCall | undefined> {
  switch (route.method) {
    case "threads/list":
      return { method: "GET", path: `/threads${new URL(request.url).search}` };
    case "threads/messages":
    case "threads/events":
    case "threads/state":
      return { method: "GET", path: `/threads/${encodeURIComponent(route.threadId)}/${route.method.slice("threads/".length)}` };
    case "threads/clear":
      return { method: "POST", path: "/threads/clear" };
    case "agent/suggest": {
      // an agent the runtime does not have gets the runtime's own 404
      const agents = await resolveAgents(runtime.agents, request);
      if (!agents[route.agentId]) return undefined;
      const body = unwrapEnvelope(await request.clone().text(), "agent/suggest");
      return { method: "POST", path: `/agent/${encodeURIComponent(route.agentId)}/suggest`, body, stream: true };
    }
  }
  return undefined;
}

/**
 * The body of a call: the text itself, or, when it is a single-route envelope of the
 * method ({method, params, body}), the envelope's body.
 */
function unwrapEnvelope(text: string, method: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object" && (parsed as { method?: unknown }).method === method) {
      return JSON.stringify((parsed as { body?: unknown }).body ?? null);
    }
  } catch {
    // not JSON: the mock says what is wrong with it
  }
  return text;
}

/** The headers of a request that go on to the mock: Authorization and X-*, but not a proxy's. */
function forwardable(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (lower.startsWith("x-forwarded-") || lower === "x-real-ip") return;
    if (lower === "authorization" || lower.startsWith("x-")) out[lower] = value;
  });
  return out;
}

/** Asks the mock, and answers with its answer: status, type and body, streamed. */
async function forward(mock: Mock, call: MockCall, request: Request): Promise<Response> {
  const url = mock.base + call.path;
  const headers = mockHeaders(mock, forwardable(request.headers));
  if (call.body !== undefined) setHeader(headers, "Content-Type", "application/json");
  if (call.stream) setHeader(headers, "Accept", "text/event-stream");
  let res: Response;
  try {
    res = await mock.fetch(url, { method: call.method, headers, body: call.body, signal: request.signal });
  } catch (err) {
    return Response.json(
      { error: "agui-mock unreachable", message: `could not reach agui-mock at ${url}: ${describeError(err)}` },
      { status: 502 },
    );
  }
  const answered = new Headers();
  for (const name of ["content-type", "cache-control"]) {
    const value = res.headers.get(name);
    if (value) answered.set(name, value);
  }
  const empty = res.status === 204 || res.status === 304;
  return new Response(empty ? null : res.body, { status: res.status, statusText: res.statusText, headers: answered });
}

/** The runtime's routes whose last path segment is one of these (or whose last but one is stop, threads or memories). */
const ROUTE_TAILS = new Set([
  "info", "inspector-metadata", "inspector-learning", "transcribe", "cpk-debug-events", "run", "suggest", "connect",
  "threads", "subscribe", "messages", "events", "state", "archive", "clear", "memories", "recall", "annotate",
]);

/**
 * The route of a request, for the middleware, which runs before the runtime has matched
 * one: by its path's last segments, as the runtime matches them, or, for a POST to no
 * route (the single-route transport), by its JSON envelope. Only the routes the mock
 * answers are told apart, and only under the HTTP method the runtime takes for them.
 */
async function routeOf(request: Request, path: string): Promise<{ route: RouteInfo; request: Request } | undefined> {
  const method = request.method.toUpperCase();
  const segments = path.split("/").filter(Boolean);
  const route = matchSegments(segments, method);
  if (route) return { route, request };
  const n = segments.length;
  const isRoute = n > 0 && (ROUTE_TAILS.has(segments[n - 1]) || ["stop", "threads", "memories"].includes(segments[n - 2] ?? ""));
  if (isRoute || method !== "POST" || !(request.headers.get("content-type") ?? "").includes("application/json")) return undefined;

  let envelope: { method?: unknown; params?: Record<string, unknown>; body?: unknown };
  try {
    envelope = (await request.clone().json()) as typeof envelope;
  } catch {
    return undefined;
  }
  if (!envelope || typeof envelope !== "object") return undefined;
  const params = envelope.params ?? {};
  if (envelope.method === "agent/suggest" && typeof params.agentId === "string" && params.agentId.trim()) {
    return { route: { method: "agent/suggest", agentId: params.agentId }, request };
  }
  if (envelope.method !== "resource/request") return undefined;
  const { path: resourcePath, httpMethod } = params;
  if (typeof resourcePath !== "string" || typeof httpMethod !== "string") return undefined;
  if (!resourcePath.startsWith("/") || resourcePath.startsWith("//")) return undefined;
  const resourceUrl = new URL(resourcePath, "http://copilotkit.resource");
  const resourceMethod = httpMethod.toUpperCase();
  const resourceRoute = matchSegments(resourceUrl.pathname.split("/").filter(Boolean), resourceMethod);
  if (!resourceRoute) return undefined;
  const hasBody = resourceMethod !== "GET" && resourceMethod !== "HEAD" && envelope.body != null;
  const resourceRequest = new Request(resourceUrl, {
    method: resourceMethod,
    headers: request.headers,
    ...(hasBody ? { body: JSON.stringify(envelope.body) } : {}),
    signal: request.signal,
  });
  return { route: resourceRoute, request: resourceRequest };
}

/** The route the mock answers that a path's segments name under an HTTP method, if any. */
function matchSegments(segments: string[], method: string): RouteInfo | undefined {
  const n = segments.length;
  const at = (i: number) => segments[n - i] ?? ""; // the i-th segment from the end
  const id = (i: number) => {
    try {
      return decodeURIComponent(at(i)) || undefined;
    } catch {
      return undefined;
    }
  };
  if (method === "GET" && at(1) === "threads") return { method: "threads/list" };
  if (method === "GET" && n >= 3 && at(3) === "threads" && ["messages", "events", "state"].includes(at(1))) {
    const threadId = id(2);
    if (!threadId) return undefined;
    return { method: `threads/${at(1)}` as "threads/messages" | "threads/events" | "threads/state", threadId };
  }
  if (method === "POST" && n >= 2 && at(2) === "threads" && at(1) === "clear") return { method: "threads/clear" };
  if (method === "POST" && n >= 3 && at(3) === "agent" && at(1) === "suggest") {
    const agentId = id(2);
    return agentId ? { method: "agent/suggest", agentId } : undefined;
  }
  return undefined;
}
