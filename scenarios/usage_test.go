package scenarios

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/protocol"
)

// terminalUsage plans the scenario for the request and returns the usage of its last
// event, nil when it has none.
func terminalUsage(t *testing.T, yaml, body string, opts PlanOptions) (string, any) {
	t.Helper()
	set, err := loadOne(t, yaml)
	if err != nil {
		t.Fatal(err)
	}
	plan := planFor(t, set, request(t, "/", body), opts)
	last := plan.Events[len(plan.Events)-1].Event
	usage, _ := last.Get("usage")
	return last.Type, usage
}

func TestWrittenUsageGoesOnTheTerminalEvent(t *testing.T) {
	one := map[string]any{"provider": "openai", "model": "gpt-4o", "inputTokens": int64(120), "outputTokens": int64(40), "totalTokens": int64(160), "cachedInputTokens": int64(100)}
	two := map[string]any{"provider": "anthropic", "model": "claude", "inputTokens": int64(10), "outputTokens": int64(5), "cacheWriteInputTokens": int64(8)}
	for _, c := range []struct {
		name, yaml, typ string
		want            []any
	}{
		{"one entry, finished", "usage: {provider: openai, model: gpt-4o, inputTokens: 120, outputTokens: 40, totalTokens: 160, cachedInputTokens: 100}\nsteps: [{text: hi}]\n",
			protocol.RunFinished, []any{one}},
		{"a list, failed", "usage:\n  - {provider: openai, model: gpt-4o, inputTokens: 120, outputTokens: 40, totalTokens: 160, cachedInputTokens: 100}\n  - {provider: anthropic, model: claude, inputTokens: 10, outputTokens: 5, cacheWriteInputTokens: 8}\nsteps: [{text: hi}, {error: boom}]\n",
			protocol.RunError, []any{one, two}},
	} {
		t.Run(c.name, func(t *testing.T) {
			typ, usage := terminalUsage(t, c.yaml, `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"hi"}]}`, PlanOptions{})
			if typ != c.typ || !reflect.DeepEqual(usage, c.want) {
				t.Errorf("%s usage %v, want %s %v", typ, usage, c.typ, c.want)
			}
		})
	}
}

func TestUsageNoneAndTheDefault(t *testing.T) {
	body := `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"hi"}]}`
	if _, usage := terminalUsage(t, "steps: [{text: hi}]\n", body, PlanOptions{}); usage != nil {
		t.Errorf("a scenario without usage reports %v", usage)
	}
	if _, usage := terminalUsage(t, "steps: [{text: hi}]\n", body, PlanOptions{Usage: true}); usage == nil {
		t.Error("the server's default reports no usage")
	}
	if _, usage := terminalUsage(t, "usage: none\nsteps: [{text: hi}]\n", body, PlanOptions{Usage: true}); usage != nil {
		t.Errorf("usage: none reports %v", usage)
	}
}

func TestEstimatedUsageCountsTheRequestAndTheStream(t *testing.T) {
	yaml := `usage: auto
steps:
  - reasoning: think about it
  - text: Here is the answer.
  - tool: {name: lookup, args: {q: weather}, result: sunny}
`
	body := `{"threadId":"t","runId":"r","messages":[
	  {"id":"s","role":"system","content":"You are a helpful assistant."},
	  {"id":"u1","role":"user","content":"first question"},
	  {"id":"a1","role":"assistant","content":"first answer"},
	  {"id":"u2","role":"user","content":"and the weather?"}],
	  "tools":[{"name":"lookup","description":"look things up","parameters":{"type":"object"}}],
	  "context":[{"description":"locale","value":"en-GB"}]}`
	_, usage := terminalUsage(t, yaml, body, PlanOptions{})
	got := usage.([]any)[0].(map[string]any)
	// input: 3 to prime the reply, 4 a message and their text (28, 14, 12 and 16
	// characters: 7+4+3+4 tokens), the tool (6, 14 and 17 characters of name,
	// description and schema: 2+4+5) and the context (6 and 5: 2+2); cached: the three
	// messages before the newest user message
	in := int64(3 + 4*4 + 7 + 4 + 3 + 4 + 2 + 4 + 5 + 2 + 2)
	cached := int64(4*3 + 7 + 4 + 3)
	// output: the reasoning's words ("think ", "about ", "it": 2+2+1), the text's
	// ("Here ", "is ", "the ", "answer.": 2+1+1+2), the tool's name (2) and arguments
	// ({"q":"weather"} in 8-character pieces: 2+2)
	reasoning := int64(5)
	out := reasoning + 6 + 2 + 4
	want := map[string]any{"provider": estimatedProvider, "model": estimatedModel, "inputTokens": in, "outputTokens": out,
		"totalTokens": in + out, "reasoningTokens": reasoning, "cachedInputTokens": cached}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("estimated usage\n%v, want\n%v", got, want)
	}
	if problems := protocol.CheckUsage([]protocol.TokenUsage{usageOf(t, got)}); len(problems) > 0 {
		t.Errorf("the estimate breaks the accounting: %+v", problems)
	}
	// the same request, planned again, reports the same usage
	if _, again := terminalUsage(t, yaml, body, PlanOptions{Seed: 7}); !reflect.DeepEqual(again, usage) {
		t.Errorf("planned again: %v, want %v", again, usage)
	}
}

