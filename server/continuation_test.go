package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/agui-mock/agui-mock/protocol"
)

// snapshotOf returns the messages of a run's last MESSAGES_SNAPSHOT as role: content.
func snapshotOf(t *testing.T, events []protocol.Event) []string {
	t.Helper()
	for _, ev := range slices.Backward(events) {
		if ev.Type != protocol.MessagesSnapshot {
			continue
		}
		v, _ := ev.Get("messages")
		list, _ := v.([]any)
		var out []string
		for _, m := range list {
			m, _ := m.(map[string]any)
			out = append(out, fmt.Sprint(m["role"], ": ", m["content"]))
		}
		return out
	}
	t.Fatalf("no MESSAGES_SNAPSHOT in %v", types(events))
	return nil
}

// TestAHistorySnapshotIsTheClientsConversation: a client that resends the conversation
// with ids of its own (as a frontend that stores messages under its own ids does) gets a
// snapshot with every turn once, on a thread the mock remembers.
func TestAHistorySnapshotIsTheClientsConversation(t *testing.T) {
	s := newServer(t, `id: snap
steps:
  - text: "Reply to {{ .message }}"
  - messages: {history: true}
`, func(c *Config) { c.Speed = 0 })
	first := post(t.Context(), s, "/agui/chat", `{"threadId":"t","runId":"r1","messages":[{"id":"u1","role":"user","content":"one"}]}`, nil)
	if got, want := snapshotOf(t, first.events(t)), []string{"user: one", "assistant: Reply to one"}; !slices.Equal(got, want) {
		t.Fatalf("first snapshot %q, want %q", got, want)
	}
	// the client's own ids for the same turns, and a new message
	body, _ := json.Marshal(map[string]any{"threadId": "t", "runId": "r2", "messages": []map[string]any{
		{"id": "client-1", "role": "user", "content": "one"},
		{"id": "client-2", "role": "assistant", "content": "Reply to one"},
		{"id": "client-3", "role": "user", "content": "two"},
	}})
	second := post(t.Context(), s, "/agui/chat", string(body), nil)
	want := []string{"user: one", "assistant: Reply to one", "user: two", "assistant: Reply to two"}
	if got := snapshotOf(t, second.events(t)); !slices.Equal(got, want) {
		t.Errorf("second snapshot %q, want %q", got, want)
	}
	status, h := postJSON(t, s, "/agui/history", `{"threadId":"t"}`, nil)
	if msgs, _ := h["messages"].([]any); status != 200 || len(msgs) != len(want) {
		t.Errorf("history %d %v, want the %d messages of the client", status, h["messages"], len(want))
	}
	// a client that sends the new turn alone still gets the turns before it
	third := post(t.Context(), s, "/agui/chat", `{"threadId":"t","runId":"r3","messages":[{"id":"client-5","role":"user","content":"three"}]}`, nil)
	if got := snapshotOf(t, third.events(t)); len(got) != 6 || got[4] != "user: three" {
		t.Errorf("a new turn alone: snapshot %q", got)
	}
}

// clientAfter returns the messages a client holds after a run: those it sent, and what
// the run's events made of them.
func clientAfter(t *testing.T, sent []map[string]any, events []protocol.Event) []map[string]any {
	t.Helper()
	conv := protocol.Conversation{Messages: sent}
	for _, ev := range events {
		_ = conv.Apply(ev)
	}
	conv.Settle()
	return conv.Messages
}

// calledTools returns the ids and names of the tool calls a run streamed.
func calledTools(events []protocol.Event) (ids, names []string) {
	for _, ev := range events {
		if ev.Type == protocol.ToolCallStart {
			ids, names = append(ids, ev.Str("toolCallId")), append(names, ev.Str("toolCallName"))
		}
	}
	return ids, names
}

// texts returns the text a run streamed, message by message.
func texts(events []protocol.Event) []string {
	var out []string
	for _, ev := range events {
		switch ev.Type {
		case protocol.TextMessageStart:
			out = append(out, "")
		case protocol.TextMessageContent:
			out[len(out)-1] += ev.Str("delta")
		}
	}
	return out
}

