package scenarios

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestSelectPrecedenceAndCandidates(t *testing.T) {
	set, err := loadOne(t, `
id: general
match: {message: hello}
steps: [{text: general}]
---
id: specific
match: {message: hello, forwardedProps: {scenario_name: greet}}
steps: [{text: specific}]
---
id: urgent
priority: 10
match: {message: HELLO}
steps: [{text: urgent}]
`)
	if err != nil {
		t.Fatal(err)
	}
	pick := func(body string) string {
		sel, _ := set.Select(request(t, "/agui/chat", body))
		if sel == nil {
			return ""
		}
		return sel.Scenario.ID
	}
	if got := pick(`{"messages":[{"role":"user","content":"hello"}],"forwardedProps":{"scenario_name":"greet"}}`); got != "specific" {
		t.Errorf("more criteria should win a priority tie, got %s", got)
	}
	if got := pick(`{"messages":[{"role":"user","content":"hello"}]}`); got != "general" {
		t.Errorf("got %s", got)
	}
	if got := pick(`{"messages":[{"role":"user","content":"HELLO"}]}`); got != "urgent" {
		t.Errorf("got %s", got)
	}
	sel, cands := set.Select(request(t, "/agui/chat", `{"messages":[{"role":"user","content":"bye"}],"forwardedProps":{"scenario_name":"greet"}}`))
	if sel != nil || len(cands) != 3 {
		t.Fatalf("got %v, %v", sel, cands)
	}
	if cands[0].ID != "specific" && cands[0].ID != "general" && cands[0].ID != "urgent" || !strings.Contains(cands[0].Reasons[0], `message "bye" does not match`) {
		t.Errorf("candidates %+v", cands)
	}
}

func TestMatchCriteria(t *testing.T) {
	set, err := loadOne(t, `
match:
  route: /custom
  tools: [clarify]
  state: {mode: edit, items: [{id: 1}]}
  headers: {x-scenario: ^demo$}
steps: [{text: a}]
`)
	if err != nil {
		t.Fatal(err)
	}
	m := set.Scenarios()[0].Match
	req := request(t, "/custom", `{"messages":[],"tools":[{"name":"clarify"}],"state":{"mode":"edit","extra":true,"items":[{"id":1,"x":2},{"id":5}]}}`)
	req.Header.Set("X-Scenario", "demo")
	if _, reasons := m.test(req); len(reasons) > 0 {
		t.Errorf("should match: %v", reasons)
	}
	req = request(t, "/other", `{"messages":[],"state":{"mode":"view"}}`)
	_, reasons := m.test(req)
	want := []string{
		"route /other is not /custom",
		`state does not contain {"items":[{"id":1}],"mode":"edit"}`,
		"the client does not offer tool clarify",
		`header x-scenario (absent) does not match /^demo$/`,
	}
	if !reflect.DeepEqual(reasons, want) {
		t.Errorf("reasons\n got %q\nwant %q", reasons, want)
	}
	if !set.IsRunRoute("/custom") || !set.IsRunRoute("/agui/chat") || set.IsRunRoute("/nope") {
		t.Errorf("routes %v", set.Routes())
	}
}

// TestEachCriterionExplainsExactlyItsMisses: for every criterion and request, holds is
// false exactly when explainMiss gives a reason, so Select and its candidates agree.
func TestEachCriterionExplainsExactlyItsMisses(t *testing.T) {
	set, err := loadOne(t, `
match:
  route: [/custom, /other]
  message: ^(?i)hello (?P<who>\w+)
  forwardedProps: {mode: edit, n: 2}
  state: {items: [{id: 1}]}
  tools: [clarify, search]
  headers: {x-scenario: ^demo$, x-empty: ^$}
steps: [{text: a}]
`)
	if err != nil {
		t.Fatal(err)
	}
	m := set.Scenarios()[0].Match
	bodies := []string{
		`{"messages":[]}`,
		`{"messages":[{"role":"user","content":"hello world"}],"forwardedProps":{"mode":"edit","n":2},"state":{"items":[{"id":1}]},"tools":[{"name":"clarify"},{"name":"search"}]}`,
		`{"messages":[{"role":"user","content":"HELLO you"}],"forwardedProps":{"mode":"view","n":2.0},"state":{"items":[]},"tools":[{"name":"search"}]}`,
		`{"messages":[{"role":"user","content":"say hello x"}],"forwardedProps":[1],"state":null}`,
	}
	headers := []map[string]string{nil, {"X-Scenario": "demo"}, {"X-Scenario": "demo", "X-Empty": ""}, {"X-Empty": "no"}}
	matched := 0
	for _, route := range []string{"/custom", "/other", "/agui/chat"} {
		for _, body := range bodies {
			for _, h := range headers {
				req := request(t, route, body)
				for k, v := range h {
					req.Header.Set(k, v)
				}
				msg, _ := req.Input.LastUserMessage()
				text := msg.Text()
				all := true
				for i, c := range criteria {
					holds, reasons := c.holds(&m, req, text), c.explainMiss(&m, req, text)
					if holds != (len(reasons) == 0) {
						t.Errorf("criterion %d on %s %s %v: holds %v, reasons %q", i, route, body, h, holds, reasons)
					}
					all = all && holds
				}
				if all {
					matched++
				}
				if _, reasons := m.test(req); m.holds(req, text) != all || all != (len(reasons) == 0) {
					t.Errorf("%s %s %v: holds %v, every criterion %v, reasons %q", route, body, h, m.holds(req, text), all, reasons)
				}
			}
		}
	}
	if matched != 2 {
		t.Errorf("%d requests match, want 2 (both routes)", matched)
	}
	if got := m.Criteria(); got != 2+1+2+1+2+2 {
		t.Errorf("Criteria() = %d", got)
	}
}

