package scenarios

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// A scenario that pauses twice for the frontend, and a text turn between.
const twoPauses = `
id: two-pauses
match: {message: plan}
steps:
  - text: First, where?
  - tool: {name: ask_place, args: {q: where}}
  - text: "{{ .answer.content }} it is. And when?"
  - tool:
      name: ask_date
      args: {q: when}
      on:
        - content: today
          steps: [{text: Today then.}]
        - steps: [{text: "On {{ .answer.content }}."}]
  - text: Booked.
`

// clientMessages are a client's messages, built the way a client holds them.
type clientMessages struct {
	t    *testing.T
	msgs []map[string]any
}

func (c *clientMessages) add(m map[string]any) { c.msgs = append(c.msgs, m) }

// played folds a run's events into the messages, as the client does.
func (c *clientMessages) played(plan *Plan) {
	conv := protocol.Conversation{Messages: c.msgs}
	for _, ev := range plan.Events {
		_ = conv.Apply(ev.Event)
	}
	conv.Settle()
	c.msgs = conv.Messages
}

// lastCall is the id of the last tool call the client holds.
func (c *clientMessages) lastCall() string {
	for _, m := range slices.Backward(c.msgs) {
		if calls, _ := m["toolCalls"].([]any); len(calls) > 0 {
			return calls[len(calls)-1].(map[string]any)["id"].(string)
		}
	}
	c.t.Fatal("no tool call")
	return ""
}

func (c *clientMessages) request() *Request {
	body, _ := json.Marshal(map[string]any{"threadId": "t", "runId": "r", "messages": c.msgs})
	return request(c.t, "/", string(body))
}

// planned plans what a server that holds nothing of the thread plays for the request.
func planned(t *testing.T, set *Set, req *Request, seed uint64) (*Plan, bool) {
	t.Helper()
	opts := PlanOptions{Seed: seed, Now: time.Now()}
	cursor, recalled := set.Recall(t.Context(), req, "", opts)
	start, continues, err := Continue(cursor, req.Input, opts.Now)
	if err != nil {
		t.Fatal(err)
	}
	if !continues {
		return planFor(t, set, req, opts), recalled
	}
	plan, err := cursor.Scenario.Plan(t.Context(), req, start, opts)
	if err != nil {
		t.Fatal(err)
	}
	return plan, recalled
}

func textsOf(plan *Plan) []string {
	var out []string
	for _, ev := range plan.Events {
		switch ev.Event.Type {
		case protocol.TextMessageStart:
			out = append(out, "")
		case protocol.TextMessageContent:
			out[len(out)-1] += ev.Event.Str("delta")
		}
	}
	return out
}

func TestRecallFollowsEveryPauseOfTheConversation(t *testing.T) {
	set, err := loadOne(t, twoPauses)
	if err != nil {
		t.Fatal(err)
	}
	c := &clientMessages{t: t}
	c.add(map[string]any{"id": "u1", "role": "user", "content": "plan a trip"})
	// every run on a server of its own: none holds the thread, and each mints other ids
	plan, recalled := planned(t, set, c.request(), 1)
	if recalled || !slices.Equal(textsOf(plan), []string{"First, where?"}) {
		t.Fatalf("the first run: recalled %v, texts %q", recalled, textsOf(plan))
	}
	c.played(plan)
	c.add(map[string]any{"id": "t1", "role": "tool", "toolCallId": c.lastCall(), "content": "Lisbon"})
	plan, recalled = planned(t, set, c.request(), 2)
	if !recalled || !slices.Equal(textsOf(plan), []string{"Lisbon it is. And when?"}) {
		t.Fatalf("the answer to the first call: recalled %v, texts %q", recalled, textsOf(plan))
	}
	c.played(plan)
	c.add(map[string]any{"id": "t2", "role": "tool", "toolCallId": c.lastCall(), "content": "Friday"})
	plan, recalled = planned(t, set, c.request(), 3)
	if !recalled || !slices.Equal(textsOf(plan), []string{"On Friday.", "Booked."}) {
		t.Fatalf("the answer to the second call: recalled %v, texts %q", recalled, textsOf(plan))
	}
	if plan.Next != nil {
		t.Error("the conversation is over, yet it waits")
	}
	results := 0
	for _, ev := range plan.Events {
		if ev.Event.Type == protocol.ToolCallStart {
			t.Errorf("a continuation called %s again", ev.Event.Str("toolCallName"))
		}
		if ev.Event.Type == protocol.ToolCallResult {
			results++
		}
	}
	if results != 0 {
		t.Errorf("%d tool results for frontend tools", results)
	}
}

