package scenarios

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/protocol"
)

// lanes writes each event as its type, with the subagentRunId it carries after a slash,
// named by idOf (a delta without its _CONTENT).
func lanes(events []protocol.Event, idOf map[string]string) []string {
	out := make([]string, len(events))
	for i, ev := range events {
		out[i] = ev.Type
		if ev.Type == protocol.TextMessageContent || ev.Type == protocol.ToolCallArgs {
			out[i] = strings.TrimSuffix(ev.Type, "_CONTENT")
		}
		if sa := ev.Str("subagentRunId"); sa != "" {
			out[i] += "/" + idOf[sa]
		}
	}
	return out
}

// compact drops repeated entries in a row, so that a streamed text is one entry.
func compact(list []string) []string {
	var out []string
	for _, s := range list {
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

// subagentIDs maps each invocation's subagentRunId to the name it was announced with.
func subagentIDs(events []protocol.Event) map[string]string {
	ids := map[string]string{}
	for _, ev := range events {
		if ev.Type == protocol.SubagentStarted {
			ids[ev.Str("subagentRunId")] = ev.Str("name")
		}
	}
	return ids
}

func TestSubagentWrapsItsStepsAndAttributesTheirEvents(t *testing.T) {
	set, err := loadOne(t, `
steps:
  - text: Let me ask.
  - subagent:
      name: planner
      description: Plans the trip
      result: {days: 3}
      steps:
        - text: Planning.
        - subagent:
            name: researcher
            steps:
              - tool: {name: search, args: {q: x}, result: found}
              - state: {n: 1}
        - step: {name: draft, steps: [{text: Draft.}]}
    id: plan
    metadata: {trace: "{{ .threadId }}"}
  - text: "Done: {{ id `+"`plan`"+` }}"
`)
	if err != nil {
		t.Fatal(err)
	}
	c := &conversation{t: t, set: set}
	events := c.run(`{"messages":[{"role":"user","content":"go"}]}`)
	ids := subagentIDs(events)
	got := compact(lanes(events, ids))
	want := []string{
		"RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE", "TEXT_MESSAGE_END",
		"SUBAGENT_STARTED/planner", "TEXT_MESSAGE_START/planner", "TEXT_MESSAGE/planner", "TEXT_MESSAGE_END/planner",
		"SUBAGENT_STARTED/researcher",
		"TOOL_CALL_START/researcher", "TOOL_CALL_ARGS/researcher", "TOOL_CALL_END/researcher", "TOOL_CALL_RESULT/researcher",
		"STATE_SNAPSHOT/researcher", "SUBAGENT_FINISHED/researcher",
		"STEP_STARTED/planner", "TEXT_MESSAGE_START/planner", "TEXT_MESSAGE/planner", "TEXT_MESSAGE_END/planner", "STEP_FINISHED/planner",
		"SUBAGENT_FINISHED/planner",
		"TEXT_MESSAGE_START", "TEXT_MESSAGE", "TEXT_MESSAGE_END", "RUN_FINISHED",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events\n got %q\nwant %q", got, want)
	}
	var planner, researcher protocol.Event
	var finished []protocol.Event
	for _, ev := range events {
		switch {
		case ev.Type == protocol.SubagentStarted && ev.Str("name") == "planner":
			planner = ev
		case ev.Type == protocol.SubagentStarted:
			researcher = ev
		case ev.Type == protocol.SubagentFinished:
			finished = append(finished, ev)
		}
	}
	if planner.Str("description") != "Plans the trip" || planner.Str("parentSubagentRunId") != "" {
		t.Errorf("planner announced as %v", planner)
	}
	if researcher.Str("parentSubagentRunId") != planner.Str("subagentRunId") {
		t.Errorf("the nested subagent names parent %q, want the planner's %q", researcher.Str("parentSubagentRunId"), planner.Str("subagentRunId"))
	}
	if md, _ := planner.Get("metadata"); !reflect.DeepEqual(md, map[string]any{"trace": "t"}) {
		t.Errorf("the subagent step's metadata on its SUBAGENT_STARTED: %v", md)
	}
	outer := finished[1]
	if md, _ := outer.Get("metadata"); !reflect.DeepEqual(md, map[string]any{"trace": "t"}) {
		t.Errorf("the subagent step's metadata on its SUBAGENT_FINISHED: %v", md)
	}
	for _, ev := range events {
		if _, has := ev.Get("metadata"); has && ev.Type != protocol.SubagentStarted && ev.Type != protocol.SubagentFinished {
			t.Errorf("a child step's %s carries the subagent step's metadata", ev.Type)
		}
	}
	if r, _ := outer.Get("result"); fmt.Sprint(r) != "map[days:3]" || outer.Outcome()["type"] != "success" {
		t.Errorf("the planner finished as %v", outer)
	}
	if _, has := finished[0].Get("result"); has {
		t.Errorf("the researcher has no result, got %v", finished[0])
	}
	if last := texts(events); last[len(last)-1] != "Done: "+planner.Str("subagentRunId") {
		t.Errorf("the step id names the subagentRunId: %q", last)
	}
}

func TestAnErrorInsideASubagentEndsItAndTheRunGoesOn(t *testing.T) {
	set, err := loadOne(t, `
steps:
  - subagent:
      name: flaky
      steps:
        - text: Trying.
        - step:
            name: attempt
            steps: [{error: {message: "quota exceeded", code: quota}}]
  - subagent:
      name: direct
      steps: [{error: gone}]
  - text: I will answer myself.
`)
	if err != nil {
		t.Fatal(err)
	}
	c := &conversation{t: t, set: set}
	events := c.run(`{"messages":[{"role":"user","content":"go"}]}`)
	got := compact(lanes(events, subagentIDs(events)))
	want := []string{
		"RUN_STARTED", "SUBAGENT_STARTED/flaky", "TEXT_MESSAGE_START/flaky", "TEXT_MESSAGE/flaky", "TEXT_MESSAGE_END/flaky",
		"STEP_STARTED/flaky", "SUBAGENT_ERROR/flaky", "STEP_FINISHED/flaky",
		"SUBAGENT_STARTED/direct", "SUBAGENT_ERROR/direct",
		"TEXT_MESSAGE_START", "TEXT_MESSAGE", "TEXT_MESSAGE_END", "RUN_FINISHED",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events\n got %q\nwant %q", got, want)
	}
	for _, ev := range events {
		if ev.Type == protocol.SubagentError && ev.Str("code") == "quota" && ev.Str("message") != "quota exceeded" {
			t.Errorf("SUBAGENT_ERROR %v", ev)
		}
	}
}

func TestAnInterruptInsideASubagentSuspendsIt(t *testing.T) {
	set, err := loadOne(t, `
steps:
  - subagent:
      name: booker
      steps:
        - subagent:
            name: payer
            steps:
              - text: Card ending 42?
              - interrupt:
                  id: pay
                  message: Pay 10 EUR?
                  on:
                    resolved: [{text: Paid.}]
                    cancelled: [{error: payment refused}]
              - text: Receipt sent.
        - text: Booked.
  - text: All set.
`)
	if err != nil {
		t.Fatal(err)
	}
	c := &conversation{t: t, set: set}
	first := c.run(`{"messages":[{"role":"user","content":"book"}]}`)
	ids := subagentIDs(first)
	if got, want := compact(lanes(first, ids)), []string{
		"RUN_STARTED", "SUBAGENT_STARTED/booker", "SUBAGENT_STARTED/payer",
		"TEXT_MESSAGE_START/payer", "TEXT_MESSAGE/payer", "TEXT_MESSAGE_END/payer",
		"SUBAGENT_FINISHED/payer", "SUBAGENT_FINISHED/booker", "RUN_FINISHED",
	}; !reflect.DeepEqual(got, want) {
		t.Fatalf("first run\n got %q\nwant %q", got, want)
	}
	payer, booker := first[len(first)-3], first[len(first)-2]
	if o := payer.Outcome(); o["type"] != "suspended" || !reflect.DeepEqual(o["interruptIds"], []any{"pay"}) {
		t.Errorf("the payer raised the interrupt: %v", payer)
	}
	if o := booker.Outcome(); o["type"] != "suspended" || !reflect.DeepEqual(o["interruptIds"], []any{}) {
		t.Errorf("the booker is suspended by its descendant and owns no interrupt: %v", booker)
	}
	interrupts, _ := first[len(first)-1].Outcome()["interrupts"].([]any)
	if len(interrupts) != 1 || interrupts[0].(map[string]any)["subagentRunId"] != payer.Str("subagentRunId") {
		t.Errorf("the interrupt is attributed to the payer: %v", interrupts)
	}

	second := c.run(`{"messages":[],"resume":[{"interruptId":"pay","status":"resolved"}]}`)
	if got, want := compact(lanes(second, ids)), []string{
		"RUN_STARTED", "SUBAGENT_STARTED/booker", "SUBAGENT_STARTED/payer",
		"TEXT_MESSAGE_START/payer", "TEXT_MESSAGE/payer", "TEXT_MESSAGE_END/payer",
		"TEXT_MESSAGE_START/payer", "TEXT_MESSAGE/payer", "TEXT_MESSAGE_END/payer",
		"SUBAGENT_FINISHED/payer", "TEXT_MESSAGE_START/booker", "TEXT_MESSAGE/booker", "TEXT_MESSAGE_END/booker", "SUBAGENT_FINISHED/booker",
		"TEXT_MESSAGE_START", "TEXT_MESSAGE", "TEXT_MESSAGE_END", "RUN_FINISHED",
	}; !reflect.DeepEqual(got, want) {
		t.Fatalf("the run that answers it announces both invocations again, under their ids\n got %q\nwant %q", got, want)
	}
	if second[2].Str("subagentRunId") != payer.Str("subagentRunId") || second[2].Str("parentSubagentRunId") != booker.Str("subagentRunId") {
		t.Errorf("announced again, the payer keeps its parent: %v", second[2])
	}
	if got := texts(second); !reflect.DeepEqual(got, []string{"Paid.", "Receipt sent.", "Booked.", "All set."}) {
		t.Errorf("texts %q", got)
	}

	c = &conversation{t: t, set: set}
	c.run(`{"messages":[{"role":"user","content":"book"}]}`)
	refused := c.run(`{"messages":[],"resume":[{"interruptId":"pay","status":"cancelled"}]}`)
	if got, want := compact(lanes(refused, ids)), []string{
		"RUN_STARTED", "SUBAGENT_STARTED/booker", "SUBAGENT_STARTED/payer", "SUBAGENT_ERROR/payer",
		"TEXT_MESSAGE_START/booker", "TEXT_MESSAGE/booker", "TEXT_MESSAGE_END/booker", "SUBAGENT_FINISHED/booker",
		"TEXT_MESSAGE_START", "TEXT_MESSAGE", "TEXT_MESSAGE_END", "RUN_FINISHED",
	}; !reflect.DeepEqual(got, want) {
		t.Fatalf("an error in the branch ends the payer, not the booker\n got %q\nwant %q", got, want)
	}
}

func TestStepMetadataRidesOnTheStepsEvents(t *testing.T) {
	set, err := loadOne(t, `
steps:
  - text: Hi there.
    metadata: {source: cache, "acme.dev/span": null}
  - tool: {name: lookup, result: ok}
    metadata: {tool: "{{ .message }}"}
  - event: {type: CUSTOM, name: mine, value: 1, metadata: {own: true}}
    metadata: {step: true}
  - text: Plain.
`)
	if err != nil {
		t.Fatal(err)
	}
	c := &conversation{t: t, set: set}
	events := c.run(`{"messages":[{"role":"user","content":"go"}]}`)
	for _, ev := range events {
		md, _ := ev.Get("metadata")
		var want any
		switch {
		case strings.HasPrefix(ev.Type, "TEXT_MESSAGE") && ev.Str("messageId") == events[1].Str("messageId"):
			want = map[string]any{"source": "cache", "acme.dev/span": nil}
		case strings.HasPrefix(ev.Type, "TOOL_CALL"):
			want = map[string]any{"tool": "go"}
		case ev.Type == protocol.Custom:
			want = map[string]any{"own": true}
		}
		if !reflect.DeepEqual(md, want) {
			t.Errorf("%s carries metadata %v, want %v", ev.Type, md, want)
		}
	}
}

func TestSubagentAndMetadataProblemsAreNamedAtLoad(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"no name", `steps: [{subagent: {steps: [{text: a}]}}]`, "subagent needs a name and a list of steps"},
		{"no steps", `steps: [{subagent: {name: a, steps: []}}]`, "a subagent needs at least one step"},
		{"unknown key", `steps: [{subagent: {name: a, steps: [{text: a}], outcome: x}}]`, `unknown key "outcome"`},
		{"interrupt in a subagent in a span", `
steps:
  - step:
      name: s
      steps: [{subagent: {name: a, steps: [{interrupt: {message: "ok?"}}]}}]
`, "an interrupt cannot be inside a step span"},
		{"a step after a subagent's error", `
steps:
  - subagent: {name: a, steps: [{text: x}, {error: no}, {text: y}]}
`, "inside a subagent, SUBAGENT_ERROR ends the subagent"},
		{"a step after the span that ends a subagent with an error", `
steps:
  - subagent:
      name: a
      steps:
        - step: {name: s, steps: [{error: no}]}
        - text: never
`, "no step of a subagent may follow the error step that ends it"},
		{"metadata on a pause", `steps: [{pause: 1s, metadata: {a: 1}}]`, "a pause step sends no event to carry metadata"},
		{"metadata not a mapping", `steps: [{text: a, metadata: [1]}]`, "metadata must be a mapping, got a list"},
		{"metadata as a template", `steps: [{text: a, metadata: "{{ .state }}"}]`, `metadata must be a mapping, got "{{ .state }}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadOne(t, tt.yaml)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("load error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// A tool call belongs to the message that carries it: inside a subagent it attaches to
// the subagent's own latest text message, never to the parent agent's.
func TestAToolCallInsideASubagentAttachesToItsOwnText(t *testing.T) {
	set, err := loadOne(t, `
steps:
  - text: Asking.
    id: parent
  - subagent:
      name: helper
      steps:
        - tool: {name: first, result: ok}
        - text: Now the second.
          id: own
        - tool: {name: second, result: ok}
  - tool: {name: third, result: ok}
`)
	if err != nil {
		t.Fatal(err)
	}
	c := &conversation{t: t, set: set}
	events := c.run(`{"messages":[{"role":"user","content":"go"}]}`)
	var parents []string
	texts := map[string]string{}
	for _, ev := range events {
		switch ev.Type {
		case protocol.TextMessageStart:
			texts[ev.Str("messageId")] = fmt.Sprint(len(texts) + 1)
		case protocol.ToolCallStart:
			parents = append(parents, ev.Str("toolCallName")+":"+texts[ev.Str("parentMessageId")])
		}
	}
	if want := []string{"first:", "second:2", "third:1"}; !reflect.DeepEqual(parents, want) {
		t.Errorf("the calls' parent messages (by order of text) %q, want %q", parents, want)
	}
}
