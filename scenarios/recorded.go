package scenarios

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/protocol"
)

// Recorded is a scenario as a recording writes it: the explicit events form, selected by
// the request its first run answered, which its example repeats. It marshals itself as
// the recorder writes it: its members in the order below, each event on a line of its
// own. Parse reads what it writes back as the same scenario.
type Recorded struct {
	Comment     string // written above the scenario: where and when it was recorded
	ID          string
	Description string
	Broken      string          // for a recording kept apart: why it is incomplete
	Stopped     string          // for a run the client stopped: why it stops without a terminal event
	Breaks      []protocol.Rule // the producer rules the agent broke in its runs, as recorded
	Match       RecordedMatch
	Examples    []Example
	Events      []RecordedEvent
	Dialect     Dialect // written when set
	Next        []RecordedBranch
}

// RecordedMatch is what selects a recorded scenario; a part left empty is not written.
type RecordedMatch struct {
	Route          string
	Message        string // a pattern
	ForwardedProps map[string]any
	Conversation   []RecordedMessage
}

// RecordedMessage is an item of a recorded match's conversation: a message's role, and
// the pattern its text must match ("" for any text).
type RecordedMessage struct {
	Role, Pattern string
}

// RecordedEvent is an event of a recorded run: how long after the previous one it came,
// in whole milliseconds, its type, and its fields. A field's value is a JSON value as
// encoding/json decodes it (numbers as json.Number or float64); its strings may be
// templates. Order is the order of the members of the objects in the fields, as the
// agent wrote them (protocol.Event's Order): they are written in it.
type RecordedEvent struct {
	Delay  time.Duration
	Type   string
	Fields []protocol.Field
	Order  *protocol.KeyOrder
}

// RecordedBranch is a continuation of a recorded run: the run that answered it with
// When, and the continuations of that run.
type RecordedBranch struct {
	When    RecordedWhen
	Stopped string // for a run the client stopped: why it stops without a terminal event
	Events  []RecordedEvent
	Next    []RecordedBranch
}

// RecordedWhen is what chooses a recorded continuation: the answers its run brought, in
// the order the run before raised what they answer. They are a status and payload per
// interrupt or, when it answered none, a pattern per frontend tool call's result.
type RecordedWhen struct {
	Resume      []Answer
	ToolResults []string
}

// MarshalYAML writes the scenario as a YAML mapping.
func (r Recorded) MarshalYAML() (any, error) { return r.node(), nil }

func (r Recorded) node() *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, HeadComment: r.Comment}
	setMember(m, keyID, str(r.ID))
	setMember(m, keyDescription, str(r.Description))
	if r.Broken != "" {
		setMember(m, keyBroken, str(r.Broken))
	}
	if r.Stopped != "" {
		setMember(m, keyStopped, str(r.Stopped))
	}
	if len(r.Breaks) > 0 {
		setMember(m, keyBreaks, breaksNode(r.Breaks))
	}
	if match := r.Match.node(); len(match.Content) > 0 {
		setMember(m, keyMatch, match)
	}
	if len(r.Examples) > 0 {
		examples := &yaml.Node{Kind: yaml.SequenceNode}
		for _, ex := range r.Examples {
			examples.Content = append(examples.Content, exampleNode(ex))
		}
		setMember(m, keyExamples, examples)
	}
	setMember(m, keyEvents, eventsNode(r.Events))
	if r.Dialect != "" {
		setMember(m, keyDialect, str(string(r.Dialect)))
	}
	if len(r.Next) > 0 {
		setMember(m, keyNext, branchesNode(r.Next))
	}
	return m
}

func (m RecordedMatch) node() *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for i := range criteria {
		if write := criteria[i].writeMatch; write != nil {
			if v := write(&m); v != nil {
				setMember(n, criteria[i].name, v)
			}
		}
	}
	return n
}

// conversationNode writes a recorded match's conversation: each message's role, or its
// role and the pattern its text matches.
func conversationNode(conversation []RecordedMessage) *yaml.Node {
	items := &yaml.Node{Kind: yaml.SequenceNode}
	for _, msg := range conversation {
		item := str(msg.Role)
		if msg.Pattern != "" {
			item = &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str(msg.Role), str(msg.Pattern)}}
		}
		items.Content = append(items.Content, item)
	}
	return items
}

// namesScenario reports forwardedProps that name the scenario to play, as a match on
// them selects a recording; they are written beside the message.
func namesScenario(props map[string]any) bool {
	_, ok := props["scenario_name"].(string)
	return ok
}

