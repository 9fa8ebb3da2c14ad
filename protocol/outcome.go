package protocol

// Outcome is how a run ended, as the journal, the thread history, the metrics and the
// logs name it. Its text is part of those outputs: the constants' values never change.
type Outcome string

// The outcomes of a run.
const (
	// OutcomeRunning is the outcome of a run still streaming.
	OutcomeRunning Outcome = "running"
	// OutcomeSuccess is a run that finished with RUN_FINISHED and nothing to resume.
	OutcomeSuccess Outcome = "success"
	// OutcomeInterrupt is a run that finished with RUN_FINISHED and interrupts to resume.
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
