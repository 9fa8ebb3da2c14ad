package scenarios

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"
)

// minimalSteps holds, for each step kind, the smallest body a step of the kind takes.
var minimalSteps = map[string]string{
	"text":          "hi",
	"reasoning":     "hmm",
	"tool":          "{name: search}",
	"state":         "{n: 1}",
	"stateDelta":    "[{op: add, path: /n, value: 1}]",
	"messages":      "[]",
	"activity":      "{type: PLAN, content: {a: 1}}",
	"activityDelta": "{target: card, patch: []}",
	"step":          "{name: span, steps: []}",
	"subagent":      "{name: researcher, steps: [{text: hi}]}",
	"custom":        "{name: Ping}",
	"raw":           "{event: 1}",
	"error":         "boom",
	"pause":         "1s",
	"event":         "{type: CUSTOM, name: x}",
	"interrupt":     "{}",
	"toolResult":    "ok",
	"fault":         "truncate",
}

// brokenSteps holds, for the step kinds that have one, a body the kind refuses.
var brokenSteps = map[string]string{
	"text": "{}", "reasoning": "{}", "tool": "{}", "activity": "{}", "activityDelta": "{}",
	"step": "{}", "subagent": "{}", "custom": "{}", "raw": "{}", "error": "{}",
	"event": "5", "interrupt": "[]", "toolResult": "null", "fault": "{}",
}

// TestEveryStepKindParsesItsMinimalStep checks that the table of step kinds and the
// parser agree: every kind has a parser, and a step of the kind in a scenario is read
// by it into a step (a kind the parser cannot read would be dropped from its list).
func TestEveryStepKindParsesItsMinimalStep(t *testing.T) {
	var names []string
	for _, k := range stepKinds {
		if k.name == "" || k.hint == "" || slices.Contains(names, k.name) {
			t.Errorf("the step kind %q has no name or no hint, or is in the table twice", k.name)
		}
		names = append(names, k.name)
		if k.parse == nil {
			t.Errorf("the step kind %s has no parser", k.name)
			continue
		}
		body, ok := minimalSteps[k.name]
		if !ok {
			t.Errorf("the step kind %s: give this test its minimal step", k.name)
			continue
		}
		scs, diags := Parse("kinds.yaml", []byte("steps: [{"+k.name+": "+body+"}]\n"))
		if len(diags) > 0 || len(scs) != 1 || len(scs[0].steps) != 1 {
			t.Errorf("the step kind %s: a minimal step does not load: %v", k.name, diags)
			continue
		}
		direct := k.parse(testLoader(), stepCommon{}, yamlNode(t, body))
		if got, want := reflect.TypeOf(scs[0].steps[0]), reflect.TypeOf(direct); got != want {
			t.Errorf("the step kind %s: the parser made a %v, the kind's parser a %v", k.name, got, want)
		}
	}
}

// TestAStepAKindRefusesIsLeftOut checks that a kind's parser returns no step, not a
// nil one, for a body it refuses: a list of steps keeps whatever is not nil, and the
// check of what follows an error step would stumble on it.
func TestAStepAKindRefusesIsLeftOut(t *testing.T) {
	for kind, body := range brokenSteps {
		k := lookupStepKind(kind)
		if k == nil {
			t.Errorf("no step kind %s", kind)
			continue
		}
		l := testLoader()
		if s := k.parse(l, stepCommon{}, yamlNode(t, body)); s != nil || len(l.diag.list) == 0 {
			t.Errorf("the step kind %s read %s as %#v, with the problems %v", kind, body, s, l.diag.list)
		}
		if _, diags := Parse("broken.yaml", []byte("steps: [{error: x}, {"+kind+": "+body+"}]\n")); len(diags) == 0 {
			t.Errorf("the step kind %s took %s", kind, body)
		}
	}
}

func testLoader() *fileLoader {
	return &fileLoader{ctx: context.Background(), file: "kinds.yaml", diag: &diagnostics{}}
}

// yamlNode reads a YAML value as the parser sees it.
func yamlNode(t *testing.T, text string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}
