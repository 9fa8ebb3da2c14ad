package protocol

import (
	"slices"
	"testing"

	"github.com/agui-mock/agui-mock/internal/spectest"
)

// deltaTypes lists the event types whose definitions carry a delta, from the official
// schema and from the protocol's own event definitions (the deprecated THINKING family
// is not in the 1.1 schema), with the member that carries it.
func deltaTypes(t *testing.T) map[string]string {
	found := spectest.DeltaEvents(t)
	for typ, specs := range eventFields {
		for _, s := range specs {
			if s.name == "delta" || s.name == "patch" {
				if name, ok := found[typ]; ok && name != s.name {
					t.Errorf("%s: the schema's delta is %s, the protocol's %s", typ, name, s.name)
				}
				found[typ] = s.name
			}
		}
	}
	return found
}

// TestEveryEventWithADeltaIsDescribed walks every event type that carries a delta: each
// is a streamed type of the table, with its delta, id, start and end events as the
// event definitions have them, or a JSON Patch.
func TestEveryEventWithADeltaIsDescribed(t *testing.T) {
	found := deltaTypes(t)
	for _, want := range []string{TextMessageChunk, ReasoningMessageChunk, ThinkingTextContent, ActivityDelta} {
		if _, ok := found[want]; !ok {
			t.Fatalf("the event definitions were not read: %s is not among %v", want, found)
		}
	}
	for typ, field := range found {
		s, streamed := Streamed(typ)
		patch, isPatch := PatchField(typ)
		switch {
		case streamed && isPatch:
			t.Errorf("%s is both streamed and a patch", typ)
		case isPatch:
			if patch != field {
				t.Errorf("%s: the patch is in %s, not %s", typ, field, patch)
			}
		case !streamed:
			t.Errorf("%s carries a delta in %s, but the table of streamed types has no entry for it", typ, field)
		case s.DeltaField != field || !IsStringField(typ, field):
			t.Errorf("%s: its delta is the string %s, the table says %s", typ, field, s.DeltaField)
		}
	}
	families := map[StreamFamily][]StreamedType{}
	for _, s := range StreamedTypes() {
		if _, ok := found[s.Type]; !ok {
			t.Errorf("%s is in the table but carries no delta", s.Type)
		}
		families[s.Family] = append(families[s.Family], s)
		for _, typ := range []string{s.Start, s.End} {
			if !knownEvent(typ) {
				t.Errorf("%s: its stream opens or closes with %q, not an event type", s.Type, typ)
			}
		}
		if s.IDField == "" {
			if s.Chunk {
				t.Errorf("%s: a chunk needs an id", s.Type)
			}
			continue
		}
		for _, typ := range []string{s.Type, s.Start, s.End} {
			if !IsStringField(typ, s.IDField) {
				t.Errorf("%s has no string %s to name the stream", typ, s.IDField)
			}
		}
	}
	for f, types := range families {
		if n := len(types); n > 2 || (n == 2 && types[0].Chunk == types[1].Chunk) || contentOf(f).Type == "" {
			t.Errorf("the family %s needs one content form and at most one chunk form: %v", f, types)
		}
	}
	if _, ok := PatchField(RunStarted); ok {
		t.Error("RUN_STARTED has no patch")
	}
}