func runBody(t *testing.T, thread, run string, messages []map[string]any, tools ...string) string {
	t.Helper()
	defs := make([]map[string]any, len(tools))
	for i, name := range tools {
		defs[i] = map[string]any{"name": name, "description": name, "parameters": map[string]any{"type": "object"}}
	}
	body, err := json.Marshal(map[string]any{"threadId": thread, "runId": run, "messages": messages, "tools": defs})
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// TestAToolAnswerContinuesTheConversationOnAServerThatNeverSawIt: the answer to the
// mock's frontend tool call continues the conversation on a server that holds nothing
// of the thread — restarted, with the thread forgotten, or another replica — from
// what the client's messages say, as it does on the server that made the call.
func TestAToolAnswerContinuesTheConversationOnAServerThatNeverSawIt(t *testing.T) {
	for _, tt := range []struct {
		name, route, message, tool, answer string
		want                               []string
	}{
		{"clarify", "/agui/chat", "make me a highlight video", "clarify", "GIF",
			[]string{"A GIF it is. GIFs have no sound, so I'll drop the audio track.", "Rendering has started; I'll let you know when it's ready."}},
		{"the Dojo's human in the loop", "/human_in_the_loop", "Please plan a trip to mars in 5 steps.", "generate_task_steps", `{"accepted":true,"steps":[]}`,
			[]string{"Got it, I'm on it now."}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			configure := func(seed uint64) func(*Config) { return func(c *Config) { c.Speed = 0; c.Seed = seed } }
			before, after := newServer(t, "", configure(1)), newServer(t, "", configure(2))
			sent := []map[string]any{{"id": "u1", "role": "user", "content": tt.message}}
			first := post(t.Context(), before, tt.route, runBody(t, "t", "r1", sent, tt.tool), nil)
			ids, names := calledTools(first.events(t))
			if len(ids) != 1 || names[0] != tt.tool {
				t.Fatalf("the first run called %v", names)
			}
			held := append(clientAfter(t, sent, first.events(t)), map[string]any{"id": "tool-1", "role": "tool", "toolCallId": ids[0], "content": tt.answer})
			for _, s := range []*Server{before, after} {
				second := post(t.Context(), s, tt.route, runBody(t, "t", "r2", held, tt.tool), nil)
				if second.status != 200 {
					t.Fatalf("%d %s", second.status, second.body())
				}
				if _, names := calledTools(second.events(t)); len(names) != 0 {
					t.Errorf("the answer started the conversation again: it called %v", names)
				}
				if got := texts(second.events(t)); !slices.Equal(got, tt.want) {
					t.Errorf("the answer got %q, want %q", got, tt.want)
				}
			}
			status, h := postJSON(t, after, "/agui/history", `{"threadId":"t"}`, nil)
			if runs, _ := h["runs"].([]any); status != 200 || len(runs) != 1 || runs[0].(map[string]any)["scenario"] == "" {
				t.Errorf("history %d %v", status, h["runs"])
			}
		})
	}
}

// TestEveryBuiltinToolPauseContinuesAlikeOnAServerThatNeverSawIt: for every example of
// every built-in scenario whose run pauses for frontend tools, the answer plays the same
// continuation on a server that never saw the thread as on the one that made the calls.
func TestEveryBuiltinToolPauseContinuesAlikeOnAServerThatNeverSawIt(t *testing.T) {
	configure := func(seed uint64) func(*Config) { return func(c *Config) { c.Speed = 0; c.Seed = seed } }
	kept, fresh := newServer(t, "", configure(1)), newServer(t, "", configure(2))
	paused := 0
	for _, sc := range kept.set.Load().Scenarios() {
		for i, ex := range sc.Examples {
			thread := fmt.Sprintf("%s-%d", sc.ID, i)
			route, body := exampleRun(ex, thread, "1.0")
			first := post(t.Context(), kept, route, body, nil)
			events := first.events(t)
			outcome, _ := events[len(events)-1].Get("outcome")
			o, _ := outcome.(map[string]any)
			pending, _ := o["pendingToolCallIds"].([]any)
			if len(pending) == 0 {
				continue
			}
			paused++
			var sent map[string]any
			_ = json.Unmarshal([]byte(body), &sent)
			held := clientAfter(t, []map[string]any{sent["messages"].([]any)[0].(map[string]any)}, events)
			for j, id := range pending {
				held = append(held, map[string]any{"id": fmt.Sprint("tool-", j), "role": "tool", "toolCallId": id, "content": "ok"})
			}
			sent["messages"], sent["runId"] = held, "run-2"
			again, _ := json.Marshal(sent)
			var got [2]string
			for k, s := range []*Server{kept, fresh} {
				rec := post(t.Context(), s, route, string(again), nil)
				_, names := calledTools(rec.events(t))
				got[k] = fmt.Sprint(types(rec.events(t)), texts(rec.events(t)), names)
			}
			if got[0] != got[1] {
				t.Errorf("%s, example %d: the server that made the calls continued with\n%s\nthe one that never saw the thread with\n%s", sc.ID, i, got[0], got[1])
			}
		}
	}
	if paused < 3 {
		t.Errorf("only %d examples pause for frontend tools", paused)
	}
}