func usageOf(t *testing.T, m map[string]any) protocol.TokenUsage {
	t.Helper()
	u := protocol.TokenUsage{Counts: map[string]int64{}}
	u.Provider, _ = m["provider"].(string)
	u.Model, _ = m["model"].(string)
	for _, name := range protocol.UsageCounts() {
		if n, ok := m[name].(int64); ok {
			u.Counts[name] = n
		}
	}
	return u
}

func TestUsageEveryRunOfAConversation(t *testing.T) {
	set, err := loadOne(t, `usage: {provider: p, model: m, inputTokens: 1, outputTokens: 1}
steps:
  - interrupt: {id: ok, message: "Proceed?"}
  - text: done
`)
	if err != nil {
		t.Fatal(err)
	}
	plan := planFor(t, set, request(t, "/", `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"go"}]}`), PlanOptions{})
	last := plan.Events[len(plan.Events)-1].Event
	if _, has := last.Get("usage"); !has || last.Outcome()["type"] != "interrupt" {
		t.Errorf("the interrupted run ends with %v", last.Map())
	}
}

func TestUsageProblems(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"usage: lots\nsteps: [{text: hi}]\n", `test.yaml:1:8: usage is auto, none, an entry or a list of entries, got "lots"`},
		{"usage: []\nsteps: [{text: hi}]\n", "test.yaml:1:8: usage lists no entry"},
		{"usage: {}\nsteps: [{text: hi}]\n", "test.yaml:1:8: a usage entry says nothing"},
		{"usage: {inputToken: 3}\nsteps: [{text: hi}]\n", `test.yaml:1:9: unknown key "inputToken" in a usage entry (hint: did you mean "inputTokens"?)`},
		{"usage: {inputTokens: -1}\nsteps: [{text: hi}]\n", `test.yaml:1:22: inputTokens must be a whole number from 0 to 9007199254740991, got "-1"`},
		{"usage: {inputTokens: 1.5}\nsteps: [{text: hi}]\n", `inputTokens must be a whole number from 0 to 9007199254740991, got "1.5"`},
		{"usage: {inputTokens: '3'}\nsteps: [{text: hi}]\n", `inputTokens must be a whole number`},
		{"usage: {inputTokens: 9007199254740992}\nsteps: [{text: hi}]\n", `got "9007199254740992"`},
		{"usage: {outputTokens: 5, reasoningTokens: 6}\nsteps: [{text: hi}]\n", "test.yaml:1:43: reasoningTokens (6) is a part of outputTokens (5), so it cannot be more"},
		// as docs/scenarios.md shows it
		{"usage: {outputTokens: 40, reasoningTokens: 60}\nsteps: [{text: hi}]\n", "test.yaml:1:44: reasoningTokens (60) is a part of outputTokens (40), so it cannot be more"},
		{"usage: {inputTokens: 5, cachedInputTokens: 3, cacheWriteInputTokens: 3}\nsteps: [{text: hi}]\n", "cachedInputTokens (3) and cacheWriteInputTokens (3) are parts of inputTokens (5), so together they cannot be more"},
		{"usage: {inputTokens: 5, outputTokens: 1, totalTokens: 7}\nsteps: [{text: hi}]\n", "totalTokens (7) is inputTokens plus outputTokens (6)"},
		{"usage: {inputTokens: 5, totalTokens: 4}\nsteps: [{text: hi}]\n", "totalTokens (4) is inputTokens plus outputTokens, so it cannot be less than either"},
		{"usage: [{provider: p, model: m, inputTokens: 1}, {provider: p, model: m, outputTokens: 1}]\nsteps: [{text: hi}]\n", `entries 0 and 1 are both for provider "p" and model "m": usage has one entry per provider and model`},
		{"usage: {model: '{{ .message }}', inputTokens: 1}\nsteps: [{text: hi}]\n", "a usage model cannot be a template"},
		{"usage: auto\nevents: [{type: RUN_STARTED, threadId: t, runId: r}]\n", "usage belongs to the steps form (hint: put usage on the RUN_FINISHED or RUN_ERROR event)"},
	} {
		_, err := loadOne(t, c.yaml)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.yaml, err, c.want)
		}
	}
}

func TestExplicitUsageIsCheckedAsTheClientReadsIt(t *testing.T) {
	_, err := loadOne(t, `events:
  - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
  - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}", usage: [{inputTokens: -2}]}
`)
	if err == nil || !strings.Contains(err.Error(), "RUN_FINISHED.usage: the entry at index 0: inputTokens is -2, expected a whole number from 0 to 9007199254740991") {
		t.Errorf("got %v", err)
	}
}