// exampleNode writes an example on one line, or, when it has a conversation, as a
// block with a message on each line: each part as its row of criteria writes it, in
// the order the rows place them. Its tools are names, or definitions where the client
// gave more than a name.
func exampleNode(ex Example) *yaml.Node {
	type written struct {
		at  int
		key string
		v   *yaml.Node
	}
	var parts []written
	for i := range criteria {
		if write := criteria[i].writeExample; write != nil {
			if v, at := write(&ex); v != nil {
				parts = append(parts, written{at, criteria[i].name, v})
			}
		}
	}
	slices.SortStableFunc(parts, func(a, b written) int { return a.at - b.at })
	n := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	if len(ex.Conversation) > 0 {
		n.Style = 0
	}
	for _, p := range parts {
		setMember(n, p.key, p.v)
	}
	return n
}

// messageNode writes a message on one line, its role and content first, as a person
// reads it.
func messageNode(m map[string]any) *yaml.Node {
	n := valueNode(m)
	first := func(key string) int {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return i
			}
		}
		return -1
	}
	for at, key := range []string{"role", "content"} {
		if i := first(key); i > 2*at {
			pair := slices.Clone(n.Content[i : i+2])
			n.Content = slices.Delete(n.Content, i, i+2)
			n.Content = slices.Insert(n.Content, 2*at, pair...)
		}
	}
	return n
}

func toolNode(t ExampleTool) *yaml.Node {
	if t.Description == "" && t.Parameters == nil && t.Metadata == nil {
		return str(t.Name)
	}
	tool := map[string]any{keyName: t.Name}
	if t.Description != "" {
		tool[keyDescription] = t.Description
	}
	if t.Parameters != nil {
		tool[keyParameters] = t.Parameters
	}
	if t.Metadata != nil {
		tool[keyMetadata] = t.Metadata
	}
	return valueNode(tool)
}

// eventsNode writes a run's events, each on one line: its delay, when it has one, its
// type, then its fields in order, the members of their objects in the agent's order.
func eventsNode(events []RecordedEvent) *yaml.Node {
	list := &yaml.Node{Kind: yaml.SequenceNode, Content: make([]*yaml.Node, 0, len(events))}
	for _, ev := range events {
		m := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		if ms := ev.Delay.Milliseconds(); ms > 0 {
			setMember(m, keyDelay, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(ms, 10)})
		}
		setMember(m, keyType, str(ev.Type))
		for _, f := range ev.Fields {
			m.Content = append(m.Content, str(f.Name), orderedValueNode(f.Value, ev.Order.Member(f.Name)))
		}
		list.Content = append(list.Content, m)
	}
	return list
}

func branchesNode(branches []RecordedBranch) *yaml.Node {
	list := &yaml.Node{Kind: yaml.SequenceNode}
	for _, b := range branches {
		m := &yaml.Node{Kind: yaml.MappingNode}
		setMember(m, keyWhen, b.When.node())
		if b.Stopped != "" {
			setMember(m, keyStopped, str(b.Stopped))
		}
		setMember(m, keyEvents, eventsNode(b.Events))
		if len(b.Next) > 0 {
			setMember(m, keyNext, branchesNode(b.Next))
		}
		list.Content = append(list.Content, m)
	}
	return list
}

// value is the when as plain values: what it is written from, and compared by.
func (w RecordedWhen) value() map[string]any {
	if len(w.Resume) > 0 {
		resume := make([]any, len(w.Resume))
		for i, a := range w.Resume {
			c := map[string]any{keyStatus: a.Status}
			if a.Payload != nil {
				c[keyPayload] = a.Payload
			}
			resume[i] = c
		}
		return map[string]any{keyResume: resume}
	}
	results := make([]any, len(w.ToolResults))
	for i, r := range w.ToolResults {
		results[i] = r
	}
	return map[string]any{keyToolResults: results}
}

// node writes the when on one line.
func (w RecordedWhen) node() *yaml.Node { return valueNode(w.value()) }

// whenKey is the canonical form of a when as written in a file.
func whenKey(n *yaml.Node) string {
	var v any
	if err := n.Decode(&v); err != nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// A Recording is the document of a recorded scenario's file, as a YAML tree that later
// recordings add to: a file edited by hand keeps its comments and order.
type Recording struct{ root *yaml.Node }

// Recording starts a recording's document with the scenario.
func (r Recorded) Recording() *Recording { return &Recording{root: r.node()} }

// ReadRecording reads back the document of a recorded scenario's file.
func ReadRecording(file string, data []byte) (*Recording, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s is not a recorded fixture: %w", file, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s is not a recorded fixture: it holds no scenario", file)
	}
	return &Recording{root: doc.Content[0]}, nil
}

