package scenarios

import (
	"reflect"
	"runtime/debug"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Every part of a request that a recorded scenario carries survives its writing: the
// writer writes it, and Parse reads it back as it was, in an example and, for the parts
// a recorded match has, in the match.
func TestEveryRequestPartSurvivesTheWriter(t *testing.T) {
	examples := map[string]Example{ // an example carrying each part
		keyRoute:          {Route: "/travel"},
		keyAgent:          {Agent: "researcher"},
		keyMessage:        {Message: "book a trip"},
		keySystem:         {System: "answer briefly"},
		keyForwardedProps: {ForwardedProps: map[string]any{"theme": "dark", "flags": []any{"a", true}}},
		keyState:          {State: map[string]any{"cart": []any{"tea"}, "paid": false}},
		keyTools:          {Tools: []ExampleTool{{Name: "search"}, {Name: "confirm", Description: "Ask the user", Parameters: map[string]any{"type": "object"}}}},
		keyContext:        {Context: []ContextItem{{Description: "locale", Value: "de-DE"}}},
		keyConversation:   {Conversation: []map[string]any{{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}, {"role": "user", "content": "again"}}},
		keyHeaders:        {Headers: map[string]string{"X-User": "ann"}},
	}
	matches := map[string]struct { // a recorded match carrying each part it has, and what the match read back wants
		match RecordedMatch
		want  string
	}{
		keyRoute:          {RecordedMatch{Route: "/travel"}, "/travel"},
		keyMessage:        {RecordedMatch{Message: "^book a trip$"}, "/^book a trip$/"},
		keyForwardedProps: {RecordedMatch{ForwardedProps: map[string]any{"scenario_name": "trip"}}, `{"scenario_name":"trip"}`},
		keyConversation:   {RecordedMatch{Conversation: []RecordedMessage{{Role: "user", Pattern: "^hi$"}, {Role: "assistant"}}}, "user /^hi$/, assistant"},
	}
	for i := range criteria {
		c := &criteria[i]
		given, ok := examples[c.name]
		if !ok {
			t.Errorf("part %s: give this test an example carrying it", c.name)
			continue
		}
		if c.writeExample == nil {
			t.Errorf("part %s: the writer does not write it in an example", c.name)
			continue
		}
		m, inMatch := matches[c.name]
		if (c.writeMatch != nil) != inMatch {
			t.Errorf("part %s: the writer writes it in a match: %v; this test gives a match carrying it: %v", c.name, c.writeMatch != nil, inMatch)
		}
		rec := Recorded{ID: "rec", Match: m.match, Examples: []Example{given}, Events: []RecordedEvent{started(0), finished(1)}}
		data, err := yaml.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		list, diags := Parse("rec.yaml", data)
		if len(diags) > 0 {
			t.Errorf("part %s: the written scenario does not parse: %v\n%s", c.name, diags, data)
			continue
		}
		sc := list[0]
		got := sc.Examples[0]
		got.pos = pos{}
		if !reflect.DeepEqual(got, given) {
			t.Errorf("part %s: the example read back is\n%#v\nwant\n%#v\n%s", c.name, got, given, data)
		}
		if inMatch {
			if c.count(&sc.Match) == 0 || c.describe(&sc.Match) != m.want {
				t.Errorf("part %s: the match read back wants %q, want %q\n%s", c.name, c.describe(&sc.Match), m.want, data)
			}
		}
	}
}

// Trying a match that gives every part against a request that has them allocates
// nothing: holds is the hot path of selection.
func TestAMatchOfEveryPartHoldsWithoutAllocating(t *testing.T) {
	set, err := loadOne(t, `
match:
  route: /travel
  agent: researcher
  message: ^book (?P<what>\w+)$
  system: brief
  forwardedProps: {theme: dark}
  state: {cart: [tea]}
  tools: [search]
  context: [{description: locale, value: ^de}]
  conversation: [system, user: ^book]
  headers: {x-user: ^ann$}
examples:
  - route: /travel
    agent: researcher
    conversation: [{role: system, content: be brief}, {role: user, content: book trains}]
    forwardedProps: {theme: dark}
    state: {cart: [tea, milk]}
    tools: [search]
    context: [{description: locale, value: de-DE}]
    headers: {X-User: ann}
steps: [{text: a}]
`)
	if err != nil {
		t.Fatal(err)
	}
	sc := set.Scenarios()[0]
	for i := range criteria {
		if criteria[i].count(&sc.Match) == 0 {
			t.Errorf("the match gives no %s: give it one", criteria[i].name)
		}
	}
	req, err := sc.Examples[0].request()
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := req.Input.LastUserMessage()
	text := msg.Text()
	if !sc.Match.holds(req, text) {
		_, reasons := sc.Match.test(req)
		t.Fatalf("the example misses its match: %v", reasons)
	}
	if raceDetector() {
		t.Skip("under the race detector sync.Pool drops items at random, and the patterns' pooled machines are made again: make go-test runs this test again without it")
	}
	if allocs := testing.AllocsPerRun(100, func() { sc.Match.holds(req, text) }); allocs != 0 {
		t.Errorf("holds allocates %v times a call", allocs)
	}
}

// raceDetector reports whether the test runs under the race detector.
func raceDetector() bool {
	info, _ := debug.ReadBuildInfo()
	return info != nil && slices.Contains(info.Settings, debug.BuildSetting{Key: "-race", Value: "true"})
}
