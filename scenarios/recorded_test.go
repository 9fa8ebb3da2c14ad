package scenarios

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/protocol"
)

// ev is a recorded event of the tests: its delay in milliseconds, type, and fields as
// name, value pairs.
func ev(ms int, typ string, fields ...any) RecordedEvent {
	e := RecordedEvent{Delay: time.Duration(ms) * time.Millisecond, Type: typ}
	for i := 0; i+1 < len(fields); i += 2 {
		e.Fields = append(e.Fields, protocol.Field{Name: fields[i].(string), Value: fields[i+1]})
	}
	return e
}

// ids are the fields of a RUN_STARTED or RUN_FINISHED as a recording writes them.
var ids = []any{"threadId", "{{ .threadId }}", "runId", "{{ .runId }}"}

func started(ms int) RecordedEvent { return ev(ms, protocol.RunStarted, ids...) }
func finished(ms int, more ...any) RecordedEvent {
	return ev(ms, protocol.RunFinished, append(append([]any{}, ids...), more...)...)
}

// interrupted is a RUN_FINISHED that raises an interrupt, expiring as a recording
// writes it.
var interrupted = finished(3, "outcome", map[string]any{"type": "interrupt", "interrupts": []any{
	map[string]any{"id": "{{ id `i1` }}", "reason": "confirm", "message": "Deploy?", "expiresAt": "{{ fromNow `10m0s` }}"},
}})

