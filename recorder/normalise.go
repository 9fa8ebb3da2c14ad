package recorder

import (
	"fmt"
	"strings"

	"github.com/agui-mock/agui-mock/protocol"
)

// runIdentity records a stream as the official client reads it, where the recorder's
// rules (protocol.Verifier, the strictest line a scenario must satisfy) are stricter
// than that client: a RUN_FINISHED whose runId or threadId differs from its
// RUN_STARTED's — @ag-ui/langgraph ends a run with LangGraph's own run id — is taken
// as the end of the run it finishes, which @ag-ui/client 1.0.0 does too, and kept with
// the ids of its RUN_STARTED, so that the fixture templates both as the replayed
// request's ids. The client still gets the event as the agent sent it. What was
// changed is noted for the run's line.
type runIdentity struct {
	threadID, runID string   // of the latest RUN_STARTED
	notes           []string // what was normalised, in words
}

// normalise returns the event as the recording keeps it.
func (n *runIdentity) normalise(ev protocol.Event) protocol.Event {
	switch ev.Type {
	case protocol.RunStarted:
		n.threadID, n.runID = ev.Str("threadId"), ev.Str("runId")
	case protocol.RunFinished:
		for _, id := range []struct{ name, started string }{{"runId", n.runID}, {"threadId", n.threadID}} {
			if got := ev.Str(id.name); got != id.started && id.started != "" {
				n.notes = append(n.notes, fmt.Sprintf("RUN_FINISHED's %s %q recorded as RUN_STARTED's", id.name, got))
				ev = ev.With(id.name, id.started)
			}
		}
	}
	return ev
}

// String lists what was normalised, for the run's line; "" when nothing was.
func (n *runIdentity) String() string {
	if len(n.notes) == 0 {
		return ""
	}
	return "normalised " + strings.Join(n.notes, ", ")
}
