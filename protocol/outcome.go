package protocol

// Outcome is how a run ended, as the journal, the thread history, the metrics and the
// logs name it. Its text is part of those outputs: the constants' values never change.
type Outcome string

// The outcomes of a run.
const (
	// OutcomeRunning is the outcome of a run still streaming.
	OutcomeRunning Outcome = "running"
	// OutcomeSuccess is a run that finished with RUN_FINISHED and no interrupt outcome.
	OutcomeSuccess Outcome = "success"
	// OutcomeInterrupt is a run that finished with RUN_FINISHED and an interrupt outcome.
	// A LangGraph-dialect run that raised interrupts (on_interrupt events) finishes with
	// a plain RUN_FINISHED: its outcome is success, as its client sees it.
	OutcomeInterrupt Outcome = "interrupt"
	// OutcomeCancelled is a run stopped by the cancel endpoint or by its client going away.
	OutcomeCancelled Outcome = "cancelled"
	// OutcomeError is a run that ended with RUN_ERROR, the scenario's or a stopping
	// server's.
	OutcomeError Outcome = "error"
	// OutcomeFault is a run a fault broke, or that a broken scenario ended without a
	// terminal event.
	OutcomeFault Outcome = "fault"
)

// OutcomeOf is the outcome of a run that played its stream to the end, as the event it
// ended with says to its client: error after RUN_ERROR, interrupt after a RUN_FINISHED
// with an interrupt outcome, success after any other RUN_FINISHED, and fault when the
// stream ended without a terminal event. It is the one rule every account of a run
// (log, journal, metrics, thread history) takes its outcome from, so that none of them
// says more or less than the wire did.
func OutcomeOf(last Event) Outcome {
	switch {
	case last.Type == RunError:
		return OutcomeError
	case last.Type != RunFinished:
		return OutcomeFault
	case last.Outcome()["type"] == "interrupt":
		return OutcomeInterrupt
	}
	return OutcomeSuccess
}