// TestDeltasBelongToTheirLogicalStream follows runs through a StreamTracker: an id-less
// chunk continues the stream open in its lane, the content and chunk forms of one
// message are one stream, each THINKING text message is a stream of its own, and a run
// forgets the streams of the one before.
func TestDeltasBelongToTheirLogicalStream(t *testing.T) {
	ev := NewEvent
	tests := []struct {
		name   string
		events []Event
		want   []StreamKey // the stream of each event with a delta, in order
	}{
		{"an id-less text chunk continues the open one", []Event{
			ev(TextMessageChunk, "messageId", "m1", "delta", "a"), ev(TextMessageChunk, "delta", "b"), ev(Raw, "event", nil), ev(TextMessageChunk, "delta", "c"),
		}, []StreamKey{{TextStream, "m1"}, {TextStream, "m1"}, {TextStream, "m1"}}},
		{"content and chunk forms of one message", []Event{
			ev(TextMessageStart, "messageId", "m1"), ev(TextMessageContent, "messageId", "m1", "delta", "a"), ev(TextMessageChunk, "messageId", "m1", "delta", "b"),
		}, []StreamKey{{TextStream, "m1"}, {TextStream, "m1"}}},
		{"an id-less chunk after a started message belongs to it", []Event{
			ev(ReasoningMessageStart, "messageId", "r1", "role", "reasoning"), ev(ReasoningMessageChunk, "delta", "a"),
		}, []StreamKey{{ReasoningStream, "r1"}}},
		{"a chunk stream closed by another event: the family's latest", []Event{
			ev(ReasoningMessageChunk, "messageId", "r1", "delta", "a"), ev(TextMessageStart, "messageId", "m1"), ev(ReasoningMessageChunk, "delta", "b"),
		}, []StreamKey{{ReasoningStream, "r1"}, {ReasoningStream, "r1"}}},
		{"lanes of subagents", []Event{
			ev(ToolCallChunk, "toolCallId", "c1", "toolCallName", "a", "subagentRunId", "s1", "delta", "{"),
			ev(ToolCallChunk, "toolCallId", "c2", "toolCallName", "b", "subagentRunId", "s2", "delta", "["),
			ev(ToolCallChunk, "subagentRunId", "s1", "delta", "}"),
			ev(ToolCallChunk, "subagentRunId", "s2", "delta", "]"),
		}, []StreamKey{{ToolArgsStream, "c1"}, {ToolArgsStream, "c2"}, {ToolArgsStream, "c1"}, {ToolArgsStream, "c2"}}},
		{"an id-less chunk of no lane continues the one open lane", []Event{
			ev(TextMessageChunk, "messageId", "m1", "subagentRunId", "s1", "delta", "a"), ev(TextMessageChunk, "delta", "b"),
		}, []StreamKey{{TextStream, "m1"}, {TextStream, "m1"}}},
		{"one THINKING stream per start and end", []Event{
			ev(ThinkingTextStart), ev(ThinkingTextContent, "delta", "a"), ev(ThinkingTextContent, "delta", "b"), ev(ThinkingTextEnd),
			ev(ThinkingTextStart), ev(ThinkingTextContent, "delta", "c"), ev(ThinkingTextEnd),
		}, []StreamKey{{ThinkingStream, "1"}, {ThinkingStream, "1"}, {ThinkingStream, "2"}}},
		{"a new run forgets the last one's streams", []Event{
			ev(TextMessageChunk, "messageId", "m1", "delta", "a"), ev(RunStarted, "threadId", "t", "runId", "r2"), ev(TextMessageChunk, "delta", "b"),
		}, []StreamKey{{TextStream, "m1"}, {TextStream, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tracker StreamTracker
			var got []StreamKey
			for _, e := range tt.events {
				if key, s, ok := tracker.Next(e); ok {
					if s.Type != e.Type {
						t.Errorf("%s described as %s", e.Type, s.Type)
					}
					got = append(got, key)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("streams %v, want %v", got, tt.want)
			}
		})
	}
}

// TestStreamTrackerHasRoomForEveryFamily: the tracker keeps the latest stream of as many
// families as there are, so that noting one never goes without a slot.
func TestStreamTrackerHasRoomForEveryFamily(t *testing.T) {
	families := map[StreamFamily]bool{}
	for _, s := range streamedTypes {
		families[s.Family] = true
	}
	if len(families) != streamFamilies {
		t.Fatalf("%d stream families in streamedTypes, room for %d (streamFamilies)", len(families), streamFamilies)
	}
	var tr StreamTracker
	for f := range families {
		tr.note(StreamKey{f, "id-" + string(f)})
	}
	for f := range families {
		if got := tr.latestOf(f); got != "id-"+string(f) {
			t.Errorf("latest %s stream %q, want %q", f, got, "id-"+string(f))
		}
	}
}
