package protocol

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// seedOf decodes a seeded thread from JSON, minting numbered ids.
func seedOf(t *testing.T, body string) (*SeededThread, error) {
	t.Helper()
	v, err := DecodeJSON([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	return DecodeSeededThread(v, func(kind string) string { n++; return kind + "-" + strconv.Itoa(n) })
}

func eventTypes(events []Event) []string {
	out := make([]string, len(events))
	for i, ev := range events {
		out[i] = ev.Type
	}
	return out
}

func TestASeededConversationIsCutIntoRunsAtEachUserMessage(t *testing.T) {
	thread, err := seedOf(t, `{"threadId": "t1", "state": {"city": "Oslo"}, "messages": [
		{"id": "u1", "role": "user", "content": "Plan a trip"},
		{"id": "a1", "role": "assistant", "content": "Where to?", "toolCalls": [{"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{\"q\":1}"}}]},
		{"id": "t1r", "role": "tool", "toolCallId": "c1", "content": "found"},
		{"id": "u2", "role": "user", "content": "Oslo"},
		{"role": "assistant", "content": "Booked."}]}`)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := thread.Events()
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || thread.Runs[0].RunID != "t1-seeded-run-1" {
		t.Fatalf("%d runs: %+v", len(runs), thread.Runs)
	}
	want := []string{RunStarted, TextMessageStart, TextMessageContent, TextMessageEnd, ToolCallStart, ToolCallArgs, ToolCallEnd, ToolCallResult, RunFinished}
	if got := eventTypes(runs[0]); !slices.Equal(got, want) {
		t.Errorf("run 1: %v, want %v", got, want)
	}
	want = []string{RunStarted, TextMessageStart, TextMessageContent, TextMessageEnd, StateSnapshot, RunFinished}
	if got := eventTypes(runs[1]); !slices.Equal(got, want) {
		t.Errorf("run 2: %v, want %v", got, want)
	}
	input, _ := runs[1][0].Get("input")
	if msgs := input.(map[string]any)["messages"].([]any); len(msgs) != 1 || msgs[0].(map[string]any)["id"] != "u2" {
		t.Errorf("run 2's input %v", msgs)
	}
	if runs[1][1].Str("messageId") != "msg-1" {
		t.Errorf("a message without an id gets a minted one: %v", runs[1][1])
	}
}

func TestASeededThreadEndsAsItsLastRunSays(t *testing.T) {
	interrupt := `{"id": "int-1", "reason": "confirm", "message": "Publish?"}`
	for _, tt := range []struct {
		name, body string
		last       []string
	}{
		{"interrupt", `{"threadId": "t", "messages": [{"role": "user", "content": "go"}], "interrupts": [` + interrupt + `]}`, []string{RunFinished}},
		{"langgraph", `{"threadId": "t", "dialect": "langgraph", "messages": [{"role": "user", "content": "go"}], "interrupts": [` + interrupt + `]}`, []string{Custom, RunFinished}},
		{"error", `{"threadId": "t", "runs": [{"messages": [{"role": "user", "content": "fail"}], "error": {"message": "boom", "code": "E1"}}, {"messages": [{"role": "user", "content": "again"}, {"role": "assistant", "content": "ok"}]}]}`, []string{TextMessageEnd, RunFinished}},
		{"frontend tool", `{"threadId": "t", "messages": [{"role": "user", "content": "go"}, {"role": "assistant", "toolCalls": [{"id": "c", "function": {"name": "clarify", "arguments": "{}"}}]}]}`, []string{ToolCallEnd, RunFinished}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			thread, err := seedOf(t, tt.body)
			if err != nil {
				t.Fatal(err)
			}
			runs, err := thread.Events()
			if err != nil {
				t.Fatal(err)
			}
			last := runs[len(runs)-1]
			if got := eventTypes(last[len(last)-len(tt.last):]); !slices.Equal(got, tt.last) {
				t.Errorf("ends with %v, want %v", eventTypes(last), tt.last)
			}
			interrupts, calls := Awaited(last, func(ev Event) Event { return ev })
			switch tt.name {
			case "interrupt", "langgraph":
				if len(interrupts) != 1 || interrupts[0]["id"] != "int-1" {
					t.Errorf("waits for %v", interrupts)
				}
			case "frontend tool":
				if len(calls) != 1 || calls[0].Str("toolCallName") != "clarify" {
					t.Errorf("waits for the calls %v", calls)
				}
			case "error":
				if runs[0][len(runs[0])-1].Type != RunError || runs[0][len(runs[0])-1].Str("code") != "E1" {
					t.Errorf("run 1 ends with %v", runs[0][len(runs[0])-1])
				}
			}
		})
	}
}

func TestASeededThreadThatBreaksTheRulesNamesTheMemberAtFault(t *testing.T) {
	for _, tt := range []struct {
		body, field, problem string
	}{
		{`{"messages": []}`, "threadId", "required"},
		{`{"threadId": "t", "messages": [{"role": "bot", "content": "x"}]}`, "messages[0].role", "unknown role"},
		{`{"threadId": "t", "messages": [{"role": "reasoning", "content": "x"}]}`, "messages[0].role", "a seeded message's role"},
		{`{"threadId": "t", "messages": [{"role": "user", "content": "x"}, {"role": "tool", "toolCallId": "nope", "content": "r"}]}`, "messages[1].toolCallId", `no assistant message before it made a tool call "nope"`},
		{`{"threadId": "t", "messages": [{"id": "m", "role": "user", "content": "x"}, {"id": "m", "role": "assistant", "content": "y"}]}`, "messages[1].id", `message id "m" is already the id of messages[0]`},
		{`{"threadId": "t", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "toolCalls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}, {"id": "c", "function": {"name": "g", "arguments": "{}"}}]}]}`, "messages[1].toolCalls[1].id", `tool call id "c" is used twice`},
		{`{"threadId": "t", "runs": [{"messages": [{"role": "user", "content": "x"}], "interrupts": [{"id": "i"}]}, {"messages": [{"role": "user", "content": "y"}]}]}`, "runs[0].interrupts", "only the last run"},
		{`{"threadId": "t", "messages": [{"role": "user", "content": "x"}], "interrupts": [{"id": "i"}, {"id": "i"}]}`, "interrupts", "it breaks the protocol's rules"},
		{`{"threadId": "t", "messages": [{"role": "user", "content": "x"}], "error": {"message": "e"}, "interrupts": [{"id": "i"}]}`, "interrupts", "not both"},
		{`{"threadId": "t", "messages": [], "runs": []}`, "runs", "not both"},
		{`{"threadId": "t", "messages": [{"role": "user", "content": "x"}], "dialect": "mcp"}`, "dialect", "unknown dialect"},
		{`{"threadId": "t", "mesages": []}`, "mesages", "unknown member"},
		{`{"threadId": "t", "runs": [{"messages": [{"role": "user", "content": "x"}], "state": {"a": 1}}], "state": {}}`, "state", "give state on the run"},
	} {
		_, err := seedOf(t, tt.body)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != tt.field || !strings.Contains(ie.Problem, tt.problem) {
			t.Errorf("%s:\n got %v\nwant the field %q and %q", tt.body, err, tt.field, tt.problem)
		}
	}
}
