package protocol

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendFrame(t *testing.T) {
	ev := NewEvent(TextMessageContent, "messageId", "m1", "delta", "a <b> & \"c\"\n")
	got, err := AppendFrame(nil, ev, 1784102011155, true)
	if err != nil {
		t.Fatal(err)
	}
	want := "id: TEXT_MESSAGE_CONTENT_1784102011155\n" +
		`data: {"type":"TEXT_MESSAGE_CONTENT","timestamp":1784102011155,"messageId":"m1","delta":"a <b> & \"c\"\n"}` + "\n\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got, _ = AppendFrame(nil, ev, 5, false)
	if string(got[:6]) != "data: " {
		t.Errorf("without ids the frame must start with data:, got %q", got)
	}
}

func TestNewID(t *testing.T) {
	for _, tt := range []struct {
		prefix string
		random uint64
		want   string
	}{
		{"msg", 0, "msg-000000000000"},
		{"run", 0x0123456789abcdef, "run-0123456789ab"},
		{"tool", ^uint64(0), "tool-ffffffffffff"},
		{"", 1 << 16, "-000000000001"},
	} {
		if got := NewID(tt.prefix, tt.random); got != tt.want {
			t.Errorf("NewID(%q, %#x) = %q, want %q", tt.prefix, tt.random, got, tt.want)
		}
	}
	// the same ids as the twelve zero-padded hex digits of the high 48 bits
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		v := r.Uint64()
		if got, want := NewID("id", v), fmt.Sprintf("id-%012x", v>>16); got != want {
			t.Fatalf("NewID(%#x) = %q, want %q", v, got, want)
		}
	}
}

func TestAppendJSONQuotesNamesAsJSON(t *testing.T) {
	// names from a scenario file may hold anything a YAML key can: quoted as JSON, not Go
	ev := Event{Type: "CUSTOM\x7f", Fields: []Field{{Name: "a\x01b\"c", Value: 1.5}, {Name: "naïve\u2028", Value: "x"}}}
	out, err := ev.AppendJSON(nil, -1)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatalf("%s is not JSON: %v", out, err)
	}
	if back["type"] != "CUSTOM\x7f" || back["a\x01b\"c"] != 1.5 || back["naïve\u2028"] != "x" {
		t.Errorf("%s decodes to %v", out, back)
	}
}

