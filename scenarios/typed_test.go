package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/protocol"
)

// typedScenario puts whole templates in every kind of value position.
const typedScenario = "match: {message: 'n=(?P<n>\\S+) f=(?P<f>\\S+) b=(?P<b>\\S+)'}\n" + `
examples: [{message: n=1 f=1 b=true}]
steps:
  - state:
      items: "{{ .state.items }}"
      count: "{{ .state.count }}"
      n: "{{ int .captures.n }}"
      f: "{{ float .captures.f }}"
      b: "{{ bool .captures.b }}"
      parsed: '{{ fromJson ` + "`" + `{"a": [1, 2.5, null]}` + "`" + ` }}'
      number: "{{ Number 7 7 }}"
      tools: "{{ len .tools }}"
      capture: "{{ .captures.n }}"
      json: "{{ json .state.items }}"
      mixed: "n={{ int .captures.n }}"
      spaced: " {{ int .captures.n }}"
      trimmed: "{{- int .captures.n -}}"
      missing: "{{ .state.nope }}"
      id: "{{ id ` + "`x`" + ` }}"
  - stateDelta:
      - {op: add, path: "/delta", value: "{{ int .captures.n }}"}
  - custom: {name: typed, value: "{{ .state.items }}"}
  - tool:
      name: t
      args: {items: "{{ .state.items }}", n: "{{ int .captures.n }}"}
      result: {count: "{{ .state.count }}"}
  - tool:
      name: u
      args: "{{ .state.args }}"
      result: "{{ .state.items }}"
  - interrupt:
      message: "{{ .state.count }}"
      metadata: {items: "{{ .state.items }}", n: "{{ int .captures.n }}"}
`

const typedRequest = `{"threadId":"t","runId":"r","messages":[{"role":"user","content":"n=2 f=2.5 b=TRUE"}],` +
	`"state":{"items":["a",{"b":1}],"count":3,"args":{"x":1}},"tools":[{"name":"a"},{"name":"b"}]}`

func TestWholeTemplatesKeepTheirJSONType(t *testing.T) {
	set, err := loadOne(t, typedScenario)
	if err != nil {
		t.Fatal(err)
	}
	req := request(t, "/", typedRequest)
	sel, _ := set.Select(req)
	if sel == nil {
		t.Fatal("no scenario selected")
	}
	render := func() map[string]any {
		plan, err := sel.Scenario.Plan(context.Background(), req, Start{Captures: sel.Captures}, PlanOptions{Seed: 7, Timing: DefaultTiming()})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]any{}
		args := map[string]string{}
		var call string
		for _, te := range plan.Events {
			ev := te.Event
			switch ev.Type {
			case protocol.StateSnapshot:
				got["state"], _ = ev.Get("snapshot")
			case protocol.StateDelta:
				got["delta"], _ = ev.Get("delta")
			case protocol.Custom:
				got["custom"], _ = ev.Get("value")
			case protocol.ToolCallStart:
				call = ev.Str("toolCallName")
			case protocol.ToolCallArgs:
				args[call] += ev.Str("delta")
			case protocol.ToolCallResult:
				got["result "+call] = ev.Str("content")
			case protocol.RunFinished:
				outcome, _ := ev.Get("outcome")
				got["interrupt"] = outcome.(map[string]any)["interrupts"].([]any)[0]
			}
		}
		for name, text := range args {
			got["args "+name] = text
		}
		return got
	}
	typed := render()

	n := func(s string) json.Number { return json.Number(s) }
	items := []any{"a", map[string]any{"b": n("1")}}
	state := typed["state"].(map[string]any)
	id, _ := state["id"].(string)
	want := map[string]any{
		"state": map[string]any{
			"items": items, "count": n("3"), "n": n("2"), "f": n("2.5"), "b": true,
			"parsed": map[string]any{"a": []any{n("1"), n("2.5"), nil}},
			"number": n("7"), "tools": n("2"), "capture": "2", "json": `["a",{"b":1}]`,
			"mixed": "n=2", "spaced": " 2", "trimmed": n("2"), "missing": nil, "id": id,
		},
		"delta":    []any{map[string]any{"op": "add", "path": "/delta", "value": n("2")}},
		"custom":   items,
		"args t":   `{"items":["a",{"b":1}],"n":2}`,
		"result t": `{"count":3}`,
		"args u":   `{"x":1}`,
		"result u": `["a",{"b":1}]`,
		"interrupt": map[string]any{"id": typed["interrupt"].(map[string]any)["id"], "reason": "confirmation",
			"message": "3", "metadata": map[string]any{"items": items, "n": n("2")}},
	}
	if !strings.HasPrefix(id, "id-") {
		t.Errorf("id renders %q", id)
	}
	if !reflect.DeepEqual(typed, want) {
		t.Errorf("rendered\n%#v\nwant\n%#v", typed, want)
	}
	if items := req.Input.State.(map[string]any)["items"].([]any); len(items) != 2 {
		t.Errorf("the request's state changed: %v", items)
	}

	sel.Scenario.plain = nil // every template through text/template
	if full := render(); !reflect.DeepEqual(full, typed) {
		t.Errorf("through text/template\n%#v\nplain\n%#v", full, typed)
	}
}

