package verify

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// Shape is the structure of one run's stream, what verify compares: its events in order
// with the names that make them what they are (a run of content deltas counting as one),
// the tools it calls and the shape of their arguments (streamed, or delivered inside a
// MESSAGES_SNAPSHOT), the messages of each snapshot, the state paths it touches, the
// interrupts it raises and how it ends. Text, ids and timestamps are left out; the text
// and the timing are kept apart, for the comparisons that ask for them.
//
// Some events come as often as the agent's scheduling has them, not its answer: snapshots
// (MESSAGES_SNAPSHOT, STATE_SNAPSHOT) send again what the client holds — LangGraph's
// subgraphs send one as each of their steps ends, in an order that differs from run to
// run — and RAW events pass on the framework's own, one per chunk of text
// (@ag-ui/langgraph sends one after every event). So the steps leave them out: what
// counts is which of these kinds the run sends (Unordered), the state paths snapshots
// touch, and the messages of the last MESSAGES_SNAPSHOT.
type Shape struct {
	Steps      []Step
	Unordered  []string // the kinds of event compared by their presence alone, sorted
	Tools      []ToolCall
	Snapshots  [][]SnapshotMessage // the messages of each MESSAGES_SNAPSHOT, in order
	StatePaths []string            // sorted, array indices as *
	Interrupts []Interrupt
	// Terminal is the event that ended the run (RUN_FINISHED or RUN_ERROR), "" when none
	// did; Outcome is how it ended: success, interrupt or error.
	Terminal, Outcome string
	Texts             []string      // the text of each text message, in order of start
	FirstStep, End    time.Duration // when the first event after RUN_STARTED and the last event came
}

// Step is one event of the sequence, or a run of content deltas of one type.
type Step struct {
	Type string
	// Name is a tool call's tool, a step's name, a custom event's name, an activity's
	// type, a subagent's name, or how a subagent's segment ended (SUBAGENT_FINISHED).
	Name string
	// Subagent is the name of the subagent invocation the event belongs to (the one a
	// SUBAGENT_STARTED is spawned by, the one a SUBAGENT_FINISHED or SUBAGENT_ERROR
	// ends), "" for the agent's own.
	Subagent string
}

// String names the step as a difference says it.
func (s Step) String() string {
	out := s.Type
	if s.Name != "" {
		out += " " + s.Name
	}
	if s.Subagent != "" {
		out += " (in subagent " + s.Subagent + ")"
	}
	return out
}

// subagentOf returns the name of the subagent invocation an event belongs to, by the
// names its SUBAGENT_STARTED gave the invocations so far.
func subagentOf(ev protocol.Event, names map[string]string) string {
	id := ev.Str("subagentRunId")
	switch ev.Type {
	case protocol.SubagentStarted:
		names[id] = ev.Str("name")
		id = ev.Str("parentSubagentRunId")
	case protocol.SubagentFinished, protocol.SubagentError:
	default:
		if !protocol.Attributable(ev.Type) {
			return ""
		}
	}
	if id == "" {
		return ""
	}
	if name, ok := names[id]; ok {
		return name
	}
	return "unannounced"
}

// stepName is the name of an event's step.
func stepName(ev protocol.Event) string {
	if ev.Type == protocol.SubagentFinished {
		if o, _ := ev.Get("outcome"); o != nil {
			if t, ok := o.(map[string]any)["type"].(string); ok {
				return t
			}
		}
		return "success"
	}
	return ev.Str(nameFields[ev.Type])
}

// ToolCall is a tool a run calls and its arguments as sent, decoded (nil when they are
// not JSON).
type ToolCall struct {
	Name string
	Args any
	raw  string
}

// SnapshotMessage is a message of a MESSAGES_SNAPSHOT as far as its structure goes: its
// role, the tools an assistant message calls, the tool whose call a tool message
// answers. Its text and ids are data.
type SnapshotMessage struct {
	Role  string
	Tools []string
}

// String names the message as a difference says it.
func (m SnapshotMessage) String() string {
	switch {
	case m.Role == "tool" && len(m.Tools) > 0:
		return "a tool message answering " + m.Tools[0]
	case len(m.Tools) > 0:
		return fmt.Sprintf("a%s %s message calling %s", article(m.Role), m.Role, strings.Join(m.Tools, ", "))
	}
	return fmt.Sprintf("a%s %s message", article(m.Role), m.Role)
}

