package scenarios

import (
	"context"
	"fmt"
	"net/textproto"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

func request(t *testing.T, route, body string) *Request {
	t.Helper()
	in, err := protocol.DecodeRunAgentInput([]byte(body), protocol.DecodeOptions{NewID: func(k string) string { return k + "-x" }})
	if err != nil {
		t.Fatal(err)
	}
	return &Request{Route: route, Input: in, Header: textproto.MIMEHeader{}}
}

func planFor(t *testing.T, set *Set, req *Request, opts PlanOptions) *Plan {
	t.Helper()
	sel, cands := set.Select(req)
	if sel == nil {
		t.Fatalf("no scenario selected: %+v", cands)
	}
	plan, err := sel.Scenario.Plan(context.Background(), req, Start{Captures: sel.Captures}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func TestPlanTiming(t *testing.T) {
	set, err := loadOne(t, `
timing: {firstEvent: 100ms, firstToken: 1s, stepGap: 200ms, tokensPerSecond: 10, jitter: 0}
steps:
  - text: one two three
  - pause: 2s
  - text: four
    delay: 50ms
  - tool: {name: t, args: {a: 1}, result: ok}
`)
	if err != nil {
		t.Fatal(err)
	}
	plan := planFor(t, set, request(t, "/", `{"threadId":"t","runId":"r","messages":[]}`), PlanOptions{Timing: DefaultTiming()})
	var got []string
	for _, ev := range plan.Events {
		got = append(got, ev.At.String()+" "+ev.Event.Type)
	}
	want := []string{
		"100ms RUN_STARTED",
		"1.1s TEXT_MESSAGE_START", "1.1s TEXT_MESSAGE_CONTENT", "1.2s TEXT_MESSAGE_CONTENT", "1.3s TEXT_MESSAGE_CONTENT", "1.3s TEXT_MESSAGE_END",
		// the pause step follows the step gap, then the text's own delay replaces the gap
		"3.55s TEXT_MESSAGE_START", "3.55s TEXT_MESSAGE_CONTENT", "3.55s TEXT_MESSAGE_END",
		"3.75s TOOL_CALL_START", "3.75s TOOL_CALL_ARGS", "3.75s TOOL_CALL_END", "3.95s TOOL_CALL_RESULT",
		"4.15s RUN_FINISHED",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("timeline\n got %q\nwant %q", got, want)
	}
}

func TestPlanIsReproducibleUnderASeed(t *testing.T) {
	set, err := Load(Builtin())
	if err != nil {
		t.Fatal(err)
	}
	body := `{"threadId":"t","runId":"r","messages":[{"id":"1","role":"user","content":"showcase"}]}`
	render := func(seed uint64, turn int) string {
		var b strings.Builder
		for _, ev := range planFor(t, set, request(t, "/", body), PlanOptions{Seed: seed, Turn: turn, Timing: DefaultTiming()}).Events {
			out, _ := ev.Event.AppendJSON(nil, -1)
			b.WriteString(ev.At.String() + string(out) + "\n")
		}
		return b.String()
	}
	if render(7, 0) != render(7, 0) {
		t.Error("the same seed and request gave different plans")
	}
	if render(7, 0) == render(8, 0) {
		t.Error("another seed gave the same plan")
	}
	if render(7, 0) == render(7, 1) {
		t.Error("another turn of the thread gave the same plan: ids would repeat in the thread")
	}
}

// A scenario lends its planners to its next runs: a plan made by a planner another run
// used, or made while other runs plan the same scenario, is the plan a fresh one makes.
func TestAReusedPlannerPlansAsAFreshOne(t *testing.T) {
	load := func() *Set {
		set, err := Load(Builtin())
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	body := `{"threadId":"t","runId":"r","messages":[{"id":"1","role":"user","content":"showcase"}]}`
	render := func(set *Set, seed uint64) string {
		var b strings.Builder
		for _, ev := range planFor(t, set, request(t, "/", body), PlanOptions{Seed: seed, Timing: DefaultTiming()}).Events {
			out, _ := ev.Event.AppendJSON(nil, -1)
			b.WriteString(ev.At.String() + string(out) + "\n")
		}
		return b.String()
	}
	fresh := render(load(), 8)
	used := load()
	render(used, 7) // its planner, with the ids and open calls of seed 7, goes back to the pool
	if got := render(used, 8); got != fresh {
		t.Errorf("a reused planner planned\n%s\na fresh one\n%s", got, fresh)
	}
	want := make([]string, 8)
	for i := range want {
		want[i] = render(load(), uint64(100+i))
	}
	req := request(t, "/", body)
	sel, _ := used.Select(req)
	got := make([]string, len(want))
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			plan, err := sel.Scenario.Plan(context.Background(), req, Start{}, PlanOptions{Seed: uint64(100 + i), Timing: DefaultTiming()})
			if err != nil {
				got[i] = err.Error()
				return
			}
			var b strings.Builder
			for _, ev := range plan.Events {
				out, _ := ev.Event.AppendJSON(nil, -1)
				b.WriteString(ev.At.String() + string(out) + "\n")
			}
			got[i] = b.String()
		})
	}
	wg.Wait()
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("seed %d, planned beside other runs:\n%s\nwant\n%s", 100+i, got[i], want[i])
		}
	}
}