func TestWholeTemplatesSentAsTextRenderAsText(t *testing.T) {
	set, err := loadOne(t, "match: {message: 'n=(?P<n>\\d+)'}\nexamples: [{message: n=1}]\n"+`
steps:
  - text: "{{ Number 7 7 }}"
  - text: "{{ int .captures.n }}"
  - text: "{{ eq 1 1 }}"
  - text: {content: "{{ .captures.n }}", name: "{{ float .captures.n }}"}
  - event: {type: CUSTOM, name: "{{ int .captures.n }}", value: "{{ int .captures.n }}"}
  - event: {type: STEP_STARTED, stepName: "{{ Number 5 5 }}"}
  - event: {type: STEP_FINISHED, stepName: "5"}
  - error: {message: "{{ .state.missing }}x", code: "{{ .state.missing }}"}
`)
	if err != nil {
		t.Fatal(err)
	}
	req := request(t, "/", `{"threadId":"t","runId":"r","messages":[{"role":"user","content":"n=2"}]}`)
	var got []string
	for _, te := range planFor(t, set, req, PlanOptions{Timing: DefaultTiming()}).Events {
		for _, f := range te.Event.Fields {
			switch s, isText := f.Value.(string); {
			case !isText: // a value position: the JSON type kept
				got = append(got, fmt.Sprintf("%s.%s=%T(%v)", te.Event.Type, f.Name, f.Value, f.Value))
			case f.Name != "messageId" && f.Name != "threadId" && f.Name != "runId":
				got = append(got, te.Event.Type+"."+f.Name+"="+s)
			}
		}
	}
	want := []string{
		"TEXT_MESSAGE_START.role=assistant", "TEXT_MESSAGE_CONTENT.delta=7",
		"TEXT_MESSAGE_START.role=assistant", "TEXT_MESSAGE_CONTENT.delta=2",
		"TEXT_MESSAGE_START.role=assistant", "TEXT_MESSAGE_CONTENT.delta=true",
		"TEXT_MESSAGE_START.role=assistant", "TEXT_MESSAGE_START.name=2", "TEXT_MESSAGE_CONTENT.delta=2",
		"CUSTOM.name=2", "CUSTOM.value=json.Number(2)",
		"STEP_STARTED.stepName=5", "STEP_FINISHED.stepName=5",
		"RUN_ERROR.message=x", "RUN_ERROR.code=",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestConversionFunctions(t *testing.T) {
	tests := []struct {
		template string
		want     any    // the rendered value, when it renders
		problem  string // else the problem the load reports
	}{
		{"{{ int `42` }}", json.Number("42"), ""},
		{"{{ int ` -7 ` }}", json.Number("-7"), ""},
		{"{{ int `2.0` }}", json.Number("2"), ""},
		{"{{ int (fromJson `1e3`) }}", json.Number("1000"), ""},
		{"{{ int 2.5 }}", nil, "{{ int 2.5 }}: int failed: 2.5 is not an integer"},
		{"{{ int `abc` }}", nil, "{{ int `abc` }}: int failed: \"abc\" is not an integer"},
		{"{{ int .state.missing }}", nil, "int failed: it was given no value, a path the request lacks (give the scenario an example that has it, or a fallback with default)"},
		{"{{ int (default `0` .state.missing) }}", json.Number("0"), ""},
		{"{{ bool .state.missing }}", nil, "bool failed: it was given no value"},
		{"{{ int `99999999999999999999` }}", nil, `int failed: "99999999999999999999" is not an integer`},
		{"{{ float `2.5` }}", json.Number("2.5"), ""},
		{"{{ float 3 }}", json.Number("3"), ""},
		{"{{ float `NaN` }}", nil, `float failed: "NaN" is not a number`},
		{"{{ float `1e999` }}", nil, `float failed: "1e999" is not a number`},
		{"{{ float true }}", nil, "float failed: true is not a number"},
		{"{{ bool `True` }}", true, ""},
		{"{{ bool `0` }}", false, ""},
		{"{{ bool false }}", false, ""},
		{"{{ bool `maybe` }}", nil, `bool failed: "maybe" is not true or false`},
		{"{{ fromJson `[1, \"a\", {\"b\": true}]` }}", []any{json.Number("1"), "a", map[string]any{"b": true}}, ""},
		{"{{ fromJson `null` }}", nil, ""},
		{"{{ fromJson `{\"a\":` }}", nil, `fromJson failed: "{\"a\":" is not JSON: unexpected EOF`},
		{"{{ fromJson `1 2` }}", nil, `fromJson failed: "1 2" is not JSON: more follows the first value`},
		{"{{ fromJson `` }}", nil, "fromJson failed: the text is empty, not JSON"},
		{"{{ fromJson 1 }}", nil, "fromJson failed: 1 is not JSON text"},
	}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			set, err := loadOne(t, "steps:\n  - custom: {name: c, value: "+quoteYAML(tt.template)+"}\n")
			if tt.problem != "" {
				if err == nil || !strings.Contains(err.Error(), "dir/test.yaml:2:5: template dir/test.yaml:2:") || !strings.Contains(err.Error(), tt.problem) {
					t.Errorf("got %v\nwant a problem at the step naming %q", err, tt.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			plan := planFor(t, set, request(t, "/", `{"threadId":"t","runId":"r","messages":[]}`), PlanOptions{Timing: DefaultTiming()})
			got, _ := plan.Events[1].Event.Get("value")
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("renders %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestATemplateThatCannotBeTextIsAProblemAtTheTemplate(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"an object as a JSON Patch path", "steps:\n  - stateDelta: [{op: add, path: '{{ .state }}', value: 1}]\n",
			"dir/test.yaml:2:34: a JSON Patch path must be a string, but this template renders an object"},
		{"a list as a JSON Patch from", "steps:\n  - state: {a: 1}\n  - stateDelta:\n      - {op: move, from: '{{ .tools }}', path: /b}\n",
			"dir/test.yaml:4:26: a JSON Patch from must be a string, but this template renders a list"},
		{"a number as a JSON Patch path", "steps:\n  - stateDelta: [{op: add, path: '{{ Number 2 2 }}', value: 1}]\n",
			`dir/test.yaml:2:34: JSON Patch path "2" is not a JSON Pointer: its template must render "" (the whole document) or text starting with "/"`},
		{"text that is no JSON Pointer as a JSON Patch from", "match: {message: 'move (?P<f>\\w+)'}\nexamples: [{message: move items}]\nsteps:\n  - stateDelta: [{op: move, from: '{{ .captures.f }}/0', path: /b}]\n",
			`dir/test.yaml:4:35: JSON Patch from "items/0" is not a JSON Pointer`},
		{"a list as text", "steps:\n  - text: '{{ .parts }}'\n",
			"dir/test.yaml:2:11: a text step's content must be a string, but this template renders a list (write {{ json … }} to send its JSON text)"},
		{"an object as an interrupt's id", "steps:\n  - interrupt: {id: '{{ .forwardedProps }}'}\n",
			"dir/test.yaml:2:21: an interrupt id must be a string, but this template renders an object"},
		{"an object as an event's string field", "events:\n  - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .state }}'}\n  - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n",
			"dir/test.yaml:2:61: RUN_STARTED.runId must be a string, but this template renders an object"},
		{"an object read from the example", "examples: [{message: hi, state: {a: {b: 1}}}]\nsteps:\n  - error: '{{ .state.a }}'\n",
			"dir/test.yaml:3:12: an error message must be a string, but this template renders an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadOne(t, tt.yaml)
			var le *LoadError
			if !errors.As(err, &le) || len(le.Diagnostics) != 1 || !strings.HasPrefix(le.Diagnostics[0].Error(), tt.want) {
				t.Errorf("got %v\nwant %s", err, tt.want)
			}
		})
	}
}