func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "n"
	}
	return ""
}

// Interrupt is an interrupt a run ends with: why, and the schema its answer must meet
// with its wording (titles, descriptions, examples) left out.
type Interrupt struct {
	Reason         string
	ResponseSchema string
}

// nameFields says which field names an event of each type: the name is part of its step.
var nameFields = map[string]string{
	protocol.ToolCallStart: "toolCallName", protocol.ToolCallChunk: "toolCallName",
	protocol.StepStarted: "stepName", protocol.StepFinished: "stepName",
	protocol.Custom: "name", protocol.SubagentStarted: "name",
	protocol.ActivitySnapshot: "activityType", protocol.ActivityDelta: "activityType",
}

// ShapeOf reads the shape of a run from its events and, for each, when it came after
// the run began (at may be nil when the timing does not matter).
func ShapeOf(events []protocol.Event, at []time.Duration) Shape {
	var sh Shape
	calls := map[string]int{} // tool call id → index in sh.Tools
	texts := map[string]int{} // text message id → index in sh.Texts
	var text []*strings.Builder
	paths := map[string]bool{}
	var streams protocol.StreamTracker
	subagents := map[string]string{} // subagentRunId → the subagent's name
	unordered := map[string]bool{}
	for i, ev := range events {
		if i < len(at) {
			if sh.FirstStep == 0 && ev.Type != protocol.RunStarted {
				sh.FirstStep = at[i]
			}
			sh.End = at[i]
		}
		// a run of content deltas of one type is one step
		stream, streamed, isDelta := streams.Next(ev)
		step := Step{Type: ev.Type, Name: stepName(ev), Subagent: subagentOf(ev, subagents)}
		switch n := len(sh.Steps); {
		case ev.Type == protocol.MessagesSnapshot || ev.Type == protocol.StateSnapshot || ev.Type == protocol.Raw:
			unordered[ev.Type] = true
		case !(isDelta && n > 0 && sh.Steps[n-1] == step):
			sh.Steps = append(sh.Steps, step)
		}
		if isDelta {
			delta := ev.Str(streamed.DeltaField)
			switch stream.Family {
			case protocol.ToolArgsStream:
				if !known(calls, stream.ID) && stream.ID != "" && streamed.Chunk {
					calls[stream.ID] = len(sh.Tools)
					sh.Tools = append(sh.Tools, ToolCall{Name: ev.Str("toolCallName")})
				}
				if k, ok := calls[stream.ID]; ok {
					sh.Tools[k].raw += delta
				}
			case protocol.TextStream:
				text[textOf(texts, &text, stream.ID)].WriteString(delta)
			}
			continue
		}
		switch ev.Type {
		case protocol.ToolCallStart:
			if id := ev.Str("toolCallId"); !known(calls, id) {
				calls[id] = len(sh.Tools)
				sh.Tools = append(sh.Tools, ToolCall{Name: ev.Str("toolCallName")})
			}
		case protocol.TextMessageStart:
			textOf(texts, &text, ev.Str("messageId"))
		case protocol.StateDelta:
			ops, _ := ev.Get("delta")
			list, _ := ops.([]any)
			for _, op := range list {
				if m, ok := op.(map[string]any); ok {
					if p, ok := m["path"].(string); ok {
						paths[generalPath(p)] = true
					}
				}
			}
		case protocol.StateSnapshot:
			snapshot, _ := ev.Get("snapshot")
			memberPaths("", snapshot, paths)
		case protocol.MessagesSnapshot:
			sh.Snapshots = append(sh.Snapshots, snapshotShape(&sh, calls, ev))
		case protocol.RunFinished, protocol.RunError:
			sh.Terminal, sh.Outcome = ev.Type, outcomeOf(ev)
			sh.Interrupts = interruptsOf(ev)
		}
	}
	for i := range sh.Tools {
		if v, err := protocol.DecodeJSON([]byte(sh.Tools[i].raw)); err == nil {
			sh.Tools[i].Args = v
		}
	}
	for _, b := range text {
		sh.Texts = append(sh.Texts, b.String())
	}
	sh.StatePaths = slices.Sorted(maps.Keys(paths))
	sh.Unordered = slices.Sorted(maps.Keys(unordered))
	return sh
}

