package recorder

import (
	"strings"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/internal/secret"
	"github.com/agui-mock/agui-mock/internal/spectest"
	"github.com/agui-mock/agui-mock/protocol"
)

func TestJSONIsRedactedByMemberNameAndStaysJSON(t *testing.T) {
	rd := redactor{patterns: secret.Patterns()}
	in := `{"user": "ada", "password": "hunter2", "tokens": 12, "nested": {"apiKey": "k-1", "list": ["AKIAIOSFODNN7EXAMPLE", "ok"]},` +
		` "credentials": {"user": "bob", "pin": "1234", "n": 7}, "empty_secret": "", "note": "esc\"aped", "sort_key": "name"}`
	want := `{"user": "ada", "password": "[REDACTED]", "tokens": 12, "nested": {"apiKey": "[REDACTED]", "list": ["[REDACTED]", "ok"]},` +
		` "credentials": {"user": "[REDACTED]", "pin": "[REDACTED]", "n": 7}, "empty_secret": "", "note": "esc\"aped", "sort_key": "name"}`
	if got := rd.text(in); got != want || rd.count != 5 {
		t.Errorf("got %s (%d redactions)\nwant %s", got, rd.count, want)
	}
	if got := rd.text(`{"sessionToken": "cut off`); !strings.Contains(got, "cut off") {
		t.Errorf("text that is not JSON is redacted by pattern only: %s", got)
	}
}

func TestAStateDeltaIsRedactedByPath(t *testing.T) {
	rd := redactor{patterns: secret.Patterns()}
	ev := rd.event(protocol.NewEvent(protocol.StateDelta, "delta", []any{
		map[string]any{"op": "add", "path": "/credentials/user", "value": "ada"},
		map[string]any{"op": "replace", "path": "/api~1key", "value": "k"},
		map[string]any{"op": "replace", "path": "/session/token", "value": map[string]any{"v": "t"}},
		map[string]any{"op": "replace", "path": "/max_tokens", "value": "4096"},
	}))
	ops, _ := ev.Get("delta")
	var got []any
	for _, op := range ops.([]any) {
		got = append(got, op.(map[string]any)["value"])
	}
	if got[0] != redacted || got[1] != redacted || got[2].(map[string]any)["v"] != redacted || got[3] != "4096" || rd.count != 3 {
		t.Errorf("values %v, %d redactions", got, rd.count)
	}
}

// deltaStreams builds, for each event type that carries a delta, a valid run whose
// deltas of that type are the pieces given: chunks name their stream on the first one
// only, as AG-UI allows, and a RAW event stands between the first two deltas.
var deltaStreams = map[string]func(pieces []string) []protocol.Event{
	protocol.TextMessageContent: func(pieces []string) []protocol.Event {
		return around(protocol.NewEvent(protocol.TextMessageStart, "messageId", "m1", "role", "assistant"),
			pieceEvents(pieces, func(i int, p string) protocol.Event {
				return protocol.NewEvent(protocol.TextMessageContent, "messageId", "m1", "delta", p)
			}), protocol.NewEvent(protocol.TextMessageEnd, "messageId", "m1"))
	},
	protocol.TextMessageChunk: func(pieces []string) []protocol.Event {
		return pieceEvents(pieces, func(i int, p string) protocol.Event {
			if i == 0 {
				return protocol.NewEvent(protocol.TextMessageChunk, "messageId", "m1", "role", "assistant", "delta", p)
			}
			return protocol.NewEvent(protocol.TextMessageChunk, "delta", p)
		})
	},
	protocol.ToolCallArgs: func(pieces []string) []protocol.Event {
		return around(protocol.NewEvent(protocol.ToolCallStart, "toolCallId", "c1", "toolCallName", "login"),
			pieceEvents(pieces, func(i int, p string) protocol.Event {
				return protocol.NewEvent(protocol.ToolCallArgs, "toolCallId", "c1", "delta", p)
			}), protocol.NewEvent(protocol.ToolCallEnd, "toolCallId", "c1"))
	},
	protocol.ToolCallChunk: func(pieces []string) []protocol.Event {
		return pieceEvents(pieces, func(i int, p string) protocol.Event {
			if i == 0 {
				return protocol.NewEvent(protocol.ToolCallChunk, "toolCallId", "c1", "toolCallName", "login", "delta", p)
			}
			return protocol.NewEvent(protocol.ToolCallChunk, "delta", p)
		})
	},
	protocol.ReasoningMessageContent: func(pieces []string) []protocol.Event {
		return around(protocol.NewEvent(protocol.ReasoningStart, "messageId", "r0"),
			around(protocol.NewEvent(protocol.ReasoningMessageStart, "messageId", "r1", "role", "reasoning"),
				pieceEvents(pieces, func(i int, p string) protocol.Event {
					return protocol.NewEvent(protocol.ReasoningMessageContent, "messageId", "r1", "delta", p)
				}), protocol.NewEvent(protocol.ReasoningMessageEnd, "messageId", "r1")),
			protocol.NewEvent(protocol.ReasoningEnd, "messageId", "r0"))
	},
	protocol.ReasoningMessageChunk: func(pieces []string) []protocol.Event {
		return around(protocol.NewEvent(protocol.ReasoningStart, "messageId", "r0"),
			pieceEvents(pieces, func(i int, p string) protocol.Event {
				if i == 0 {
					return protocol.NewEvent(protocol.ReasoningMessageChunk, "messageId", "r1", "delta", p)
				}
				return protocol.NewEvent(protocol.ReasoningMessageChunk, "delta", p)
			}), protocol.NewEvent(protocol.ReasoningEnd, "messageId", "r0"))
	},
	protocol.ThinkingTextContent: func(pieces []string) []protocol.Event {
		return around(protocol.NewEvent(protocol.ThinkingStart),
			around(protocol.NewEvent(protocol.ThinkingTextStart),
				pieceEvents(pieces, func(i int, p string) protocol.Event {
					return protocol.NewEvent(protocol.ThinkingTextContent, "delta", p)
				}), protocol.NewEvent(protocol.ThinkingTextEnd)),
			protocol.NewEvent(protocol.ThinkingEnd))
	},
}