func TestLiteralPrefixes(t *testing.T) {
	tests := []struct {
		pattern, text string
		prefix        string
		admits        bool
	}{
		{`^hello (?P<x>\w+)`, "hello world", "hello ", true},
		{`^hello`, "Hello", "hello", false},
		{`(?i)^question 7\b`, "QUESTION 7 a", "QUESTION 7", true},
		{`(?i)^question 7`, "question 8", "QUESTION 7", false},
		{`hello`, "say hello", "", true}, // not anchored: no prefix
		{`^(?:a|b)c`, "bc", "", true},
		{`^ü`, "ü", "", true}, // non-ASCII: no prefix
		{`^hi`, "h", "hi", false},
	}
	for _, tt := range tests {
		p := prefixOf(regexp.MustCompile(tt.pattern))
		if p.text != tt.prefix || p.admits(tt.text) != tt.admits {
			t.Errorf("%s on %q: prefix %q admits %v", tt.pattern, tt.text, p.text, p.admits(tt.text))
		}
		if !p.admits(tt.text) && regexp.MustCompile(tt.pattern).MatchString(tt.text) {
			t.Errorf("%s: the prefix rejects %q, which the pattern matches", tt.pattern, tt.text)
		}
	}
}

// Explain names each kind of criterion a match gives, what it wants, and whether it
// held, with the reasons of a miss; kinds the match does not give are left out.
func TestExplainSaysWhichCriteriaHeld(t *testing.T) {
	set, err := loadOne(t, `
match:
  route: /custom
  message: ^hello
  tools: [search]
steps: [{text: a}]
`)
	if err != nil {
		t.Fatal(err)
	}
	m := set.Scenarios()[0].Match
	got := m.Explain(request(t, "/custom", `{"messages":[{"role":"user","content":"hello there"}]}`))
	want := []CriterionCheck{
		{Criterion: "route", Want: "/custom", Held: true},
		{Criterion: "message", Want: "/^hello/", Held: true},
		{Criterion: "tools", Want: "search", Held: false, Reasons: []string{"the client does not offer tool search"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Explain = %+v\nwant %+v", got, want)
	}
	for i := range criteria {
		if criteria[i].name == "" || criteria[i].describe == nil {
			t.Errorf("criterion %d has no name or description", i)
		}
	}
}

// match.system reads the latest system or developer message, match.context wants each
// pattern matched by some context item; each says why it missed.
func TestMatchOnSystemAndContext(t *testing.T) {
	set, err := loadOne(t, `
match:
  system: (?i)travel assistant
  context:
    - {description: "(?i)locale", value: ^de}
    - {value: premium}
steps: [{text: a}]
`)
	if err != nil {
		t.Fatal(err)
	}
	m := set.Scenarios()[0].Match
	tests := []struct {
		name, body string
		reasons    []string
	}{
		{"both hold", `{"messages":[{"role":"system","content":"old"},{"role":"user","content":"hi"},{"role":"developer","content":"You are a Travel Assistant."}],
			"context":[{"description":"The user's locale","value":"de-DE"},{"description":"plan","value":"premium"}]}`, nil},
		{"an older system message does not count", `{"messages":[{"role":"system","content":"travel assistant"},{"role":"developer","content":"be brief"}],
			"context":[{"description":"locale","value":"de-AT"},{"description":"plan","value":"premium"}]}`,
			[]string{`system message "be brief" does not match /(?i)travel assistant/`}},
		{"no system message, no context", `{"messages":[{"role":"user","content":"hi"}]}`, []string{
			"the request has no system or developer message to match /(?i)travel assistant/",
			"no context item matches {description /(?i)locale/, value /^de/} (the request has no context)",
			"no context item matches {value /premium/} (the request has no context)",
		}},
		{"one item must match both patterns", `{"messages":[{"role":"system","content":"travel assistant"}],
			"context":[{"description":"locale","value":"en-GB"},{"description":"region","value":"de"},{"description":"plan","value":"premium"}]}`,
			[]string{`no context item matches {description /(?i)locale/, value /^de/} (the request has 3: "locale", "region", "plan")`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := request(t, "/", tt.body)
			_, reasons := m.test(req)
			if !reflect.DeepEqual(reasons, tt.reasons) {
				t.Errorf("reasons\n got %q\nwant %q", reasons, tt.reasons)
			}
			if m.holds(req, "") != (len(reasons) == 0) {
				t.Errorf("holds %v with reasons %q", m.holds(req, ""), reasons)
			}
			for _, c := range m.Explain(req) {
				if c.Held != (len(c.Reasons) == 0) {
					t.Errorf("Explain: %+v", c)
				}
			}
		})
	}
	if got := m.Criteria(); got != 3 {
		t.Errorf("Criteria() = %d, want 3", got)
	}
	want := []CriterionCheck{
		{Criterion: "system", Want: "/(?i)travel assistant/", Held: false, Reasons: []string{"the request has no system or developer message to match /(?i)travel assistant/"}},
		{Criterion: "context", Want: "{description /(?i)locale/, value /^de/}, {value /premium/}", Held: false, Reasons: []string{
			"no context item matches {description /(?i)locale/, value /^de/} (the request has no context)",
			"no context item matches {value /premium/} (the request has no context)"}},
	}
	if got := m.Explain(request(t, "/", `{"messages":[]}`)); !reflect.DeepEqual(got, want) {
		t.Errorf("Explain = %+v\nwant %+v", got, want)
	}
}

// An example's system message and context select a scenario that matches on them, and
// a scenario without examples is dry-run on a request its patterns match.
func TestExamplesOfSystemAndContext(t *testing.T) {
	set, err := loadOne(t, `
id: travel
match:
  message: (?i)book
  system: (?i)travel
  context: [{description: locale, value: "^(de|fr)"}]
examples:
  - message: book a flight
    system: You are a travel assistant.
    context: [{description: locale, value: de-DE}]
steps:
  - text: "{{ (index .context 0).value }} / {{ (index .messages 0).role }}"
---
id: sampled
match:
  system: ^Be (brief|kind)$
  context: [{value: ^x\d$}]
steps:
  - text: "{{ (index .context 0).value }}"
`)
	if err != nil {
		t.Fatal(err)
	}
	ex := set.Scenarios()[0].Examples[0]
	in := ex.RunInput(RunIDs{Thread: "t", Run: "r", Message: "m"})
	msgs := in["messages"].([]any)
	if len(msgs) != 2 || msgs[0].(map[string]any)["role"] != "system" || msgs[0].(map[string]any)["id"] != "m-system" {
		t.Errorf("the example's messages: %v", msgs)
	}
	for _, bad := range []struct{ yaml, want string }{
		{"match: {context: {value: x}}\nsteps: [{text: a}]\n", "match.context must be a list of {description, value}"},
		{"match: {context: [{}]}\nsteps: [{text: a}]\n", "match.context item needs a description or a value"},
		{"match: {context: [{name: x}]}\nsteps: [{text: a}]\n", `unknown key "name" in match.context item`},
		{"match: {context: [{value: '('}]}\nsteps: [{text: a}]\n", "missing closing )"},
		{"match: {sytem: x}\nsteps: [{text: a}]\n", `unknown key "sytem" in match (hint: did you mean "system"?)`},
		{"match: {system: x}\nexamples: [{message: hi}]\nsteps: [{text: a}]\n", "its own match misses it: the request has no system or developer message to match /x/"},
	} {
		if _, err := loadOne(t, bad.yaml); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: got %v, want %q", bad.yaml, err, bad.want)
		}
	}
}
