// Where the mock is and how to ask it: the options every part of the kit takes, the
// headers a request to the mock carries, the errors that say why the mock could not
// answer, and a reader of the Server-Sent Events it streams.

import type { AgentRunner } from "@copilotkit/runtime/v2";
import type { ObservedValueOf } from "rxjs";

/** An AG-UI event, as the runtime's own @ag-ui/client types it. */
export type BaseEvent = ObservedValueOf<ReturnType<AgentRunner["run"]>>;

/** Where agui-mock is and how to reach it. */
export interface AguiMockOptions {
  /**
   * The mock's base URL. Default: the `AGUI_MOCK_URL` environment variable, else
   * `http://127.0.0.1:8000`.
   */
  url?: string;
  /** The path the mock serves the CopilotKit runtime's routes under (its `--copilotkit-path`). Default `/copilotkit`. */
  path?: string;
  /**
   * Headers sent on every request to the mock, over those of the request (e.g. the mock's
   * `Authorization: Bearer <--auth-token>`).
   */
  headers?: Record<string, string>;
  /** The fetch to call the mock with. Default: the global fetch. */
  fetch?: typeof fetch;
}

/** The mock's runtime routes, resolved from the options. */
export interface Mock {
  /** The base URL of the mock's runtime routes, e.g. http://127.0.0.1:8000/copilotkit. */
  base: string;
  headers: Record<string, string>;
  fetch: typeof fetch;
}

/** The mock's URL when the options name none. */
export const DEFAULT_URL = "http://127.0.0.1:8000";

/** Where the mock serves the runtime's routes when the options name no path. */
export const DEFAULT_PATH = "/copilotkit";

/** Resolves the options into the mock's routes. */
export function resolveMock(options: AguiMockOptions = {}): Mock {
  const env = typeof process === "undefined" ? undefined : process.env?.AGUI_MOCK_URL;
  const url = (options.url ?? env ?? DEFAULT_URL).replace(/\/+$/, "");
  let path = (options.path ?? DEFAULT_PATH).replace(/\/+$/, "");
  if (path !== "" && !path.startsWith("/")) path = `/${path}`;
  const fetchFn = options.fetch ?? ((input: string | URL | Request, init?: RequestInit) => fetch(input, init));
  return { base: url + path, headers: { ...options.headers }, fetch: fetchFn };
}

/**
 * Headers for a request to the mock: those given, then the mock's own (options.headers),
 * which win over a header of the same name in any case.
 */
export function mockHeaders(mock: Mock, given: Record<string, string> = {}): Record<string, string> {
  const own = new Set(Object.keys(mock.headers).map((name) => name.toLowerCase()));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (!own.has(name.toLowerCase())) out[name] = value;
  }
  return Object.assign(out, mock.headers);
}

/** Sets a header, replacing one of the same name in any case. */
export function setHeader(headers: Record<string, string>, name: string, value: string): void {
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() === name.toLowerCase()) delete headers[key];
  }
  headers[name] = value;
}

/** Why the mock could not answer: `AGUI_MOCK_UNREACHABLE` (no answer at all) or `AGUI_MOCK_ERROR`. */
export class AguiMockError extends Error {
  override name = "AguiMockError";
  constructor(
    message: string,
    /** AGUI_MOCK_UNREACHABLE when the request got no answer, else AGUI_MOCK_ERROR. */
    readonly code: "AGUI_MOCK_UNREACHABLE" | "AGUI_MOCK_ERROR",
    /** The URL of the mock that was asked. */
    readonly url: string,
    /** The mock's status, when it answered with an error. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** An error's message with its cause, e.g. "fetch failed (connect ECONNREFUSED 127.0.0.1:1)". */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause;
  if (cause instanceof Error && cause.message && !err.message.includes(cause.message)) return `${err.message} (${cause.message})`;
  if (cause && typeof cause === "object" && "code" in cause) return `${err.message} (${String(cause.code)})`;
  return err.message;
}

/**
 * POSTs a JSON body to a route of the mock and returns its answer, throwing an
 * AguiMockError when the mock cannot be reached or answers with an error status.
 */
export async function postToMock(
  mock: Mock,
  url: string,
  body: unknown,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<Response> {
  let res: Response;
  try {
    res = await mock.fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new AguiMockError(`could not reach agui-mock at ${url}: ${describeError(err)}`, "AGUI_MOCK_UNREACHABLE", url);
  }
  if (!res.ok) {
    const text = await res.text().catch(() => "");
    throw new AguiMockError(
      `agui-mock answered ${res.status} to POST ${url}${text ? `: ${text.slice(0, 500)}` : ""}`,
      "AGUI_MOCK_ERROR",
      url,
      res.status,
    );
  }
  return res;
}

/**
 * The AG-UI events of an SSE answer of the mock, as they arrive: each event's `data:`
 * lines joined, parsed as JSON. Comments (keep-alives) and other fields are skipped.
 */
export async function* readEvents(res: Response, url: string): AsyncGenerator<BaseEvent> {
  const type = res.headers.get("content-type") ?? "";
  if (!type.includes("text/event-stream")) {
    const text = await res.text().catch(() => "");
    throw new AguiMockError(
      `agui-mock answered POST ${url} with ${type || "no Content-Type"}, not an event stream${text ? `: ${text.slice(0, 200)}` : ""}`,
      "AGUI_MOCK_ERROR",
      url,
      res.status,
    );
  }
  if (!res.body) return;
  const decoder = new TextDecoder();
  let buffered = "";
  let data: string[] = [];
  const parse = (text: string): BaseEvent => {
    try {
      return JSON.parse(text) as BaseEvent;
    } catch {
      throw new AguiMockError(`agui-mock sent an event that is not JSON on POST ${url}: ${text.slice(0, 200)}`, "AGUI_MOCK_ERROR", url);
    }
  };
  const reader = res.body.getReader();
  let finished = false;
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (err) {
        throw new AguiMockError(`the stream of agui-mock at ${url} broke off: ${describeError(err)}`, "AGUI_MOCK_UNREACHABLE", url);
      }
      buffered += chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      // a line ends at \n, \r\n or \r; until the end, a trailing \r may be half of a \r\n
      const lines = buffered.split(chunk.done ? /\r\n|\n|\r/ : /\r\n|\n|\r(?!$)/);
      buffered = chunk.done ? "" : (lines.pop() ?? "");
      for (const line of lines) {
        if (line === "") {
          if (data.length > 0) yield parse(data.join("\n"));
          data = [];
        } else if (line.startsWith("data:")) {
          data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
        }
      }
      if (chunk.done) break;
    }
    finished = true;
    if (data.length > 0) yield parse(data.join("\n"));
  } finally {
    // a reader that stops early lets go of the connection
    if (!finished) reader.cancel().catch(() => {});
  }
}