func TestTheRunKeyLeavesIdsOut(t *testing.T) {
	const conversation = `{"threadId":"t1","runId":"r1","messages":[
		{"id":"u1","role":"user","content":"make me a video"},
		{"id":"a1","role":"assistant","content":"Which style?","toolCalls":[{"id":"c1","type":"function","function":{"name":"clarify","arguments":"{}"}}]},
		{"id":"m1","role":"tool","toolCallId":"c1","content":"funny"},
		{"id":"u2","role":"user","content":[{"type":"text","text":"and short"},{"type":"binary","mimeType":"image/png","url":"https://x/a.png"}]}],
		"resume":[{"interruptId":"i1","status":"resolved","payload":{"approved":true,"n":1.50}}]}`
	key := func(seed uint64, scenario string, turn int, body string) uint64 {
		return runKey(seed, scenario, turn, request(t, "/", body).Input)
	}
	base := key(1, "s", 2, conversation)
	other := strings.NewReplacer(`"t1"`, `"t2"`, `"r1"`, `"r2"`, `"u1"`, `"u9"`, `"a1"`, `"a9"`, `"c1"`, `"c9"`, `"m1"`, `"m9"`, `"u2"`, `"u8"`, `"i1"`, `"i9"`)
	if got := key(1, "s", 2, other.Replace(conversation)); got != base {
		t.Error("other thread, run, message, tool call and interrupt ids changed the key")
	}
	changes := map[string]uint64{
		"another seed":              key(2, "s", 2, conversation),
		"another scenario":          key(1, "s2", 2, conversation),
		"another turn":              key(1, "s", 3, conversation),
		"another user text":         key(1, "s", 2, strings.Replace(conversation, "make me a video", "make me a movie", 1)),
		"another content part":      key(1, "s", 2, strings.Replace(conversation, "a.png", "b.png", 1)),
		"another tool result":       key(1, "s", 2, strings.Replace(conversation, `"funny"`, `"serious"`, 1)),
		"another answer status":     key(1, "s", 2, strings.Replace(conversation, `"resolved"`, `"cancelled"`, 1)),
		"another payload":           key(1, "s", 2, strings.Replace(conversation, `true`, `false`, 1)),
		"another role":              key(1, "s", 2, strings.Replace(conversation, `"role":"assistant","content":"Which style?"`, `"role":"system","content":"Which style?"`, 1)),
		"a message less":            key(1, "s", 2, strings.Replace(conversation, `{"id":"m1","role":"tool","toolCallId":"c1","content":"funny"},`, "", 1)),
		"an answer without payload": key(1, "s", 2, strings.Replace(conversation, `"status":"resolved","payload":{"approved":true,"n":1.50}`, `"status":"resolved"`, 1)),
	}
	for what, got := range changes {
		if got == base {
			t.Errorf("%s left the key as it was", what)
		}
	}
}