// MarshalYAML writes the recording's document.
func (rec *Recording) MarshalYAML() (any, error) { return rec.root, nil }

// Place stores a run's events in the recording: as its first run for an empty path, or
// as the continuation reached by following path's answers, replacing what an earlier
// recording with the same answers left there and keeping what follows it. A
// continuation the client stopped while it was recorded is placed with stopped, why it
// stops without a terminal event (see Recorded.Stopped), and nothing follows it; a
// complete one ("") replaces a stopped one.
func (rec *Recording) Place(path []RecordedWhen, events []RecordedEvent, stopped string) error {
	run := rec.root
	for depth, when := range path {
		next := member(run, keyNext)
		if next == nil {
			next = &yaml.Node{Kind: yaml.SequenceNode}
			setMember(run, keyNext, next)
		}
		written := when.node()
		var found *yaml.Node
		for _, branch := range next.Content {
			if w := member(branch, keyWhen); w != nil && whenKey(w) == whenKey(written) {
				found = branch
				break
			}
		}
		if found == nil {
			if depth < len(path)-1 {
				return errors.New("the recording's earlier run is missing from the fixture")
			}
			found = &yaml.Node{Kind: yaml.MappingNode}
			setMember(found, keyWhen, written)
			next.Content = append(next.Content, found)
		}
		run = found
	}
	setMember(run, keyEvents, eventsNode(events))
	if len(path) == 0 {
		return nil
	}
	deleteMember(run, keyStopped)
	if stopped != "" {
		deleteMember(run, keyNext)
		at := slices.IndexFunc(run.Content, func(n *yaml.Node) bool { return n.Value == keyEvents })
		run.Content = slices.Insert(run.Content, at, str(keyStopped), str(stopped))
	}
	return nil
}

// deleteMember removes key from a mapping node, if it is there.
func deleteMember(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = slices.Delete(m.Content, i, i+2)
			return
		}
	}
}

// SetDialect sets the recording's dialect.
func (rec *Recording) SetDialect(d Dialect) { setMember(rec.root, keyDialect, str(string(d))) }

// KeepNext gives the recording the continuations an earlier recording of its first run
// holds, as they are written there.
func (rec *Recording) KeepNext(earlier *Recording) {
	if next := member(earlier.root, keyNext); next != nil {
		setMember(rec.root, keyNext, next)
		rec.MarkBreaks(earlier.Breaks()) // the continuations kept may break them
	}
}

// keptMembers are what a scenario re-recorded in place keeps of itself: what selects it
// and documents it, so that it answers the requests it answered before.
var keptMembers = []string{keyDescription, keyPriority, keyMatch, keyExamples}

// InPlaceOf is the recording as it replaces the scenario old of a file (a mapping): under
// id, with the description, priority, match and examples old had, and comment above it.
func (rec *Recording) InPlaceOf(old *yaml.Node, id, comment string) *yaml.Node {
	fresh := &yaml.Node{Kind: yaml.MappingNode}
	setMember(fresh, keyID, str(id))
	for _, key := range keptMembers {
		if v := member(old, key); v != nil {
			setMember(fresh, key, v)
		}
	}
	for i := 0; i+1 < len(rec.root.Content); i += 2 {
		if key := rec.root.Content[i].Value; member(fresh, key) == nil {
			setMember(fresh, key, rec.root.Content[i+1])
		}
	}
	fresh.Content[0].HeadComment = comment
	return fresh
}

// member returns the value of key in a mapping node, or nil.
func member(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// setMember sets key in a mapping node, appending it when missing.
func setMember(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, str(key), v)
}

// str writes a string, quoted where YAML would read it as something else.
func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// valueNode writes a JSON value on one line, the members of objects in sorted order.
func valueNode(v any) *yaml.Node {
	switch x := v.(type) {
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(string(x), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(x)}
	case float64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(x, 'g', -1, 64)}
	case string:
		return str(x)
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, it := range x {
			n.Content = append(n.Content, valueNode(it))
		}
		return n
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			n.Content = append(n.Content, str(k), valueNode(x[k]))
		}
		return n
	}
	return str(fmt.Sprint(v))
}
