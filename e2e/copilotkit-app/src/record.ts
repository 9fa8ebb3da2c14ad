// What the page records for the specs besides what it shows: how often the clarify tool's
// handler ran and how often the provider's onError fired, in this page load and — through
// sessionStorage — in every load of this tab. Both are shown on the page (data-testid
// clarify-runs, clarify-runs-total, error-count, error-count-total) and kept on
// window.__ckApp.

import { useSyncExternalStore } from "react";

export interface ErrorRecord {
  code: string;
  message: string;
  context: Record<string, unknown>;
}

export interface ToolRunRecord {
  toolCallId: string;
  args: Record<string, unknown>;
  mode: "auto" | "manual";
}

interface Snapshot {
  errors: ErrorRecord[];
  toolRuns: ToolRunRecord[];
  errorsTotal: number;
  toolRunsTotal: number;
}

const TOOL_RUNS_KEY = "ck-app:clarify-runs-total";
const ERRORS_KEY = "ck-app:errors-total";

function readCount(key: string): number {
  return Number(sessionStorage.getItem(key) ?? "0") || 0;
}

let snapshot: Snapshot = {
  errors: [],
  toolRuns: [],
  errorsTotal: readCount(ERRORS_KEY),
  toolRunsTotal: readCount(TOOL_RUNS_KEY),
};
const listeners = new Set<() => void>();

function update(next: Partial<Snapshot>) {
  snapshot = { ...snapshot, ...next };
  (window as unknown as { __ckApp: Snapshot }).__ckApp = snapshot;
  listeners.forEach((l) => l());
}
update({});

export function recordError(error: ErrorRecord) {
  const errorsTotal = snapshot.errorsTotal + 1;
  sessionStorage.setItem(ERRORS_KEY, String(errorsTotal));
  update({ errors: [...snapshot.errors, error], errorsTotal });
}

export function recordToolRun(run: ToolRunRecord) {
  const toolRunsTotal = snapshot.toolRunsTotal + 1;
  sessionStorage.setItem(TOOL_RUNS_KEY, String(toolRunsTotal));
  update({ toolRuns: [...snapshot.toolRuns, run], toolRunsTotal });
}

export function useRecord(): Snapshot {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => snapshot,
  );
}
