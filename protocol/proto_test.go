package protocol

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/internal/prototest"
	"github.com/agui-mock/agui-mock/internal/spectest"
)

// protoFrames encodes events as one protobuf stream.
func protoFrames(t testing.TB, events ...Event) []byte {
	t.Helper()
	var out []byte
	for i, ev := range events {
		var err error
		if out, err = (ProtoEncoder{}).AppendFrame(out, ev, int64(1000+i)); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// Every event of the official conformance corpus that the .proto carries whole, and
// each form the protobuf transport rebuilds, come back from their frames as they went
// in, their timestamps aside; together they cover every event type.
func TestProtoRoundTripsEveryEventType(t *testing.T) {
	events := append(conformanceEvents(t), protoForms()...)
	types := map[string]bool{}
	for i, ev := range events {
		if lost := ProtoLosses(ev); len(lost) > 0 {
			continue // malformed on purpose, or beyond the .proto: TestProtoLosses
		}
		frame, err := ProtoEncoder{}.AppendFrame(nil, ev, -1)
		if err != nil {
			t.Fatalf("event %d %s: %v", i, ev.Type, err)
		}
		got, err := NewEventReader(ProtoContentType, bytes.NewReader(frame), 1<<20).Next()
		if err != nil {
			t.Fatalf("event %d %s: %v", i, ev.Type, err)
		}
		want := ev.Map()
		if gotMap := prototest.WithoutAddedZeros(got.Map(), want); !reflect.DeepEqual(gotMap, want) {
			t.Errorf("event %d:\n got %v\nwant %v", i, gotMap, want)
		}
		types[ev.Type] = true
	}
	for _, typ := range KnownEventTypes() {
		if !types[typ] && !strings.HasPrefix(typ, "THINKING_") {
			t.Errorf("no event of type %s went through the protobuf transport", typ)
		}
	}
}

// conformanceEvents are the events of the official conformance corpus.
func conformanceEvents(t *testing.T) []Event {
	files, _ := filepath.Glob(filepath.Join(spectest.Dir(t), "*", "conformance", "streams", "*.json"))
	var events []Event
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var fx conformanceFixture
		if err := json.Unmarshal(raw, &fx); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, r := range fx.Stream {
			v, err := DecodeJSON(r)
			if err != nil {
				t.Fatal(err)
			}
			events = append(events, EventFromMap(v.(map[string]any)))
		}
	}
	if len(events) < 200 {
		t.Fatalf("only %d events in the conformance corpus", len(events))
	}
	return events
}

// protoForms are events whose protobuf form differs from their JSON one: outcomes and
// their payloads, content parts and activity content, patch operations.
func protoForms() []Event {
	return []Event{
		NewEvent(RunFinished, "threadId", "t", "runId", "r", "outcome", map[string]any{"type": "interrupt", "interrupts": []any{map[string]any{"id": "i", "reason": "approval", "responseSchema": map[string]any{"type": "object"}}}}),
		NewEvent(RunFinished, "threadId", "t", "runId", "r", "outcome", map[string]any{"type": "success", "pendingToolCallIds": []any{"c1"}}),
		NewEvent(RunFinished, "threadId", "t", "runId", "r", "outcome", map[string]any{"type": "cancelled"}),
		NewEvent(RunFinished, "threadId", "t", "runId", "r", "usage", []any{
			map[string]any{"provider": "openai", "model": "gpt-4o", "inputTokens": json.Number("1200"), "outputTokens": json.Number("80"), "totalTokens": json.Number("1280"),
				"reasoningTokens": json.Number("20"), "cachedInputTokens": json.Number("1000"), "cacheWriteInputTokens": json.Number("200")},
			map[string]any{"provider": "anthropic", "inputTokens": json.Number("0")},
		}),
		NewEvent(RunError, "message", "m", "usage", []any{map[string]any{"model": "m", "outputTokens": json.Number("3")}}),
		NewEvent(SubagentFinished, "subagentRunId", "s", "outcome", map[string]any{"type": "suspended", "interruptIds": []any{"i"}}),
		NewEvent(SubagentFinished, "subagentRunId", "s", "result", map[string]any{"days": json.Number("3")}, "outcome", map[string]any{"type": "success"}, "metadata", map[string]any{"trace": "t"}),
		NewEvent(RunFinished, "threadId", "t", "runId", "r", "outcome", map[string]any{"type": "interrupt", "interrupts": []any{map[string]any{"id": "i", "reason": "approval", "subagentRunId": "s"}}}),
		NewEvent(SubagentError, "subagentRunId", "s", "message", "m", "code", "c"),
		NewEvent(MessagesSnapshot, "messages", []any{
			map[string]any{"id": "u", "role": "user", "content": []any{map[string]any{"type": "text", "text": "hi"}, map[string]any{"type": "image", "source": map[string]any{"type": "url", "value": "https://x/y.png"}}}},
			map[string]any{"id": "a", "role": "activity", "activityType": "search", "content": map[string]any{"q": "x"}},
			map[string]any{"id": "b", "role": "assistant", "content": "ok", "toolCalls": []any{map[string]any{"id": "c", "type": "function", "function": map[string]any{"name": "f", "arguments": "{}"}}}},
		}),
		NewEvent(ToolCallResult, "messageId", "m", "toolCallId", "c", "content", "42", "role", "tool"),
		NewEvent(StateDelta, "delta", []any{map[string]any{"op": "add", "path": "/a", "value": json.Number("1.5")}, map[string]any{"op": "remove", "path": "/b"}}),
		NewEvent(ReasoningMessageChunk, "messageId", "m", "delta", "d"),
	}
}

// What the .proto cannot carry is named, and the frame leaves it out.
func TestProtoLosses(t *testing.T) {
	for _, tt := range []struct {
		ev   Event
		want string
	}{
		{NewEvent(ThinkingStart), "the event type THINKING_START (the .proto has no message for it)"},
		{NewEvent(TextMessageContent, "messageId", "m", "delta", "d", "extra", 1), "TEXT_MESSAGE_CONTENT.extra"},
		{NewEvent(RunFinished, "threadId", "t", "runId", "r", "outcome", map[string]any{"type": "cancelled", "note": "x"}), "RUN_FINISHED.outcome.note"},
		{NewEvent(TextMessageContent, "messageId", 7, "delta", "d"), "TEXT_MESSAGE_CONTENT.messageId: a string is needed, got a number"},
	} {
		if got := ProtoLosses(tt.ev); !reflect.DeepEqual(got, []string{tt.want}) {
			t.Errorf("%v: %q, want %q", tt.ev, got, tt.want)
		}
	}
	for _, ev := range []Event{NewEvent(ThinkingStart), NewEvent(TextMessageContent, "messageId", 7, "delta", "d")} {
		frame, err := ProtoEncoder{}.AppendFrame([]byte("x"), ev, 1)
		if err != nil || string(frame) != "x" {
			t.Errorf("the frame of %v: %q, %v; want nothing appended", ev, frame, err)
		}
	}
	if got := ProtoLosses(NewEvent(TextMessageContent, "messageId", "m", "delta", "d")); len(got) != 0 {
		t.Errorf("a whole event lost %q", got)
	}
}

func TestProtoFrameReader(t *testing.T) {
	stream := protoFrames(t, NewEvent(RunStarted, "threadId", "t", "runId", "r"), NewEvent(RunFinished, "threadId", "t", "runId", "r"))
	r := NewEventReader(ProtoContentType+"; charset=binary", bytes.NewReader(stream), 1<<10)
	for _, want := range []string{RunStarted, RunFinished} {
		ev, err := r.Next()
		if err != nil || ev.Type != want || ev.Str("runId") != "r" {
			t.Fatalf("%v, %v; want %s", ev, err, want)
		}
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("at the end: %v, want io.EOF", err)
	}

	cut := NewProtoFrameReader(bytes.NewReader(stream[:len(stream)-2]), 1<<10)
	_, _ = cut.Next()
	if _, err := cut.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a frame cut short: %v, want io.ErrUnexpectedEOF", err)
	}
	if _, err := NewProtoFrameReader(bytes.NewReader(stream), 4).Next(); !errors.Is(err, ErrProtoFrameTooLarge) {
		t.Errorf("a frame over the limit: %v, want ErrProtoFrameTooLarge", err)
	}
}