// pieceEvents makes an event of each piece, with a RAW event after the first.
func pieceEvents(pieces []string, event func(i int, piece string) protocol.Event) []protocol.Event {
	var out []protocol.Event
	for i, p := range pieces {
		out = append(out, event(i, p))
		if i == 0 {
			out = append(out, protocol.NewEvent(protocol.Raw, "event", map[string]any{"note": "between"}))
		}
	}
	return out
}

func around(start protocol.Event, inner []protocol.Event, end protocol.Event) []protocol.Event {
	return append(append([]protocol.Event{start}, inner...), end)
}

// splits cuts a text into pieces: in two within the token, in three, one character
// each, and one character each from the token's second on (the stream's first delta
// ends within the token).
func splits(text, token string) map[string][]string {
	start := strings.Index(text, token)
	at, third := start+len(token)/2, start+len(token)/3
	return map[string][]string{
		"in two":                 {text[:at], text[at:]},
		"in three":               {text[:third], text[third : third+len(token)/3], text[third+len(token)/3:]},
		"a character each":       strings.Split(text, ""),
		"a character each after": append([]string{text[:start+1]}, strings.Split(text[start+1:], "")...),
		"whole":                  {text},
	}
}

// TestEveryDeltaTypeHasItsSplitSecretRedacted walks every event type that carries a
// delta, as the official schema and the protocol's event definitions have them: a
// streamed text whose token is split across its deltas, even one character each, is
// redacted whole and still verifies; a JSON Patch has the values at token paths and
// the secrets in its values redacted.
func TestEveryDeltaTypeHasItsSplitSecretRedacted(t *testing.T) {
	const token = "sk-proj-abcdefghijklmnopqrstuvwxyz012345"
	types := spectest.DeltaEvents(t)
	for _, typ := range protocol.KnownEventTypes() {
		if protocol.IsStringField(typ, "delta") {
			types[typ] = "delta"
		}
	}
	if len(types) < 9 {
		t.Fatalf("only %d event types with a delta: %v", len(types), types)
	}
	for typ, field := range types {
		if _, isPatch := protocol.PatchField(typ); isPatch {
			t.Run(typ, func(t *testing.T) { patchIsRedacted(t, typ, field, token) })
			continue
		}
		build, ok := deltaStreams[typ]
		if !ok {
			t.Errorf("%s carries a delta in %s: give it a stream in deltaStreams", typ, field)
			continue
		}
		text := "note: use " + token + " for the demo"
		if typ == protocol.ToolCallArgs || typ == protocol.ToolCallChunk {
			text = `{"note":"use ` + token + ` for the demo"}`
		}
		for name, pieces := range splits(text, token) {
			t.Run(typ+"/"+name, func(t *testing.T) {
				run := append(append([]protocol.Event{protocol.NewEvent(protocol.RunStarted, "threadId", "t", "runId", "r")}, build(pieces)...),
					protocol.NewEvent(protocol.RunFinished, "threadId", "t", "runId", "r"))
				if _, err := protocol.CheckStream(run, "t"); err != nil {
					t.Fatalf("the run sent is not valid: %v", err)
				}
				captured := make([]capturedEvent, len(run))
				for i, ev := range run {
					captured[i] = capturedEvent{gap: time.Millisecond, event: ev}
				}
				rd := redactor{patterns: secret.Patterns()}
				out := rd.events(captured)
				var written []protocol.Event
				var joined strings.Builder
				var total time.Duration
				for _, ce := range out {
					written = append(written, ce.event)
					total += ce.gap
					if ce.event.Type == typ {
						joined.WriteString(ce.event.Str(field))
					}
					for _, f := range ce.event.Fields {
						if s, _ := f.Value.(string); strings.Contains(s, "abcdefgh") || strings.Contains(s, "stuvwxyz") {
							t.Errorf("%s.%s holds part of the token: %q", ce.event.Type, f.Name, s)
						}
					}
				}
				if want := strings.Replace(text, token, redacted, 1); joined.String() != want || rd.count != 1 {
					t.Errorf("the deltas say %q with %d redactions, want %q with 1", joined.String(), rd.count, want)
				}
				if _, err := protocol.CheckStream(written, "t"); err != nil {
					t.Errorf("the redacted run is not valid: %v\n%v", err, written)
				}
				if total != time.Duration(len(run))*time.Millisecond {
					t.Errorf("the run takes %s, not %s", total, time.Duration(len(run))*time.Millisecond)
				}
			})
		}
	}
}