func TestAppendJSONKeepsAnExplicitTimestamp(t *testing.T) {
	ev := NewEvent(Custom, "timestamp", json.Number("12"), "name", "n", "value", nil)
	got, _ := ev.AppendJSON(nil, 99)
	if want := `{"type":"CUSTOM","timestamp":12,"name":"n","value":null}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestPeerAdapt(t *testing.T) {
	cancelled := NewEvent(RunFinished, "threadId", "t", "runId", "r", "outcome", map[string]any{"type": "cancelled"})
	pending := NewEvent(RunFinished, "threadId", "t", "runId", "r", "outcome", map[string]any{"type": "success", "pendingToolCallIds": []any{"c"}})
	parts := NewEvent(ToolCallResult, "messageId", "m", "toolCallId", "c", "content", []any{map[string]any{"type": "text", "text": "a"}, map[string]any{"type": "text", "text": "b"}})
	encrypted := NewEvent(ReasoningEncryptedValue, "subtype", "message", "entityId", "m", "encryptedValue", "x", "encryptedValueType", "t")
	started := NewEvent(RunStarted, "threadId", "t", "runId", "r")
	usage := []any{map[string]any{"model": "m", "inputTokens": 5, "cachedInputTokens": 2, "cacheWriteInputTokens": 3}}
	finished := NewEvent(RunFinished, "threadId", "t", "runId", "r", "usage", usage)
	failed := NewEvent(RunError, "message", "m", "usage", usage)
	declared := started.With("protocolVersion", "1.1")
	attributed := NewEvent(RunFinished, "threadId", "t", "runId", "r", "outcome", map[string]any{"type": "interrupt", "interrupts": []any{
		map[string]any{"id": "i", "reason": "r", "subagentRunId": "s"}, map[string]any{"id": "j", "reason": "r"}}})
	tests := []struct {
		name string
		peer Peer
		in   Event
		want string // the adapted event as JSON; "" when dropped
	}{
		{"legacy gets no protocolVersion", PeerFor(""), declared, `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`},
		{"1.0 is declared 1.0", PeerFor("1.0"), declared, `{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.0"}`},
		{"a newer peer gets the declared version", PeerFor("1.7"), declared, `{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.1"}`},
		{"an undeclared version stays undeclared", PeerFor("1.1"), started, `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`},
		{"an older declared version stays", PeerFor("1.1"), started.With("protocolVersion", "1.0"), `{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.0"}`},
		{"legacy cancelled becomes RUN_ERROR", PeerFor(""), cancelled, `{"type":"RUN_ERROR","message":"Run cancelled","code":"cancelled"}`},
		{"1.1 keeps cancelled", PeerFor("1.1"), cancelled, `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"cancelled"}}`},
		{"legacy loses pendingToolCallIds", PeerFor(""), pending, `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success"}}`},
		{"legacy gets text for parts", PeerFor(""), parts, `{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":"ab"}`},
		{"legacy drops subagents", PeerFor(""), NewEvent(SubagentStarted, "subagentRunId", "s", "name", "n"), ""},
		{"legacy loses the attribution", PeerFor(""), NewEvent(TextMessageEnd, "messageId", "m", "subagentRunId", "s", "metadata", map[string]any{"k": 1}), `{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":{"k":1}}`},
		{"legacy interrupts lose the attribution", PeerFor(""), attributed, `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"interrupts":[{"id":"i","reason":"r"},{"id":"j","reason":"r"}],"type":"interrupt"}}`},
		{"1.1 interrupts keep the attribution", PeerFor("1.1"), attributed, `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"interrupts":[{"id":"i","reason":"r","subagentRunId":"s"},{"id":"j","reason":"r"}],"type":"interrupt"}}`},
		{"legacy usage loses cacheWriteInputTokens", PeerFor(""), finished, `{"type":"RUN_FINISHED","threadId":"t","runId":"r","usage":[{"cachedInputTokens":2,"inputTokens":5,"model":"m"}]}`},
		{"legacy error usage loses cacheWriteInputTokens", PeerFor(""), failed, `{"type":"RUN_ERROR","message":"m","usage":[{"cachedInputTokens":2,"inputTokens":5,"model":"m"}]}`},
		{"1.0 keeps cacheWriteInputTokens", PeerFor("1.0"), finished, `{"type":"RUN_FINISHED","threadId":"t","runId":"r","usage":[{"cacheWriteInputTokens":3,"cachedInputTokens":2,"inputTokens":5,"model":"m"}]}`},
		{"1.0 loses encryptedValueType", PeerFor("1.0"), encrypted, `{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"m","encryptedValue":"x"}`},
		{"1.1 keeps encryptedValueType", PeerFor("1.1"), encrypted, `{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"m","encryptedValue":"x","encryptedValueType":"t"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.peer.Adapt(tt.in)
			if !ok {
				if tt.want != "" {
					t.Fatalf("dropped, want %s", tt.want)
				}
				return
			}
			b, _ := got.AppendJSON(nil, -1)
			if string(b) != tt.want {
				t.Errorf("got %s, want %s", b, tt.want)
			}
		})
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]Version{"1.0": {1, 0}, "1.1": {1, 1}, "0.0.58": {0, 0}, "2.3.4": {2, 3}} {
		if got, err := ParseVersion(in); err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "1", "1.x", "draft", "-1.0", "1.2.3.4"} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) accepted", bad)
		}
	}
}

// FuzzAppendString: every string encodes to JSON that decodes back to it (invalid UTF-8
// to U+FFFD), with no HTML escaping.
func FuzzAppendString(f *testing.F) {
	for _, seed := range []string{"", "plain", "quote \" backslash \\ slash /", "<b>&amp;</b>", "tab\tnew\nline\r\x00\x1f\x7f", "日本語 🌊 é", "\xff\xfe bad", "\u2028\u2029"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := appendString(nil, s)
		var back string
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Fatalf("%q encodes to invalid JSON %s: %v", s, enc, err)
		}
		if want := strings.ToValidUTF8(s, "\ufffd"); back != want && utf8.ValidString(s) {
			t.Fatalf("%q came back as %q", s, back)
		}
		if strings.Contains(string(enc), `\u003c`) {
			t.Fatalf("HTML escaping in %s", enc)
		}
	})
}

func TestPeerDeclare(t *testing.T) {
	started := NewEvent(RunStarted, "threadId", "t", "runId", "r")
	for version, want := range map[string]string{
		"":    `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		"1.0": `{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.0"}`,
		"1.7": `{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.1"}`,
	} {
		b, _ := PeerFor(version).Declare(started).AppendJSON(nil, -1)
		if string(b) != want {
			t.Errorf("client %q: got %s, want %s", version, b, want)
		}
	}
}
