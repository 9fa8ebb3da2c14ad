package protocol

import "strconv"

// StreamFamily names a kind of streamed text: the deltas of one family under one id
// make up one text together, whichever event type of the family carries them.
type StreamFamily string

// The families of streamed text.
const (
	TextStream      StreamFamily = "text"      // a text message
	ToolArgsStream  StreamFamily = "toolArgs"  // a tool call's arguments
	ReasoningStream StreamFamily = "reasoning" // a reasoning message
	ThinkingStream  StreamFamily = "thinking"  // a THINKING text message (0.0.x), which has no id
)

// streamFamilies is how many families there are: the room StreamTracker has for the
// latest stream of each.
const streamFamilies = 4

// StreamedType describes an event type that carries a piece of a streamed text.
type StreamedType struct {
	Type   string
	Family StreamFamily
	// DeltaField holds the piece; IDField names the stream it belongs to, "" for a
	// family without ids, whose stream is the one its start event opened.
	DeltaField, IDField string
	// Chunk marks the shorthand form, which opens its stream itself: a chunk without
	// the id continues the stream open in its lane (its subagentRunId).
	Chunk bool
	// Start and End open and close the stream; a chunk's stream is closed by the
	// next event that is not a chunk of it, so they are the expanded form's.
	Start, End string
}

// streamedTypes is the one table of the event types that carry streamed deltas.
var streamedTypes = []StreamedType{
	{TextMessageContent, TextStream, "delta", "messageId", false, TextMessageStart, TextMessageEnd},
	{TextMessageChunk, TextStream, "delta", "messageId", true, TextMessageStart, TextMessageEnd},
	{ToolCallArgs, ToolArgsStream, "delta", "toolCallId", false, ToolCallStart, ToolCallEnd},
	{ToolCallChunk, ToolArgsStream, "delta", "toolCallId", true, ToolCallStart, ToolCallEnd},
	{ReasoningMessageContent, ReasoningStream, "delta", "messageId", false, ReasoningMessageStart, ReasoningMessageEnd},
	{ReasoningMessageChunk, ReasoningStream, "delta", "messageId", true, ReasoningMessageStart, ReasoningMessageEnd},
	{ThinkingTextContent, ThinkingStream, "delta", "", false, ThinkingTextStart, ThinkingTextEnd},
}

// streamedByType indexes streamedTypes by type: Streamed is asked of every event a
// server writes.
var streamedByType = func() map[string]StreamedType {
	m := make(map[string]StreamedType, len(streamedTypes))
	for _, s := range streamedTypes {
		m[s.Type] = s
	}
	return m
}()

// StreamedTypes returns the event types that carry streamed deltas, one entry each.
func StreamedTypes() []StreamedType {
	return append([]StreamedType(nil), streamedTypes...)
}

// Streamed returns the description of an event type that carries streamed deltas, and
// whether it is one.
func Streamed(typ string) (StreamedType, bool) {
	s, ok := streamedByType[typ]
	return s, ok
}

// PatchField returns the field of an event type that holds a JSON Patch (RFC 6902),
// and whether it has one: a patch's operations each set a whole value, so its deltas
// make up no text together.
func PatchField(typ string) (string, bool) {
	switch typ {
	case StateDelta:
		return "delta", true
	case ActivityDelta:
		return "patch", true
	}
	return "", false
}

// StreamKey identifies one logical stream of a run: its family and its id. A THINKING
// text message's id is its number in the run, from 1.
type StreamKey struct {
	Family StreamFamily `json:"family"`
	ID     string       `json:"id"`
}

// StreamTracker follows a run's events in order and says which logical stream each
// delta belongs to, as the official client reads them: a chunk without an id continues
// the chunk stream open in its lane, and the content and chunk forms of one message are
// one stream. Where the client would refuse an event (an id-less chunk with nothing
// open), the delta is given to the family's latest stream, so that what belongs
// together is never taken apart. The zero value is ready to use.
type StreamTracker struct {
	lanes    map[string]StreamKey      // subagentRunId → the chunk stream open in that lane
	latest   [streamFamilies]StreamKey // each family's latest stream, in the order first seen
	thinking int                       // THINKING text messages started in the run
}

// Next takes the run's next event and returns the stream its delta belongs to, with the
// description of its type; false when the event carries no streamed delta.
func (t *StreamTracker) Next(ev Event) (StreamKey, StreamedType, bool) {
	s, streamed := Streamed(ev.Type)
	if !streamed {
		t.pass(ev)
		return StreamKey{}, StreamedType{}, false
	}
	if s.IDField == "" {
		return StreamKey{s.Family, strconv.Itoa(t.thinking)}, s, true
	}
	lane := ev.Str("subagentRunId")
	if !s.Chunk {
		delete(t.lanes, lane) // a content event closes the lane's chunk stream
	}
	if id := ev.Str(s.IDField); id != "" {
		key := StreamKey{s.Family, id}
		t.note(key)
		if s.Chunk {
			if t.lanes == nil {
				t.lanes = map[string]StreamKey{}
			}
			t.lanes[lane] = key
		}
		return key, s, true
	}
	if key, ok := t.openChunk(s.Family, lane); ok {
		return key, s, true
	}
	return StreamKey{s.Family, t.latestOf(s.Family)}, s, true
}

// latestOf returns the id of the family's latest stream, "" when it has none.
func (t *StreamTracker) latestOf(family StreamFamily) string {
	for _, key := range t.latest {
		if key.Family == family {
			return key.ID
		}
	}
	return ""
}

// openChunk returns the chunk stream of the family an id-less chunk of the lane
// continues: the lane's own, or for a chunk of no lane the one lane's of the family.
func (t *StreamTracker) openChunk(family StreamFamily, lane string) (StreamKey, bool) {
	if key, ok := t.lanes[lane]; ok && key.Family == family {
		return key, true
	}
	if lane != "" {
		return StreamKey{}, false
	}
	var found []StreamKey
	for _, key := range t.lanes {
		if key.Family == family {
			found = append(found, key)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return StreamKey{}, false
}

// note remembers the latest stream of a family.
func (t *StreamTracker) note(key StreamKey) {
	for i, held := range t.latest {
		if held.Family == key.Family || held.Family == "" {
			t.latest[i] = key
			return
		}
	}
}

// pass follows an event that carries no delta: a run's boundaries forget every stream,
// a start event makes its stream the family's latest, and the events that end a chunk
// stream close their lane's.
func (t *StreamTracker) pass(ev Event) {
	switch ev.Type {
	case RunStarted:
		*t = StreamTracker{}
		return
	case RunFinished, RunError, MessagesSnapshot:
		clear(t.lanes)
		return
	case ThinkingTextStart:
		t.thinking++
		return
	}
	for _, s := range streamedTypes {
		if s.Start == ev.Type && s.IDField != "" {
			if id := ev.Str(s.IDField); id != "" {
				t.note(StreamKey{s.Family, id})
			}
			break
		}
	}
	if knownEvent(ev.Type) && !keepsChunk(ev.Type) {
		delete(t.lanes, ev.Str("subagentRunId"))
	}
}
