package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestLoadReportsProblemsWithPositions(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string // a line of the error, file:line:col: message
	}{
		{"yaml syntax", "steps:\n  - text: [unclosed\n", "dir/test.yaml:2: YAML syntax: did not find expected ',' or ']'"},
		{"unquoted template", "steps:\n  - text: {{ .message }}\n", `dir/test.yaml:2:11: YAML read an unquoted template as a mapping (hint: quote values that start with "{{"`},
		{"unknown top-level key", "stepz: []\n", `dir/test.yaml:1:1: unknown key "stepz" in a scenario (hint: did you mean "steps"?)`},
		{"no steps", "id: x\n", "a scenario needs steps"},
		{"steps and events", "steps: []\nevents: []\n", "dir/test.yaml:2:9: a scenario has either steps or events"},
		{"two kinds in a step", "steps:\n  - text: a\n    reasoning: b\n", "dir/test.yaml:2:5: a step needs exactly one kind, found 2 (text, reasoning)"},
		{"no kind in a step", "steps:\n  - delay: 1s\n", "a step needs exactly one kind, found 0"},
		{"bad duration", "steps:\n  - pause: fast\n", `dir/test.yaml:2:12: invalid duration "fast"`},
		{"bad regex", "match:\n  message: '(unclosed'\nsteps: [{text: a}]\n", "dir/test.yaml:2:12: invalid regular expression"},
		{"unknown template root", "steps:\n  - text: 'hi {{ .mesage }}'\n", "dir/test.yaml:2:11: template error: .mesage is not request data"},
		{"capture not defined", "match:\n  message: (?P<topic>.+)\nsteps:\n  - text: '{{ .captures.topc }}'\n", ".captures.topc: match.message defines only topic"},
		{"template syntax", "steps:\n  - text: 'hi {{ .message '\n", "template error"},
		{"unknown function", "steps:\n  - text: '{{ Nmae }}'\n", `function "Nmae" not defined`},
		{"jitter range", "timing: {jitter: 1.5}\nsteps: [{text: a}]\n", "jitter is a fraction from 0 to 1"},
		{"negative rate in timing", "timing: {tokensPerSecond: -1}\nsteps: [{text: a}]\n", "dir/test.yaml:1:27: tokensPerSecond must not be negative"},
		{"negative rate on a step", "steps:\n  - text: a\n    tokensPerSecond: -5\n", "dir/test.yaml:3:22: tokensPerSecond must not be negative"},
		{"bad patch op", "steps:\n  - stateDelta: [{op: upsert, path: /a}]\n", `unknown JSON Patch op "upsert"`},
		{"patch does not apply", "steps:\n  - state: {a: 1}\n  - stateDelta: [{op: replace, path: /b, value: 2}]\n", "dir/test.yaml:3:5: stateDelta does not apply to the state before it"},
		{"error not last", "steps:\n  - error: boom\n  - text: after\n", "dir/test.yaml:3:5: no step may follow an error step"},
		{"unknown event type", "steps:\n  - event: {type: META}\n", `dir/test.yaml:2:5: event 1 (META): unknown event type "META"`},
		{"sequence violation in explicit form", "events:\n  - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n  - {type: TEXT_MESSAGE_START, messageId: m}\n  - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n", "dir/test.yaml:4:5: the scenario breaks the AG-UI event rules: event 2 (RUN_FINISHED): Cannot send 'RUN_FINISHED' while text messages are still active"},
		{"foreign thread id", "events:\n  - {type: RUN_STARTED, threadId: t-1, runId: r}\n  - {type: RUN_FINISHED, threadId: t-1, runId: r}\n", "every run must carry the input's threadId"},
		{"infinite number", "steps:\n  - state: {a: .inf}\n", `".inf" is not a number JSON can carry`},
		{"example selects nothing", "match: {message: ^hi$}\nexamples: [{message: bye}]\nsteps: [{text: a}]\n", "dir/test.yaml:2:12: this example of scenario test matches no scenario"},
		{"broken without reason", "broken: ''\nsteps: [{text: a}]\n", "broken needs the reason"},
		{"activity delta to nothing", "steps:\n  - activityDelta: {target: nope, patch: [{op: add, path: /a, value: 1}]}\n", `dir/test.yaml:2:5: activityDelta target "nope" is not the id of an earlier activity step`},
		{"a key twice", "id: e\nid: f\nsteps: [{text: x}]\n", `dir/test.yaml:2:1: duplicate key "id" (first at line 1)`},
		{"a key twice in match", "match:\n  message: a\n  route: /x\n  message: b\nsteps: [{text: x}]\n", `dir/test.yaml:4:3: duplicate key "message" (first at line 2)`},
		{"a key twice in a step", "steps:\n  - text: a\n    text: b\n", `dir/test.yaml:3:5: duplicate key "text" (first at line 2)`},
		{"a key twice in a flow mapping", "match:\n  state: {a: 1, a: 2}\nsteps: [{text: x}]\n", `dir/test.yaml:2:17: duplicate key "a" (first at line 2)`},
		{"a key twice deep in a value", "steps:\n  - custom:\n      name: n\n      value: {list: [{k: 1}, {k: 2,\n        k: 3}]}\n", `dir/test.yaml:5:9: duplicate key "k" (first at line 4)`},
		{"empty text", "steps:\n  - text:\n", `dir/test.yaml:2:10: a text step's content must be a string, got null (hint: write the text after the colon; quote "null" to send that word)`},
		{"text content that is a mapping", "steps:\n  - text: {content: {a: 1}}\n", `dir/test.yaml:2:21: a text message's content must be a string, got a mapping (hint: quote it to send the characters as written)`},
		{"text name that is a mapping", "steps:\n  - text: {content: hi, name: {a: 1}}\n", `dir/test.yaml:2:31: a text message's name must be a string, got a mapping`},
		{"reasoning that is a list", "steps:\n  - reasoning: {content: [a]}\n", `dir/test.yaml:2:26: reasoning content must be a string, got a list`},
		{"null error code", "steps:\n  - error: {message: boom, code: null}\n", `dir/test.yaml:2:34: an error code must be a string, got null`},
		{"custom name that is a mapping", "steps:\n  - custom: {name: {a: 1}}\n", `dir/test.yaml:2:20: a custom event's name must be a string, got a mapping`},
		{"null tool name", "steps:\n  - tool: {name: null}\n", `dir/test.yaml:2:18: expected a string, got null`},
		{"a message with an unknown role", "steps:\n  - text: hi\n  - messages: [{id: m1, role: bot, content: hi}]\n", `dir/test.yaml:3:5: the scenario breaks the AG-UI event rules: event 4 (MESSAGES_SNAPSHOT): MESSAGES_SNAPSHOT.messages: the message at index 0: unknown role "bot" (one of developer, system, assistant, user, tool, activity, reasoning)`},
		{"a message without an id", "steps:\n  - messages:\n      history: true\n      messages: [{role: user, content: hi}]\n", `dir/test.yaml:2:5: the scenario breaks the AG-UI event rules: event 1 (MESSAGES_SNAPSHOT): MESSAGES_SNAPSHOT.messages: the message at index 1: no id (every message needs one)`},
		{"a message that is no object", "events:\n  - {type: MESSAGES_SNAPSHOT, messages: [1]}\n", `dir/test.yaml:2:5: the scenario breaks the AG-UI event rules: event 0 (MESSAGES_SNAPSHOT): MESSAGES_SNAPSHOT.messages: the message at index 0: expected an object, got a number`},
		{"a patch path without a slash", "steps:\n  - stateDelta: [{op: remove, path: a}]\n", `dir/test.yaml:2:37: JSON Patch path "a" is not a JSON Pointer (hint: a JSON Pointer starts with "/", e.g. "/a"; "" is the whole document)`},
		{"an activity patch from without a slash", "steps:\n  - activity: {type: T, content: {}}\n    id: act\n  - activityDelta: {target: act, patch: [{op: move, from: b, path: /c}]}\n", `dir/test.yaml:4:59: JSON Patch from "b" is not a JSON Pointer`},
		{"a patch path that is a mapping", "steps:\n  - stateDelta: [{op: remove, path: {a: 1}}]\n", `dir/test.yaml:2:37: expected a string`},
		{"an example with two routes", "match: {route: [/a, /b]}\nexamples: [{route: [/a, /b]}]\nsteps: [{text: x}]\n", `dir/test.yaml:2:20: an example is one request: it has one route (hint: write one example for each route)`},
		{"an example route without a slash", "examples: [{route: chat}]\nsteps: [{text: x}]\n", `dir/test.yaml:1:20: route "chat" must start with /`},
		{"example headers that are a list", "examples: [{headers: [a]}]\nsteps: [{text: x}]\n", `dir/test.yaml:1:22: an example's headers must be a mapping`},
		{"match headers that are a list", "match: {headers: [a]}\nsteps: [{text: x}]\n", `dir/test.yaml:1:18: match.headers must be a mapping`},
		{"a key twice in an anchored value", "steps:\n  - state: &s {a: 1, a: 2}\n  - state: *s\n", `dir/test.yaml:2:22: duplicate key "a" (first at line 2)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadOne(t, tt.yaml)
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want a *LoadError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error does not contain %q:\n%v", tt.want, err)
			}
		})
	}
}

// A scenario's source is where it starts, and reads as file:line:column.
func TestAScenarioKnowsWhereItStarts(t *testing.T) {
	set, err := loadOne(t, "id: first\nsteps:\n  - text: a\n---\nid: second\nsteps:\n  - text: b\n")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Position{"first": {File: "dir/test.yaml", Line: 1, Column: 1}, "second": {File: "dir/test.yaml", Line: 5, Column: 1}}
	for _, sc := range set.Scenarios() {
		if pos, ok := want[sc.ID]; ok && sc.Source != pos {
			t.Errorf("%s starts at %+v, want %+v", sc.ID, sc.Source, pos)
		}
		delete(want, sc.ID)
	}
	if len(want) != 0 {
		t.Errorf("scenarios missing: %v", want)
	}
	if got := (Position{File: "dir/test.yaml", Line: 5, Column: 1}).String(); got != "dir/test.yaml:5:1" {
		t.Errorf("the position reads %q", got)
	}
}

func TestAScenarioWithoutTemplatesPaysNothingForThem(t *testing.T) {
	// The template set, with its functions, is made by a scenario's first template: a
	// file of many small scenarios without one costs what their YAML and steps cost.
	const n = 1000
	var list []*Scenario
	data := []byte(strings.Repeat("steps: [{text: x}]\n---\n", n))
	if per := allocated(func() { list, _ = Parse("d/f.yaml", data) }) / n; len(list) != n || per > 8<<10 {
		t.Errorf("%d scenarios, %d bytes allocated for each", len(list), per)
	}
	list, _ = Parse("d/f.yaml", []byte("steps: [{text: x}]\n---\nsteps: [{text: '{{ .message }}'}]\n"))
	if len(list) != 2 || list[0].templates != nil || list[1].templates == nil {
		t.Errorf("template sets: %v", list)
	}
}

func TestALongLiteralListIsReadWithoutAValueForEachItem(t *testing.T) {
	const n = 100_000
	data := []byte("steps:\n  - state: {items: [" + strings.Repeat("a, ", n) + "{b: 1}]}\n")
	var list []*Scenario
	parsed := allocated(func() { list, _ = Parse("d/f.yaml", data) })
	decoded := allocated(func() { decodeYAML(t, data) })
	// an item held as JSON takes 32 bytes: its place in the list, and its string boxed
	if per := (parsed - decoded) / n; len(list) != 1 || per > 64 {
		t.Errorf("%d bytes for each item on top of its YAML", per)
	}

	list, _ = Parse("d/f.yaml", []byte("steps:\n  - state: {a: [x, 1, '{{ .message }}', {y: true}], b: [], c: {}, d: null}\n"))
	req, _ := Example{Message: "hi"}.request()
	plan, err := list[0].Plan(context.Background(), req, Start{}, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": []any{"x", json.Number("1"), "hi", map[string]any{"y": true}}, "b": []any{}, "c": map[string]any{}, "d": nil}
	if got := plan.Events[1].Event.Fields[0].Value; !reflect.DeepEqual(got, want) {
		t.Errorf("planned %#v\nwant %#v", got, want)
	}
}