func TestTemplatesSeeTheRequest(t *testing.T) {
	set, err := loadOne(t, `
match: {message: '(?i)book (?P<city>\w+)'}
steps:
  - text: "{{ .captures.city }}|{{ index .captures \"1\" }}|{{ .threadId }}|{{ .runId }}|{{ .forwardedProps.plan }}|{{ .state.n }}|{{ index .headers \"x-user\" }}|{{ len .tools }}|{{ .forwardedProps.missing.path }}"
    chunk: none
`)
	if err != nil {
		t.Fatal(err)
	}
	req := request(t, "/", `{"threadId":"t","runId":"r","messages":[{"role":"user","content":"Book Paris"}],"forwardedProps":{"plan":"pro"},"state":{"n":3},"tools":[{"name":"a"}]}`)
	req.Header.Set("X-User", "ada")
	plan := planFor(t, set, req, PlanOptions{Timing: DefaultTiming()})
	delta := plan.Events[2].Event.Str("delta")
	if want := "Paris|Paris|t|r|pro|3|ada|1|"; delta != want {
		t.Errorf("rendered %q, want %q", delta, want)
	}
}

func TestPlainTemplatesRenderAsTextTemplateDoes(t *testing.T) {
	set, err := loadOne(t, `
match: {message: '(?P<topic>\w+)'}
events:
  - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
  - {type: TEXT_MESSAGE_START, messageId: "{{ id `+"`m`"+` }}", role: assistant}
  - {type: TEXT_MESSAGE_CONTENT, messageId: '{{ id "m" }}', delta: "{{ .message }}/{{ .captures.topic }}/{{ .route }}/{{ .forwardedProps.missing }}/{{ id `+"`other`"+` }}/{{.parentRunId}}"}
  - {type: TEXT_MESSAGE_END, messageId: '{{ printf "%s" (id "m") }}'} # not plain: the same id either way
  - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
`)
	if err != nil {
		t.Fatal(err)
	}
	req := request(t, "/chat", `{"threadId":"t","runId":"r","messages":[{"role":"user","content":"weather"}]}`)
	sel, _ := set.Select(req)
	if sel == nil || len(sel.Scenario.plain) != 7 {
		t.Fatalf("every template of the scenario should be plain: %+v", sel)
	}
	render := func() []string {
		plan, err := sel.Scenario.Plan(context.Background(), req, Start{Captures: sel.Captures}, PlanOptions{Seed: 7, Timing: DefaultTiming()})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, ev := range plan.Events {
			b, _ := ev.Event.MarshalJSON()
			out = append(out, string(b))
		}
		return out
	}
	plain := render()
	sel.Scenario.plain = nil // every template through text/template
	if full := render(); !reflect.DeepEqual(plain, full) {
		t.Errorf("plain rendering\n%s\ntext/template\n%s", strings.Join(plain, "\n"), strings.Join(full, "\n"))
	}
	if !strings.Contains(plain[2], `"delta":"weather/weather//chat//id-`) {
		t.Errorf("content %s", plain[2])
	}
}

func TestTokenGapJitterStaysInBounds(t *testing.T) {
	set, err := loadOne(t, "timing: {tokensPerSecond: 100, jitter: 0.5, firstToken: 0}\nsteps:\n  - text: "+strings.Repeat("w ", 200)+"\n")
	if err != nil {
		t.Fatal(err)
	}
	plan := planFor(t, set, request(t, "/", `{"messages":[]}`), PlanOptions{Timing: DefaultTiming()})
	var prev time.Duration = -1
	for _, ev := range plan.Events {
		if ev.Event.Type != protocol.TextMessageContent {
			continue
		}
		if prev >= 0 {
			if gap := ev.At - prev; gap < 5*time.Millisecond || gap > 15*time.Millisecond {
				t.Fatalf("gap %v outside 10ms ± 50%%", gap)
			}
		}
		prev = ev.At
	}
}

func TestARunPlansAtMostMaxRunEvents(t *testing.T) {
	words := strings.Repeat("w ", MaxRunEvents/2)
	_, err := loadOne(t, "steps:\n  - text: "+words+"\n  - reasoning: "+words+"\n")
	want := fmt.Sprintf("dir/test.yaml:3:5: the run would stream more than %d events, the limit of one run; stream long texts in bigger pieces (chunk: sentence or none)", MaxRunEvents)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
	if _, err := loadOne(t, "steps:\n  - text: "+words+"\n  - reasoning: "+words+"\n    chunk: sentence\n"); err != nil {
		t.Errorf("in bigger pieces: %v", err)
	}
}
