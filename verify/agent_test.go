package verify

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/protocol"
)

// testAgent is a small AG-UI agent: it answers each conversation, by the text of its
// first user message, with the events its reply makes of the run's input, streamed as
// SSE between RUN_STARTED and the reply's own terminal event.
type testAgent struct {
	replies map[string]func(in *protocol.RunAgentInput) []protocol.Event
	token   string // when set, runs need Authorization: Bearer <token>

	mu      sync.Mutex
	headers []http.Header // of every run received
	bodies  [][]byte      // of every run received
}

// start serves the agent until the test ends and returns its URL.
func (a *testAgent) start(t *testing.T) string {
	t.Helper()
	return testkit.Agent(t, a.answer).String()
}

func (a *testAgent) answer(w *testkit.Stream, run *testkit.Run) {
	a.mu.Lock()
	a.headers = append(a.headers, run.Request.Header.Clone())
	a.mu.Unlock()
	if a.token != "" && run.Request.Header.Get("Authorization") != "Bearer "+a.token {
		w.Fail(http.StatusUnauthorized, "missing or wrong token")
		return
	}
	a.mu.Lock()
	a.bodies = append(a.bodies, run.Body)
	a.mu.Unlock()
	in, err := protocol.DecodeRunAgentInput(run.Body, protocol.DecodeOptions{Strict: true})
	if err != nil {
		w.Fail(http.StatusBadRequest, err.Error())
		return
	}
	first := ""
	for _, m := range in.Messages {
		if m.Role == "user" {
			first = m.Text()
			break
		}
	}
	reply, ok := a.replies[first]
	if !ok {
		w.Fail(http.StatusNotFound, "no reply for "+first)
		return
	}
	w.Event(protocol.NewEvent(protocol.RunStarted, "threadId", in.ThreadID, "runId", in.RunID))
	for _, ev := range reply(in) {
		w.Event(ev)
	}
}

// Events of replies.

func text(id, s string) []protocol.Event {
	out := []protocol.Event{protocol.NewEvent(protocol.TextMessageStart, "messageId", id, "role", "assistant")}
	for _, word := range strings.SplitAfter(s, " ") {
		out = append(out, protocol.NewEvent(protocol.TextMessageContent, "messageId", id, "delta", word))
	}
	return append(out, protocol.NewEvent(protocol.TextMessageEnd, "messageId", id))
}

func toolCall(id, name, args string) []protocol.Event {
	return []protocol.Event{
		protocol.NewEvent(protocol.ToolCallStart, "toolCallId", id, "toolCallName", name),
		protocol.NewEvent(protocol.ToolCallArgs, "toolCallId", id, "delta", args),
		protocol.NewEvent(protocol.ToolCallEnd, "toolCallId", id),
	}
}

func toolResult(callID, content string) protocol.Event {
	return protocol.NewEvent(protocol.ToolCallResult, "messageId", "res-"+callID, "toolCallId", callID, "content", content, "role", "tool")
}

func finished(in *protocol.RunAgentInput, outcome ...any) protocol.Event {
	ev := protocol.NewEvent(protocol.RunFinished, "threadId", in.ThreadID, "runId", in.RunID)
	if len(outcome) > 0 {
		ev = ev.With("outcome", outcome[0])
	}
	return ev
}

func interrupted(in *protocol.RunAgentInput, interrupts ...any) protocol.Event {
	return finished(in, map[string]any{"type": "interrupt", "interrupts": interrupts})
}

func join(parts ...any) []protocol.Event {
	var out []protocol.Event
	for _, p := range parts {
		switch x := p.(type) {
		case protocol.Event:
			out = append(out, x)
		case []protocol.Event:
			out = append(out, x...)
		}
	}
	return out
}

// offeredFixture's example keeps what the client offered; its conversation pauses on an
// interrupt after an activity, so that the second run shows what verify resends.
const offeredFixture = `id: offered
match: {message: ^book it$}
examples:
  - message: book it
    tools:
      - {name: confirm, description: Ask the user, parameters: {type: object, properties: {question: {type: string}}}}
    context: [{description: locale, value: de-DE}]
    state: {cart: [1]}
    forwardedProps: {tenant: acme}
steps:
  - activity: {type: progress, content: {done: 1}}
  - interrupt:
      reason: confirmation
      on:
        resolved: [{text: Booked.}]
`

// verify asks as @ag-ui/client 1.0.0's HttpAgent does: UUID thread, run and message ids,
// protocolVersion 1.0, the example's tools as defined, its context, state and
// forwardedProps, the headers HttpAgent sends, and no activity messages in the history.
func TestVerifyAsksAsHttpAgentDoes(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	agent := &testAgent{replies: map[string]func(in *protocol.RunAgentInput) []protocol.Event{
		"book it": func(in *protocol.RunAgentInput) []protocol.Event {
			if !uuid.MatchString(in.ThreadID) || !uuid.MatchString(in.RunID) {
				return join(protocol.NewEvent(protocol.RunError, "message", "not UUIDs: "+in.ThreadID+" "+in.RunID))
			}
			activity := protocol.NewEvent(protocol.ActivitySnapshot, "messageId", "act-1", "activityType", "progress", "content", map[string]any{"done": 2})
			if len(in.Resume) == 0 {
				return join(activity, interrupted(in, map[string]any{"id": "int-1", "reason": "confirmation"}))
			}
			return join(text("m2", "Done."), finished(in))
		},
	}}
	rep, _, _ := verifyFiles(t, agent.start(t), map[string]string{"offered.yaml": offeredFixture}, nil)
	if got := rep.Results[0]; got.Status != Pass {
		t.Fatalf("%s: %s", got.Status, got.Difference)
	}
	if len(agent.bodies) != 2 {
		t.Fatalf("%d runs", len(agent.bodies))
	}
	for i, raw := range agent.bodies {
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatal(err)
		}
		messages := body["messages"].([]any)
		for _, m := range messages {
			m := m.(map[string]any)
			if !uuid.MatchString(m["id"].(string)) || m["role"] == "activity" {
				t.Errorf("run %d sends message %v", i+1, m)
			}
		}
		if body["protocolVersion"] != "1.0" {
			t.Errorf("run %d declares protocolVersion %v", i+1, body["protocolVersion"])
		}
		offered, _ := json.Marshal([]any{body["tools"], body["context"], body["forwardedProps"]})
		if want := `[[{"description":"Ask the user","name":"confirm","parameters":{"properties":{"question":{"type":"string"}},"type":"object"}}],[{"description":"locale","value":"de-DE"}],{"tenant":"acme"}]`; string(offered) != want {
			t.Errorf("run %d offers %s, want %s", i+1, offered, want)
		}
		if h := agent.headers[i]; h.Get("Accept") != "text/event-stream" || h.Get("Content-Type") != "application/json" {
			t.Errorf("run %d headers %v", i+1, h)
		}
	}
	var first map[string]any
	_ = json.Unmarshal(agent.bodies[0], &first)
	if state, _ := json.Marshal(first["state"]); string(state) != `{"cart":[1]}` {
		t.Errorf("the first run's state %s", state)
	}
}