func TestProtoMalformedFrameDoesNotDecode(t *testing.T) {
	frame := ProtoEncoder{}.MalformedFrame()
	if n := binary.BigEndian.Uint32(frame); int(n) != len(frame)-protoLengthSize {
		t.Fatalf("the malformed frame's length %d does not match its %d bytes", n, len(frame)-protoLengthSize)
	}
	if ev, err := NewEventReader(ProtoContentType, bytes.NewReader(frame), 1<<10).Next(); err == nil {
		t.Errorf("the malformed frame decoded as %v", ev)
	}
}

// A frame whose base event declares another type than its oneof member is refused,
// as @ag-ui/proto refuses it.
func TestProtoRefusesAMismatchedBaseType(t *testing.T) {
	frame := protoFrames(t, NewEvent(StepStarted, "stepName", "s"))
	// The envelope member 15 (stepStarted) holds base_event{type: STEP_STARTED (14)}.
	i := bytes.Index(frame, []byte{1<<3 | 0, 14})
	if i < 0 {
		t.Fatalf("no base event type in %x", frame)
	}
	frame[i+1] = 15 // STEP_FINISHED
	if _, err := DecodeProto(frame[protoLengthSize:]); err == nil || !strings.Contains(err.Error(), "declares STEP_FINISHED") {
		t.Errorf("a mismatched base type: %v", err)
	}
}

func TestProtoEventTypeReadsTheOneofMemberAlone(t *testing.T) {
	for _, ev := range protoForms() {
		frame := protoFrames(t, ev)[protoLengthSize:]
		if got, err := ProtoEventType(frame); err != nil || got != ev.Type {
			t.Errorf("%s: %q, %v", ev.Type, got, err)
		}
	}
	for _, bad := range [][]byte{{}, {1<<3 | 0, 1}, {2<<3 | 2, 10, 0}, {15<<3 | 1, 0, 0, 0, 0, 0, 0, 0, 0}, {0x80 | 0x1a, 0x02, 0}} {
		if got, err := ProtoEventType(bad); err == nil {
			t.Errorf("%x: %q, want an error", bad, got)
		}
	}
}