func TestRecallTakesOnlyTheMocksOwnCalls(t *testing.T) {
	set, err := loadOne(t, twoPauses)
	if err != nil {
		t.Fatal(err)
	}
	call := func(name string) map[string]any {
		return map[string]any{"id": "a1", "role": "assistant", "toolCalls": []any{
			map[string]any{"id": "call-1", "type": "function", "function": map[string]any{"name": name, "arguments": "{}"}}}}
	}
	user := map[string]any{"id": "u1", "role": "user", "content": "plan a trip"}
	answer := map[string]any{"id": "t1", "role": "tool", "toolCallId": "call-1", "content": "Lisbon"}
	for _, tt := range []struct {
		name string
		msgs []map[string]any
		want bool
	}{
		{"its own call, under the client's id", []map[string]any{user, call("ask_place"), answer}, true},
		{"a call the scenario does not make there", []map[string]any{user, call("ask_date"), answer}, false},
		{"a call of another tool", []map[string]any{user, call("search"), answer}, false},
		{"a call without an answer", []map[string]any{user, call("ask_place")}, false},
		{"an answer followed by the agent's text", []map[string]any{user, call("ask_place"), answer, {"id": "a2", "role": "assistant", "content": "ok"}}, false},
		{"a message no scenario matches", []map[string]any{{"id": "u1", "role": "user", "content": "hello"}, call("ask_place"), answer}, false},
		{"no user message", []map[string]any{call("ask_place"), answer}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &clientMessages{t: t, msgs: tt.msgs}
			cursor, ok := set.Recall(t.Context(), c.request(), "", PlanOptions{Now: time.Now()})
			if ok != tt.want {
				t.Fatalf("recalled %v, want %v", ok, tt.want)
			}
			if ok && (len(cursor.ToolCalls) != 1 || cursor.ToolCalls[0].ID != "call-1") {
				t.Errorf("the cursor waits for %+v, want the client's call-1", cursor.ToolCalls)
			}
		})
	} // a scenario the request forces starts the conversation played again, whatever it matches
	c := &clientMessages{t: t, msgs: []map[string]any{{"id": "u1", "role": "user", "content": "hello"}, call("ask_place"), answer}}
	if _, ok := set.Recall(t.Context(), c.request(), "two-pauses", PlanOptions{Now: time.Now()}); !ok {
		t.Error("the forced scenario's call was not recalled")
	}
}

func TestRecallPlaysAtMostMaxRecalledRuns(t *testing.T) {
	yaml := "id: many\nmatch: {message: go}\nsteps:\n"
	for i := range MaxRecalledRuns + 2 {
		yaml += fmt.Sprintf("  - tool: {name: step%d}\n  - text: after %d\n", i, i)
	}
	set, err := loadOne(t, yaml)
	if err != nil {
		t.Fatal(err)
	}
	c := &clientMessages{t: t}
	c.add(map[string]any{"id": "u1", "role": "user", "content": "go"})
	// before run i the client answered i calls, and recalling the last of them plays i runs again
	for i := range MaxRecalledRuns + 2 {
		plan, recalled := planned(t, set, c.request(), uint64(i))
		if want := i > 0 && i <= MaxRecalledRuns; recalled != want {
			t.Fatalf("run %d: recalled %v, want %v", i, recalled, want)
		}
		c.played(plan)
		c.add(map[string]any{"id": fmt.Sprint("t", i), "role": "tool", "toolCallId": c.lastCall(), "content": "ok"})
	}
}

func TestRecallContinuesARecordedSession(t *testing.T) {
	set, err := loadOne(t, `
id: recorded
match: {message: ^find it$}
events:
  - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
  - {type: TOOL_CALL_START, toolCallId: "{{ id `+"`c1`"+` }}", toolCallName: search}
  - {type: TOOL_CALL_ARGS, toolCallId: "{{ id `+"`c1`"+` }}", delta: "{}"}
  - {type: TOOL_CALL_END, toolCallId: "{{ id `+"`c1`"+` }}"}
  - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
next:
  - when: {toolResults: [found]}
    events:
      - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
      - {type: TEXT_MESSAGE_START, messageId: "{{ id `+"`m1`"+` }}", role: assistant}
      - {type: TEXT_MESSAGE_CONTENT, messageId: "{{ id `+"`m1`"+` }}", delta: Found it.}
      - {type: TEXT_MESSAGE_END, messageId: "{{ id `+"`m1`"+` }}"}
      - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
`)
	if err != nil {
		t.Fatal(err)
	}
	c := &clientMessages{t: t}
	c.add(map[string]any{"id": "u1", "role": "user", "content": "find it"})
	plan, _ := planned(t, set, c.request(), 1)
	c.played(plan)
	c.add(map[string]any{"id": "t1", "role": "tool", "toolCallId": c.lastCall(), "content": "found"})
	plan, recalled := planned(t, set, c.request(), 2)
	if !recalled || !slices.Equal(textsOf(plan), []string{"Found it."}) {
		t.Fatalf("recalled %v, texts %q", recalled, textsOf(plan))
	}
}

func TestRecallWithoutAUserMessageStartsFromTheMessagesBeforeTheAgentsFirst(t *testing.T) {
	set, err := loadOne(t, `
id: by-route
match: {route: /plan}
steps:
  - tool: {name: ask_place}
  - text: Noted.
`)
	if err != nil {
		t.Fatal(err)
	}
	c := &clientMessages{t: t, msgs: []map[string]any{
		{"id": "s1", "role": "system", "content": "be brief"},
		{"id": "a1", "role": "assistant", "toolCalls": []any{map[string]any{"id": "call-1", "type": "function", "function": map[string]any{"name": "ask_place", "arguments": "{}"}}}},
		{"id": "t1", "role": "tool", "toolCallId": "call-1", "content": "Lisbon"},
	}}
	req := c.request()
	req.Route = "/plan"
	if _, ok := set.Recall(t.Context(), req, "", PlanOptions{Now: time.Now()}); !ok {
		t.Error("not recalled")
	}
}