// recordedShapes are a scenario of each shape the recorder writes.
func recordedShapes() map[string]Recorded {
	base := func(events ...RecordedEvent) Recorded {
		return Recorded{Comment: "Recorded by agui-mock from http://agent at 2026-01-02T03:04:05Z.\nIt replays.",
			ID: "rec-hello-1a2b3c4d", Description: "Recorded from http://agent",
			Match:    RecordedMatch{Message: `^hello$`},
			Examples: []Example{{Message: "hello"}},
			Events:   events}
	}
	text := []RecordedEvent{
		started(0),
		ev(400, protocol.TextMessageStart, "messageId", "{{ id `m1` }}", "role", "assistant"),
		ev(25, protocol.TextMessageContent, "messageId", "{{ id `m1` }}", "delta", "Hello: 'quoted', \"double\", #hash, - dash, yes, null, 12, {{`{{`}} braces"),
		ev(0, protocol.TextMessageContent, "messageId", "{{ id `m1` }}", "delta", "line one\nline two\n"),
		ev(1, protocol.TextMessageEnd, "messageId", "{{ id `m1` }}"),
		finished(2),
	}
	toolCalls := []RecordedEvent{
		started(0),
		ev(5, protocol.ToolCallStart, "toolCallId", "{{ id `c1` }}", "toolCallName", "choose", "parentMessageId", "{{ id `m1` }}"),
		ev(5, protocol.ToolCallArgs, "toolCallId", "{{ id `c1` }}", "delta", `{"city":"Paris","n":2}`),
		ev(5, protocol.ToolCallEnd, "toolCallId", "{{ id `c1` }}"),
		finished(1),
	}
	shapes := map[string]Recorded{}
	shapes["text"] = base(text...)
	shapes["tool calls"] = base(toolCalls...)
	shapes["every kind of value"] = base(started(0),
		ev(0, protocol.StateSnapshot, "snapshot", map[string]any{"n": json.Number("3"), "f": json.Number("2.5"), "x": 0.125, "big": json.Number("1e21"),
			"ok": true, "none": nil, "list": []any{"a", json.Number("1"), false, []any{}}, "empty": map[string]any{}, "text": "007"}),
		ev(0, protocol.StateDelta, "delta", []any{map[string]any{"op": "replace", "path": "/stage", "value": "waiting"}}),
		ev(0, protocol.MessagesSnapshot, "messages", []any{"{{ nth -2 .messages }}", "{{ nth -1 .messages }}",
			map[string]any{"id": "{{ id `m2` }}", "role": "assistant", "content": "Thanks."}}),
		ev(0, protocol.Custom, "name", "progress", "value", map[string]any{"done": json.Number("1"), "of": json.Number("3")}),
		finished(0, "result", map[string]any{"answer": "42"}))
	shapes["subagent events"] = base(started(0),
		ev(21, protocol.SubagentStarted, "subagentRunId", "{{ id `s1` }}", "name", "booker", "description", "Books trips", "metadata", map[string]any{"trace": "t"}),
		ev(2, protocol.SubagentStarted, "subagentRunId", "{{ id `s2` }}", "name", "payer", "parentSubagentRunId", "{{ id `s1` }}"),
		ev(1, protocol.TextMessageStart, "messageId", "{{ id `m1` }}", "role", "assistant", "subagentRunId", "{{ id `s2` }}"),
		ev(1, protocol.TextMessageEnd, "messageId", "{{ id `m1` }}", "subagentRunId", "{{ id `s2` }}"),
		ev(1, protocol.SubagentFinished, "subagentRunId", "{{ id `s2` }}"),
		ev(1, protocol.SubagentFinished, "subagentRunId", "{{ id `s1` }}"),
		finished(0))

	interrupt := base(started(0), interrupted)
	interrupt.Next = []RecordedBranch{
		{When: RecordedWhen{Resume: []Answer{{Status: "resolved", Payload: map[string]any{"approved": true, "n": json.Number("1.0")}}}},
			Events: []RecordedEvent{started(0), interrupted},
			Next: []RecordedBranch{{When: RecordedWhen{Resume: []Answer{{Status: "cancelled"}}},
				Events: []RecordedEvent{started(0), finished(0)}}}},
		{When: RecordedWhen{Resume: []Answer{{Status: "cancelled"}}}, Events: []RecordedEvent{started(0), finished(0)}},
	}
	shapes["interrupts and their continuations"] = interrupt

	tools := base(toolCalls...)
	tools.Next = []RecordedBranch{
		{When: RecordedWhen{ToolResults: []string{`^\Qsunny: 20°C\E$`}}, Events: text},
		{When: RecordedWhen{ToolResults: []string{}}, Events: text},
	}
	shapes["tool results and their continuations"] = tools

	langgraph := base(started(0),
		ev(3, protocol.Custom, "name", "on_interrupt", "value", `{"question":"Publish the post?"}`),
		finished(1))
	langgraph.Dialect = DialectLangGraph
	langgraph.Next = []RecordedBranch{{When: RecordedWhen{Resume: []Answer{{Status: "resolved", Payload: "yes"}}}, Events: text}}
	shapes["langgraph dialect"] = langgraph

	offered := base(text...)
	offered.Match = RecordedMatch{Route: "/agents/travel", Message: `^plan a trip$`, ForwardedProps: map[string]any{"scenario_name": "trip"}}
	offered.Examples = []Example{{Route: "/agents/travel", Message: "plan a trip",
		ForwardedProps: map[string]any{"scenario_name": "trip", "theme": "dark"},
		State:          map[string]any{"cart": []any{"tea"}},
		Tools: []ExampleTool{{Name: "notify"},
			{Name: "confirm", Description: "Ask the user", Parameters: map[string]any{"type": "object", "properties": map[string]any{}}}},
		Context: []ContextItem{{Description: "the page", Value: "checkout"}, {Value: "no description"}},
		Headers: map[string]string{"X-Tenant": "acme"}}}
	shapes["examples with what the client offered"] = offered

	props := base(text...)
	props.Examples = []Example{{Message: "hello", ForwardedProps: map[string]any{"theme": "dark"}, State: []any{"a"}}}
	shapes["forwardedProps that name no scenario"] = props

	shadowed := base(text...)
	shadowed.Examples, shadowed.Match = nil, RecordedMatch{}
	shapes["no example and no match"] = shadowed

	incomplete := base(started(0), ev(10, protocol.TextMessageStart, "messageId", "{{ id `m1` }}", "role", "assistant"))
	incomplete.ID, incomplete.Broken = "rec-hello-1a2b3c4d-run1-20260102T030405.000", "incomplete recording: the client went away before the run ended"
	shapes["incomplete"] = incomplete

	stopped := base(started(0), ev(10, protocol.TextMessageStart, "messageId", "{{ id `m1` }}", "role", "assistant"),
		ev(30, protocol.TextMessageContent, "messageId", "{{ id `m1` }}", "delta", "Once "))
	stopped.Stopped = "the client stopped the run while it was recorded, after 3 events"
	shapes["stopped by the client"] = stopped
	return shapes
}

