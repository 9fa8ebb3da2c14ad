// A chat page on the CopilotKit React client v2 (@copilotkit/react-core/v2): the chat, an
// interrupt card, a frontend tool (clarify), an error banner fed by the provider's onError,
// the run state, and the agent's threads. Everything the specs touch has a data-testid.

import { Component, StrictMode, useMemo, type ReactNode } from "react";
import { createRoot } from "react-dom/client";
import {
  CopilotChat,
  CopilotKitProvider,
  useAgent,
  useFrontendTool,
  useInterrupt,
  useThreads,
} from "@copilotkit/react-core/v2";
import "@copilotkit/react-core/v2/styles.css";
import { z } from "zod";
import { readConfig, threadHref, type PageConfig } from "./config";
import { recordError, recordToolRun, useRecord } from "./record";

const config = readConfig(window.location, window.history);
const headers: Record<string, string> = config.testId ? { "X-Test-Id": config.testId } : {};

/** The answer the clarify handler gives: the last choice offered (GIF in the scenario). */
function pick(choices: unknown): string {
  return Array.isArray(choices) && choices.length > 0 ? String(choices[choices.length - 1]) : "MP4";
}

/** The clarify handlers waiting for the user's click (clarify=manual), by tool call id. */
const waitingAnswers = new Map<string, (answer: string) => void>();

function Tools({ agentId }: { agentId: string }) {
  useFrontendTool(
    {
      name: "clarify",
      description: "Ask the user a question with a few choices; answers with the choice.",
      agentId,
      parameters: z.object({ question: z.string(), choices: z.array(z.string()) }),
      handler: async (args, { toolCall }) => {
        recordToolRun({ toolCallId: toolCall.id, args, mode: config.clarify });
        if (config.clarify === "auto") return pick(args.choices);
        return new Promise<string>((resolve) => waitingAnswers.set(toolCall.id, resolve));
      },
      render: ({ args, status, result, toolCallId }) => (
        <div className="card" data-testid="clarify-card" data-status={status} data-tool-call-id={toolCallId}>
          <div data-testid="clarify-question">{String(args?.question ?? "")}</div>
          <div>
            status: <span data-testid="clarify-status">{status}</span>
            {result !== undefined && (
              <>
                {" "}
                · answer: <span data-testid="clarify-result">{String(result)}</span>
              </>
            )}
          </div>
          {config.clarify === "manual" && status === "executing" && (
            <button
              type="button"
              data-testid="clarify-answer"
              data-handler-waiting={waitingAnswers.has(toolCallId)}
              onClick={() => {
                waitingAnswers.get(toolCallId)?.(pick(args?.choices));
                waitingAnswers.delete(toolCallId);
              }}
            >
              Answer {pick(args?.choices)}
            </button>
          )}
        </div>
      ),
    },
    [agentId],
  );

  useInterrupt({
    agentId,
    render: ({ interrupt, event, resolve, cancel }) => {
      const message = interrupt?.message ?? (typeof event.value === "string" ? event.value : JSON.stringify(event.value));
      return (
        <div className="card" data-testid="interrupt-card" data-interrupt-id={interrupt?.id ?? ""}>
          <div data-testid="interrupt-message">{message}</div>
          <button type="button" data-testid="interrupt-approve" onClick={() => void resolve({ approved: true })}>
            Approve
          </button>{" "}
          <button type="button" data-testid="interrupt-reject" onClick={() => void cancel()}>
            Reject
          </button>
        </div>
      );
    },
  });
  return null;
}

function Status({ config }: { config: PageConfig }) {
  const { agent, isReady } = useAgent({ agentId: config.agentId });
  const record = useRecord();
  return (
    <div className="status" data-testid="status">
      <span>
        thread <code data-testid="thread-id">{config.threadId}</code>
      </span>
      <span>
        agent <code data-testid="agent-id">{config.agentId}</code> (<span data-testid="agent-ready">{isReady ? "ready" : "not ready"}</span>)
      </span>
      <span>
        run <span data-testid="run-state">{agent.isRunning ? "running" : "idle"}</span>
      </span>
      <span>
        messages <span data-testid="message-count">{agent.messages.length}</span>
      </span>
      <span>
        clarify runs <span data-testid="clarify-runs">{record.toolRuns.length}</span> (tab: <span data-testid="clarify-runs-total">{record.toolRunsTotal}</span>)
      </span>
      <span>
        onError <span data-testid="error-count">{record.errors.length}</span> (tab: <span data-testid="error-count-total">{record.errorsTotal}</span>)
      </span>
    </div>
  );
}

function ErrorBanner() {
  const { errors } = useRecord();
  if (errors.length === 0) return null;
  return (
    <div className="banner" role="alert" data-testid="error-banner">
      {errors.map((e, i) => (
        <div key={i} data-testid="error-entry" data-code={e.code}>
          <strong>{e.code}</strong>: <span data-testid="error-message">{e.message}</span>
        </div>
      ))}
    </div>
  );
}

function ThreadList({ config }: { config: PageConfig }) {
  const { threads, isLoading, error, refetchThreads } = useThreads({ agentId: config.agentId });
  return (
    <aside className="threads" data-testid="thread-panel">
      <h2 style={{ fontSize: 15 }}>Threads</h2>
      <button type="button" data-testid="threads-refresh" onClick={refetchThreads}>
        Refresh
      </button>
      <p data-testid="threads-state">{isLoading ? "loading" : error ? "error" : `${threads.length} thread(s)`}</p>
      {error && <p data-testid="threads-error">{error.message}</p>}
      <ul data-testid="thread-list">
        {threads.map((t) => (
          <li key={t.id} data-testid="thread-item" data-thread-id={t.id} aria-current={t.id === config.threadId}>
            <a href={threadHref(window.location, t.id)}>{t.name ?? t.id}</a>
          </li>
        ))}
      </ul>
    </aside>
  );
}

/** What the page shows instead of the chat when the chat throws while rendering. */
class ChatBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  render() {
    if (!this.state.error) return this.props.children;
    return (
      <div className="banner" role="alert" data-testid="chat-crash">
        The chat failed: <span data-testid="chat-crash-message">{this.state.error.message}</span>
      </div>
    );
  }
}

function App() {
  const onError = useMemo(
    () =>
      ({ error, code, context }: { error: Error; code: unknown; context: Record<string, unknown> }) => {
        console.log(`[ck-app] onError ${String(code)}: ${error?.message}`);
        recordError({ code: String(code), message: error?.message ?? String(error), context: { ...context } });
      },
    [],
  );
  return (
    <CopilotKitProvider
      runtimeUrl={config.runtimeUrl}
      agentId={config.agentId}
      headers={headers}
      onError={onError}
      enableInspector={false}
    >
      <ThreadList config={config} />
      <main>
        <ErrorBanner />
        <ChatBoundary>
          <Tools agentId={config.agentId} />
          <Status config={config} />
          <div className="chat" data-testid="chat">
            <CopilotChat agentId={config.agentId} threadId={config.threadId} />
          </div>
        </ChatBoundary>
      </main>
    </CopilotKitProvider>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