// patchIsRedacted checks a JSON Patch event: the value set at a token's path, and a
// token in another value, are redacted; an ordinary value is kept.
func patchIsRedacted(t *testing.T, typ, field, token string) {
	ev := protocol.NewEvent(typ, field, []any{
		map[string]any{"op": "add", "path": "/settings/apiKey", "value": "plain-value-1"},
		map[string]any{"op": "add", "path": "/note", "value": "use " + token},
		map[string]any{"op": "replace", "path": "/count", "value": "7"},
	})
	if typ == protocol.ActivityDelta {
		ev = ev.With("messageId", "a1").With("activityType", "plan")
	}
	rd := redactor{patterns: secret.Patterns()}
	patch, _ := rd.event(ev).Get(field)
	ops, _ := patch.([]any)
	if len(ops) != 3 {
		t.Fatalf("the patch became %v", patch)
	}
	values := make([]any, len(ops))
	for i, op := range ops {
		values[i] = op.(map[string]any)["value"]
	}
	if values[0] != redacted || values[1] != "use "+redacted || values[2] != "7" || rd.count != 2 {
		t.Errorf("values %v with %d redactions", values, rd.count)
	}
}

// TestTheFormsOfOneMessageAreOneStream sends a message's text as content and then as
// chunks of the same id, the token across the two forms: it is redacted whole, and the
// id-less chunk that follows the merged-away one is given the stream's id, so that the
// run still verifies.
func TestTheFormsOfOneMessageAreOneStream(t *testing.T) {
	run := []protocol.Event{
		protocol.NewEvent(protocol.RunStarted, "threadId", "t", "runId", "r"),
		protocol.NewEvent(protocol.TextMessageStart, "messageId", "m1", "role", "assistant"),
		protocol.NewEvent(protocol.TextMessageContent, "messageId", "m1", "delta", "key sk-proj-abcdefghij"),
		protocol.NewEvent(protocol.TextMessageEnd, "messageId", "m1"),
		protocol.NewEvent(protocol.TextMessageChunk, "messageId", "m1", "delta", "klmnopqrstuvwxyz012345"),
		protocol.NewEvent(protocol.TextMessageChunk, "delta", " more"),
		protocol.NewEvent(protocol.RunFinished, "threadId", "t", "runId", "r"),
	}
	if _, err := protocol.CheckStream(run, "t"); err != nil {
		t.Fatal(err)
	}
	captured := make([]capturedEvent, len(run))
	for i, ev := range run {
		captured[i] = capturedEvent{event: ev}
	}
	rd := redactor{patterns: secret.Patterns()}
	var written []protocol.Event
	for _, ce := range rd.events(captured) {
		written = append(written, ce.event)
	}
	if len(written) != 6 || written[2].Str("delta") != "key "+redacted || written[4].Str("delta") != " more" || written[4].Str("messageId") != "m1" || rd.count != 1 {
		t.Fatalf("written %v with %d redactions", written, rd.count)
	}
	if _, err := protocol.CheckStream(written, "t"); err != nil {
		t.Errorf("the redacted run is not valid: %v", err)
	}
}
