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
type Shape struct {
	Steps      []Step
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
		if n := len(sh.Steps); !(isDelta && n > 0 && sh.Steps[n-1] == step) {
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

// Options say what a comparison takes into account beyond the structure.
type Options struct {
	// ExactText compares the text of every message too.
	ExactText bool
	// Timing, when set, compares when the first event after RUN_STARTED and the last
	// event come, within the tolerance.
	Timing *Tolerance
}

// Tolerance is how far a time may be from the fixture's: a fixed duration, or a
// fraction of the fixture's time.
type Tolerance struct {
	Fixed    time.Duration
	Relative float64
}

// allows reports whether got is close enough to want.
func (t Tolerance) allows(want, got time.Duration) bool {
	limit := t.Fixed
	if t.Relative > 0 {
		limit = time.Duration(t.Relative * float64(want))
	}
	d := got - want
	return d <= limit && -d <= limit
}

// String says the tolerance as the flag takes it.
func (t Tolerance) String() string {
	if t.Relative > 0 {
		return fmt.Sprintf("%g%%", t.Relative*100)
	}
	return t.Fixed.String()
}

// Compare lists, in words, how the agent's run differs from the fixture's, the most
// telling difference first: how the run ends, the sequence of events, the interrupts,
// the tools' arguments, the state, and then what the options ask for.
func Compare(fixture, agent Shape, opts Options) []string {
	var diffs []string
	add := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	if fixture.Terminal != agent.Terminal || fixture.Outcome != agent.Outcome {
		add("the run now ends %s (the fixture's ends %s)", ending(agent), ending(fixture))
	}
	if d := sequenceDifference(fixture.Steps, agent.Steps); d != "" {
		add("%s", d)
	}
	if len(fixture.Interrupts) != len(agent.Interrupts) {
		add("the agent now raises %d interrupt(s) (the fixture %d)", len(agent.Interrupts), len(fixture.Interrupts))
	}
	for i := range min(len(fixture.Interrupts), len(agent.Interrupts)) {
		f, a := fixture.Interrupts[i], agent.Interrupts[i]
		if f.Reason != a.Reason {
			add("interrupt %d now has reason %q (the fixture %q)", i+1, a.Reason, f.Reason)
		}
		if f.ResponseSchema != a.ResponseSchema {
			add("interrupt %d now asks for an answer of schema %s (the fixture %s)", i+1, orNone(a.ResponseSchema), orNone(f.ResponseSchema))
		}
	}
	if d := snapshotDifference(fixture.Snapshots, agent.Snapshots); d != "" {
		add("%s", d)
	}
	for _, pair := range pairCalls(fixture.Tools, agent.Tools) {
		if d := valueDifference("", pair[0].Args, pair[1].Args); d != "" {
			add("the arguments of tool %s: %s", pair[0].Name, d)
		}
	}
	added, removed := setDifference(fixture.StatePaths, agent.StatePaths)
	if len(added) > 0 {
		add("the agent now touches state %s", strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		add("the agent no longer touches state %s", strings.Join(removed, ", "))
	}
	if opts.ExactText && !slices.Equal(fixture.Texts, agent.Texts) {
		add("%s", textDifference(fixture.Texts, agent.Texts))
	}
	if t := opts.Timing; t != nil {
		if !t.allows(fixture.FirstStep, agent.FirstStep) {
			add("the first event after RUN_STARTED now comes after %s (the fixture's after %s, tolerance %s)", rounded(agent.FirstStep), rounded(fixture.FirstStep), t)
		}
		if !t.allows(fixture.End, agent.End) {
			add("the run now takes %s (the fixture's %s, tolerance %s)", rounded(agent.End), rounded(fixture.End), t)
		}
	}
	return diffs
}

func rounded(d time.Duration) time.Duration { return d.Round(time.Millisecond) }

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// ending says how a run ends.
func ending(s Shape) string {
	switch {
	case s.Terminal == "":
		return "without a terminal event"
	case s.Outcome == "error":
		return "with " + s.Terminal
	}
	return fmt.Sprintf("with %s (%s)", s.Terminal, s.Outcome)
}

// sequenceDifference says where the agent's sequence of steps first departs from the
// fixture's: a step it now sends, one it no longer sends, or one it sends instead.
func sequenceDifference(fixture, agent []Step) string {
	i := 0
	for i < len(fixture) && i < len(agent) && fixture[i] == agent[i] {
		i++
	}
	after := func() string {
		if i == 0 {
			return "first"
		}
		return "after " + fixture[i-1].String()
	}
	switch {
	case i == len(fixture) && i == len(agent):
		return ""
	case i == len(fixture):
		return fmt.Sprintf("the agent now sends %s %s, where the fixture's run ends", agent[i], after())
	case i == len(agent):
		return fmt.Sprintf("the agent no longer sends %s %s", fixture[i], after())
	}
	// The nearest point where the two sequences meet again says whether steps were added
	// (a tool call is three) or left out.
	for k := 1; i+k < max(len(fixture), len(agent)); k++ {
		switch {
		case i+k < len(agent) && agent[i+k] == fixture[i]:
			return fmt.Sprintf("the agent now sends %s before %s", agent[i], fixture[i])
		case i+k < len(fixture) && fixture[i+k] == agent[i]:
			return fmt.Sprintf("the agent no longer sends %s %s", fixture[i], after())
		}
	}
	return fmt.Sprintf("the agent now sends %s where the fixture has %s", agent[i], fixture[i])
}

// snapshotDifference says where the messages of the agent's snapshots first depart from
// the fixture's: a message of another role or calling other tools, or messages added or
// gone. Snapshots added or gone are the sequence's difference.
func snapshotDifference(fixture, agent [][]SnapshotMessage) string {
	for i := range min(len(fixture), len(agent)) {
		f, a := fixture[i], agent[i]
		for j := range min(len(f), len(a)) {
			if f[j].Role != a[j].Role || !slices.Equal(f[j].Tools, a[j].Tools) {
				return fmt.Sprintf("message %d of MESSAGES_SNAPSHOT %d is now %s (the fixture's is %s)", j+1, i+1, a[j], f[j])
			}
		}
		switch {
		case len(a) > len(f):
			return fmt.Sprintf("MESSAGES_SNAPSHOT %d now ends with %s more: %s", i+1, count(len(a)-len(f), "message"), a[len(f)])
		case len(a) < len(f):
			return fmt.Sprintf("MESSAGES_SNAPSHOT %d no longer ends with %s: %s", i+1, count(len(f)-len(a), "message"), f[len(a)])
		}
	}
	return ""
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// pairCalls pairs the n-th call of each tool in the fixture with the n-th call of the
// same tool by the agent: a call added or left out is the sequence's difference, and
// does not shift the comparison of the others.
func pairCalls(fixture, agent []ToolCall) [][2]ToolCall {
	var pairs [][2]ToolCall
	used := make([]bool, len(agent))
	for _, f := range fixture {
		for j, a := range agent {
			if !used[j] && a.Name == f.Name {
				used[j] = true
				pairs = append(pairs, [2]ToolCall{f, a})
				break
			}
		}
	}
	return pairs
}

// valueDifference says where the shape of a JSON value first departs from the
// fixture's: a member added or gone, or a value of another type. Arrays are compared by
// their first elements; how many elements there are is data.
func valueDifference(path string, fixture, agent any) string {
	name := path
	if name == "" {
		name = "the arguments"
	} else {
		name = "argument " + strings.TrimPrefix(path, ".")
	}
	fk, ak := protocol.JSONKind(fixture), protocol.JSONKind(agent)
	if fk != ak {
		return fmt.Sprintf("%s is now %s (the fixture has %s)", name, ak, fk)
	}
	switch f := fixture.(type) {
	case map[string]any:
		a := agent.(map[string]any)
		added, removed := setDifference(slices.Sorted(maps.Keys(f)), slices.Sorted(maps.Keys(a)))
		if len(added) > 0 {
			return fmt.Sprintf("the agent now sends %s", memberList(path, added))
		}
		if len(removed) > 0 {
			return fmt.Sprintf("the agent no longer sends %s", memberList(path, removed))
		}
		for _, k := range slices.Sorted(maps.Keys(f)) {
			if d := valueDifference(path+"."+k, f[k], a[k]); d != "" {
				return d
			}
		}
	case []any:
		a := agent.([]any)
		if len(f) > 0 && len(a) > 0 {
			return valueDifference(path+"[]", f[0], a[0])
		}
	}
	return ""
}

// memberList names members of the object at path.
func memberList(path string, keys []string) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = strings.TrimPrefix(path+"."+k, ".")
	}
	word := "argument "
	if len(names) > 1 {
		word = "arguments "
	}
	return word + strings.Join(names, ", ")
}

// setDifference lists what b has that a lacks, and what a has that b lacks; both sorted.
func setDifference(a, b []string) (added, removed []string) {
	for _, s := range b {
		if !slices.Contains(a, s) {
			added = append(added, s)
		}
	}
	for _, s := range a {
		if !slices.Contains(b, s) {
			removed = append(removed, s)
		}
	}
	return added, removed
}

// textDifference says which message's text first differs.
func textDifference(fixture, agent []string) string {
	for i := range min(len(fixture), len(agent)) {
		if fixture[i] != agent[i] {
			return fmt.Sprintf("text message %d now says %q (the fixture %q)", i+1, clip(agent[i]), clip(fixture[i]))
		}
	}
	return fmt.Sprintf("the agent now sends %d text message(s) (the fixture %d)", len(agent), len(fixture))
}

// clip shortens a text for a message.
func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}
