package protocol

import (
	"fmt"
	"strings"
)

// RunIdentity reads an agent's stream as the official client does where Verifier, the
// strictest line a scenario must satisfy, is stricter than that client: a RUN_FINISHED
// whose runId or threadId differs from its RUN_STARTED's — @ag-ui/langgraph ends a run
// with LangGraph's own run id — ends the run it finishes, as @ag-ui/client 1.0.0 takes
// it. Normalise gives such a RUN_FINISHED the ids of its RUN_STARTED, so that the
// stream then passes Verifier (and a recording templates both as the replayed
// request's ids); what it changed is noted, for the run's log line. The zero value is
// ready for a stream.
type RunIdentity struct {
	threadID, runID string   // of the latest RUN_STARTED
	notes           []string // what was normalised, in words
}

// Normalise returns the event of the stream as the official client reads it.
func (n *RunIdentity) Normalise(ev Event) Event {
	switch ev.Type {
	case RunStarted:
		n.threadID, n.runID = ev.Str("threadId"), ev.Str("runId")
	case RunFinished:
		for _, id := range []struct{ name, started string }{{"runId", n.runID}, {"threadId", n.threadID}} {
			if got := ev.Str(id.name); got != id.started && id.started != "" {
				n.notes = append(n.notes, fmt.Sprintf("RUN_FINISHED's %s %q read as RUN_STARTED's", id.name, got))
				ev = ev.With(id.name, id.started)
			}
		}
	}
	return ev
}

// String lists what Normalise changed, in words; "" when nothing.
func (n *RunIdentity) String() string {
	if len(n.notes) == 0 {
		return ""
	}
	return "normalised " + strings.Join(n.notes, ", ")
}