// marshal writes scenarios as the recorder writes its files.
func marshal(t *testing.T, docs ...any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	for _, doc := range docs {
		if err := enc.Encode(doc); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func TestWhatIsRecordedParsesBackAsTheSameScenario(t *testing.T) {
	for name, rec := range recordedShapes() {
		t.Run(name, func(t *testing.T) {
			data := marshal(t, rec)
			roundTrips(t, rec, data)
			// a recording's document as later runs find it, and as they add to it
			doc, err := ReadRecording("rec.yaml", data)
			if err != nil {
				t.Fatal(err)
			}
			again := marshal(t, doc)
			if !bytes.Equal(again, data) {
				t.Errorf("read back and written again, the recording is\n%s\nnot\n%s", again, data)
			}
		})
	}
}

// roundTrips checks that data, written from rec, parses back to rec.
func roundTrips(t *testing.T, rec Recorded, data []byte) {
	t.Helper()
	list, diags := Parse("rec.yaml", data)
	if len(diags) > 0 {
		t.Fatalf("the recording does not load: %v\n%s", diags, data)
	}
	if len(list) != 1 {
		t.Fatalf("%d scenarios, want 1", len(list))
	}
	got, want := canonical(t, readBack(t, list[0], data)), canonical(t, rec)
	want.Comment = "" // a comment is no part of the scenario
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("written and parsed back, the scenario is\n%s\nwant\n%s\nfrom\n%s", g, w, data)
	}
}

// canonical is a recorded scenario with its values as JSON decodes them (numbers as
// float64, no empty lists), to compare the numbers written as such.
func canonical(t *testing.T, rec Recorded) Recorded {
	t.Helper()
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	var out Recorded
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// readBack is the recorded scenario a parsed one is; what its templates say is read
// where the parser found them, in data.
func readBack(t *testing.T, sc *Scenario, data []byte) Recorded {
	t.Helper()
	written := scalarsAt(t, data)
	rec := Recorded{ID: sc.ID, Description: sc.Description, Broken: sc.Broken, Stopped: sc.Stopped, Dialect: sc.Dialect,
		Match: RecordedMatch{ForwardedProps: sc.Match.ForwardedProps}}
	for _, r := range sc.Match.Routes {
		rec.Match.Route = r
	}
	if sc.Match.Message != nil {
		rec.Match.Message = sc.Match.Message.String()
	}
	rec.Examples = sc.Examples
	rec.Events, rec.Next = readBackRun(sc.run, written)
	return rec
}

func readBackRun(run *eventsRun, written map[pos]string) ([]RecordedEvent, []RecordedBranch) {
	var events []RecordedEvent
	for _, s := range run.events {
		e := RecordedEvent{Type: s.typ}
		if s.delay != nil {
			e.Delay = *s.delay
		}
		for i, name := range s.names {
			e.Fields = append(e.Fields, protocol.Field{Name: name, Value: source(s.values[i], written)})
		}
		events = append(events, e)
	}
	var next []RecordedBranch
	for _, b := range run.next {
		var rb RecordedBranch
		for _, bc := range b.resume {
			rb.When.Resume = append(rb.When.Resume, Answer{Status: bc.status, Payload: bc.payload})
		}
		if len(b.resume) == 0 {
			rb.When.ToolResults = []string{} // written so, even when there are none
		}
		for _, re := range b.toolResults {
			rb.When.ToolResults = append(rb.When.ToolResults, re.String())
		}
		rb.Events, rb.Next = readBackRun(&b.run, written)
		next = append(next, rb)
	}
	return events, next
}

// source is a parsed value as it was written: its templates by their text.
func source(v *value, written map[pos]string) any {
	switch v.kind {
	case templateValue, wholeValue:
		return written[pos{File: v.at.File, Line: v.at.Line, Column: v.at.Column}]
	case objectValue:
		m := make(map[string]any, len(v.keys))
		for i, k := range v.keys {
			m[k] = source(v.fields[i], written)
		}
		return m
	case arrayValue:
		list := make([]any, len(v.items))
		for i, it := range v.items {
			list[i] = source(it, written)
		}
		return list
	}
	return v.literal
}

// scalarsAt is the text of each scalar of a file, by where it is written.
func scalarsAt(t *testing.T, data []byte) map[pos]string {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[pos]string{}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode {
			out[pos{File: "rec.yaml", Line: n.Line, Column: n.Column}] = n.Value
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&doc)
	return out
}

// A recording's run is placed where its answers lead: a new continuation for new
// answers, in place of the one recorded with the same answers, keeping what follows it;
// a path whose earlier answers lead nowhere is refused.
func TestARunIsPlacedWhereItsAnswersLead(t *testing.T) {
	shapes := recordedShapes()
	rec := shapes["interrupts and their continuations"]
	doc := rec.Recording()
	resolved, cancelled := rec.Next[0].When, rec.Next[1].When
	replayed := []RecordedEvent{started(0), ev(7, protocol.Custom, "name", "again"), interrupted}
	if err := doc.Place([]RecordedWhen{resolved}, replayed, ""); err != nil {
		t.Fatal(err)
	}
	fresh := []RecordedEvent{started(0), finished(9)}
	deeper := RecordedWhen{Resume: []Answer{{Status: "resolved", Payload: "more"}}}
	if err := doc.Place([]RecordedWhen{resolved, deeper}, fresh, ""); err != nil {
		t.Fatal(err)
	}
	want := rec
	want.Next = []RecordedBranch{
		{When: resolved, Events: replayed, Next: append(rec.Next[0].Next, RecordedBranch{When: deeper, Events: fresh})},
		rec.Next[1],
	}
	roundTrips(t, want, marshal(t, doc))

	if err := doc.Place([]RecordedWhen{deeper, cancelled}, fresh, ""); err == nil || !strings.Contains(err.Error(), "earlier run is missing") {
		t.Errorf("a run after an answer never recorded: %v", err)
	}
}

// A scenario re-recorded in place keeps what selects and documents it, under its id,
// and takes the rest from the recording.
func TestARecordingInPlaceOfAScenarioKeepsWhatSelectsIt(t *testing.T) {
	var old yaml.Node
	if err := yaml.Unmarshal([]byte("id: mine\ndescription: Mine\npriority: 3\nmatch: {message: ^hi}\nsteps: [{text: Hi}]\n"), &old); err != nil {
		t.Fatal(err)
	}
	rec := recordedShapes()["text"]
	fresh := rec.Recording().InPlaceOf(old.Content[0], "mine", "Re-recorded.")
	data := marshal(t, &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{fresh}})
	want := "# Re-recorded.\nid: mine\ndescription: Mine\npriority: 3\nmatch: {message: ^hi}\nexamples:\n  - {message: hello}\nevents:\n"
	if !strings.HasPrefix(string(data), want) {
		t.Errorf("re-recorded in place:\n%s\nwant it to begin\n%s", data, want)
	}
	list, diags := Parse("rec.yaml", data)
	if len(diags) > 0 || list[0].Priority != 3 || len(list[0].run.events) != len(rec.Events) {
		t.Errorf("re-recorded in place, it loads as %+v, %v", list, diags)
	}
}

// Any text a recorded event carries, without template delimiters, is read back as the
// same text.
func FuzzRecordedTextReadsBackTheSame(f *testing.F) {
	for _, s := range []string{"hello", "", "yes", "null", "12", "- a", "# no comment", "a: b", "'\"", "line\nline", " padded ", "\t", "\r\n", "é ✓ \u2028", "~", "0x1F", "1e3", "<<"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		text = strings.ToValidUTF8(text, "?")
		if strings.Contains(text, "{{") {
			return // a template: what the recorder writes of such text is escaped
		}
		rec := Recorded{ID: "r", Description: "d", Events: []RecordedEvent{
			ev(0, protocol.TextMessageContent, "messageId", "m", "delta", text),
			ev(0, protocol.Custom, "name", "n", "value", map[string]any{text: []any{text}}),
		}}
		roundTrips(t, rec, marshal(t, rec))
	})
}
