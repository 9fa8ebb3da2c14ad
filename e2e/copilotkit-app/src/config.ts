// What the page is pointed at, from its own query string, so that one build serves every
// topology: ?runtime=<runtime URL>&agent=<agent id>&thread=<thread id>&testId=<X-Test-Id>
// (&clarify=manual makes the clarify tool wait for a click).
// Without a thread the page makes one up and writes it into the URL, so that a reload
// comes back to the same thread.

export interface PageConfig {
  runtimeUrl: string;
  agentId: string;
  threadId: string;
  /** Sent as X-Test-Id on every runtime request (the runtime forwards it to the mock). */
  testId: string | null;
  /** "manual": the clarify handler waits for the user's click instead of answering at once. */
  clarify: "auto" | "manual";
}

export function readConfig(location: Location, history: History): PageConfig {
  const params = new URLSearchParams(location.search);
  let threadId = params.get("thread");
  if (!threadId) {
    threadId = `thread-${crypto.randomUUID()}`;
    params.set("thread", threadId);
    history.replaceState(null, "", `${location.pathname}?${params}`);
  }
  return {
    runtimeUrl: params.get("runtime") ?? "/api/copilotkit",
    agentId: params.get("agent") ?? "default",
    threadId,
    testId: params.get("testId"),
    clarify: params.get("clarify") === "manual" ? "manual" : "auto",
  };
}

/** The page's URL for another thread, keeping everything else. */
export function threadHref(location: Location, threadId: string): string {
  const params = new URLSearchParams(location.search);
  params.set("thread", threadId);
  return `${location.pathname}?${params}`;
}
