// What the real clients do with each rule-breaking fault kind: one table, which
// rule-faults.test.js measures against @ag-ui/client 1.0.0 and 0.0.58 and @copilotkit/core
// 1.75 (behind @copilotkit/runtime), and which the table of docs/e2e-testing.md mirrors
// word for word (the test compares them).

/** The clients measured, in the order of the documentation's columns. */
export const RULE_FAULT_CLIENTS = ['@ag-ui/client 1.0.0', '@ag-ui/client 0.0.58', '@copilotkit/core 1.75'];

/**
 * What a client can do with a fault, by name, and the words the documentation's table
 * says it in.
 */
export const REACTIONS = {
  accepted: 'accepted: the run ends as usual, no error, no warning',
  'accepted-second-run': 'accepted: the second run reaches the subscribers too, no error, no warning',
  'accepted-two-finishes': "accepted: `onRunFinishedEvent` is called twice, once per run, no error, no warning",
  'dropped-warning': "the event is dropped with a `console.warn` (`[ag-ui][enforce] Dropping unrecognised event 'MOCK_UNKNOWN_EVENT' …`); the run succeeds",
  'rejects-unknown-type': '`runAgent` rejects with a `ZodError` (`invalid_union_discriminator`); `onRunFailed` is called',
  'rejects-wrong-type': '`runAgent` rejects with a `ZodError` (`invalid_type`, path `name`); `onRunFailed` is called',
  'runtime-run-error':
    "the runtime's agent fails with the `ZodError` and sends `RUN_ERROR`: `runAgent` resolves, the core's `onError` gets `agent_run_error_event`, nothing is added to the messages",
  'resume-refused': 'accepted; answering it is refused by the client before any request: `runAgent` rejects with `Interrupt <id> expired at <time>`',
  'resume-reported':
    "accepted; answering it fails in the client before any request: `runAgent` resolves, the core's `onError` gets `agent_run_failed` with `Interrupt <id> expired at <time>`",
};

/**
 * Per fault kind, what each client of RULE_FAULT_CLIENTS does with it (a key of
 * REACTIONS), as measured.
 */
export const RULE_FAULTS = {
  wrongRunId: ['accepted', 'accepted', 'accepted'],
  wrongThreadId: ['accepted', 'accepted', 'accepted'],
  otherThread: ['accepted-second-run', 'accepted-second-run', 'accepted-two-finishes'],
  duplicateInterruptId: ['accepted', 'accepted', 'accepted'],
  unknownEvent: ['dropped-warning', 'rejects-unknown-type', 'runtime-run-error'],
  badField: ['rejects-wrong-type', 'rejects-wrong-type', 'runtime-run-error'],
  expiredInterrupt: ['resume-refused', 'resume-refused', 'resume-reported'],
};

/** The rows of the documentation's table, as Markdown, in the order of RULE_FAULTS. */
export function reactionRows() {
  return Object.entries(RULE_FAULTS).map(([kind, keys]) => `| \`${kind}\` | ${keys.map((k) => REACTIONS[k]).join(' | ')} |`);
}