// known reports whether a tool call of the id was seen.
func known(calls map[string]int, id string) bool {
	_, ok := calls[id]
	return ok
}

// textOf returns the index of a text message's text, by its id, starting one for a
// message not seen before.
func textOf(texts map[string]int, text *[]*strings.Builder, id string) int {
	k, ok := texts[id]
	if !ok {
		k = len(*text)
		texts[id] = k
		*text = append(*text, &strings.Builder{}) // a pointer: a Builder must not be copied
	}
	return k
}

// snapshotShape reads the messages of a MESSAGES_SNAPSHOT, and adds the tool calls of
// its assistant messages that the run has not streamed to the run's calls, with their
// arguments: a tool the agent calls inside a snapshot is a tool it calls.
func snapshotShape(sh *Shape, calls map[string]int, ev protocol.Event) []SnapshotMessage {
	v, _ := ev.Get("messages")
	list, _ := v.([]any)
	names := map[string]string{} // tool call id → tool
	out := make([]SnapshotMessage, 0, len(list))
	for _, item := range list {
		m, _ := item.(map[string]any)
		msg := SnapshotMessage{}
		msg.Role, _ = m["role"].(string)
		toolCalls, _ := m["toolCalls"].([]any)
		for _, tc := range toolCalls {
			call, _ := tc.(map[string]any)
			fn, _ := call["function"].(map[string]any)
			id, _ := call["id"].(string)
			name, _ := fn["name"].(string)
			args, _ := fn["arguments"].(string)
			names[id] = name
			msg.Tools = append(msg.Tools, name)
			if _, streamed := calls[id]; !streamed {
				calls[id] = len(sh.Tools)
				sh.Tools = append(sh.Tools, ToolCall{Name: name, raw: args})
			}
		}
		if id, ok := m["toolCallId"].(string); ok && msg.Role == "tool" {
			if name, known := names[id]; known {
				msg.Tools = []string{name}
			}
		}
		out = append(out, msg)
	}
	return out
}

// outcomeOf says how a terminal event ends its run.
func outcomeOf(ev protocol.Event) string {
	if ev.Type == protocol.RunError {
		return "error"
	}
	if typ, ok := ev.Outcome()["type"].(string); ok && typ != "" {
		return typ
	}
	return "success"
}

// interruptsOf reads the interrupts of a RUN_FINISHED outcome.
func interruptsOf(ev protocol.Event) []Interrupt {
	list, _ := ev.Outcome()["interrupts"].([]any)
	var out []Interrupt
	for _, item := range list {
		wire, _ := item.(map[string]any)
		in := Interrupt{}
		in.Reason, _ = wire["reason"].(string)
		if schema, ok := wire["responseSchema"]; ok {
			b, _ := json.Marshal(withoutWording(schema))
			in.ResponseSchema = string(b)
		}
		out = append(out, in)
	}
	return out
}

// wordingKeys are the members of a JSON Schema that say things to people rather than
// constrain the answer.
var wordingKeys = []string{"title", "description", "examples", "$comment"}

// withoutWording is a JSON Schema without its wording, at every level.
func withoutWording(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, member := range x {
			if !slices.Contains(wordingKeys, k) {
				out[k] = withoutWording(member)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = withoutWording(item)
		}
		return out
	}
	return v
}

// generalPath is a JSON Pointer with its array indices (and the append marker -) as *,
// since which element a run touches is data, not structure.
func generalPath(p string) string {
	parts := strings.Split(p, "/")
	for i, part := range parts {
		if part == "-" || (part != "" && strings.Trim(part, "0123456789") == "") {
			parts[i] = "*"
		}
	}
	return strings.Join(parts, "/")
}

// memberPaths adds the path of every member of a state snapshot's objects.
func memberPaths(prefix string, v any, paths map[string]bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for k, member := range m {
		p := prefix + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
		paths[p] = true
		memberPaths(p, member, paths)
	}
}
