package recorder

import (
	"strings"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// A conversation's first run is keyed by its user message, as a person asks it. Every
// later run that does not continue the one before (a new user turn, or a run the client
// starts with no new user message) is keyed by the whole conversation so far: its last
// user message may be the first one again, or one an earlier session asked after other
// words, and what tells its run apart is everything said before it.

// laterTurn reports whether a run's request holds more than a first turn: anything but
// one user message after at most one system message.
func laterTurn(in *protocol.RunAgentInput) bool {
	users, systems := 0, 0
	for _, m := range in.Messages {
		switch m.Role {
		case "user":
			users++
		case "system":
			if users > 0 {
				return true
			}
			systems++
		default:
			return true
		}
	}
	return users > 1 || systems > 1
}

// conversationKey is the match's conversation for a later turn: every message's role,
// and, for what the client says — user and tool messages — its text, redacted and
// anchored. The agent's own messages are matched by role alone: a replay says the same.
func conversationKey(in *protocol.RunAgentInput, rd *redactor) []scenarios.RecordedMessage {
	key := make([]scenarios.RecordedMessage, len(in.Messages))
	for i, m := range in.Messages {
		key[i] = scenarios.RecordedMessage{Role: m.Role}
		if m.Role == "user" || m.Role == "tool" {
			key[i].Pattern = anchored(rd.text(m.Text()))
		}
	}
	return key
}

// keyText writes a conversation key as one string, for a file name's hash.
func keyText(key []scenarios.RecordedMessage) string {
	var b strings.Builder
	for _, m := range key {
		b.WriteString(m.Role)
		b.WriteByte(0)
		b.WriteString(m.Pattern)
		b.WriteByte(0)
	}
	return b.String()
}

// exampleConversation is a later turn's messages as its example sends them: as the client
// sent them, redacted, without their ids — each run of the example gives its own — but
// with the tool call ids that tie a tool message to its call.
func exampleConversation(in *protocol.RunAgentInput, rd *redactor) []map[string]any {
	msgs := make([]map[string]any, len(in.Messages))
	for i, m := range in.Messages {
		out := make(map[string]any, len(m.Raw))
		for k, v := range m.Raw {
			if k != "id" {
				out[k] = v
			}
		}
		msgs[i], _ = rd.value(out, false).(map[string]any)
	}
	return msgs
}
