package recorder

import (
	"github.com/agui-mock/agui-mock/protocol"
)

// brokenRules returns the markable producer rules a recorded run breaks: the recording
// keeps what the agent sent and names them in the scenario's breaks, so that a replay
// plays the agent as it is.
func brokenRules(events []capturedEvent) []protocol.Rule {
	stream := make([]protocol.Event, len(events))
	for i, ce := range events {
		stream[i] = ce.event
	}
	return protocol.MarkableBreaks(stream)
}

// warnBreaks logs, once per run, the producer rules the agent broke in it: the run is
// recorded as sent, and its scenario marked with them.
func (r *Recorder) warnBreaks(in *protocol.RunAgentInput, breaks []protocol.Rule) {
	if len(breaks) == 0 {
		return
	}
	r.cfg.Logger.Warn("the agent breaks AG-UI producer rules that its client tolerates: the run is recorded as the agent sent it, and its scenario marked with the rules in breaks",
		"thread", in.ThreadID, "run", in.RunID, "rules", protocol.RuleNames(breaks))
}

// breaksNote is the part of a run's progress line that names the rules it broke.
func breaksNote(breaks []protocol.Rule) string {
	if len(breaks) == 0 {
		return ""
	}
	return ", breaks " + protocol.RuleNames(breaks)
}
