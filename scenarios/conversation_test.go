package scenarios

import (
	"encoding/json"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/protocol"
)

const stories = `
id: story
match: {message: ^Tell me a story$}
examples: [{message: Tell me a story}]
steps: [{text: Once upon a time there was a fox.}]
---
id: another-story
match:
  message: ^Tell me a story$
  conversation: [user: ^Tell me a story$, assistant, user: ^Tell me a story$]
examples:
  - conversation:
      - {role: user, content: Tell me a story}
      - {role: assistant, content: Once upon a time there was a fox.}
      - {role: user, content: Tell me a story}
steps:
  - text: This time, a hedgehog.
---
id: again
match:
  conversation:
    - user: ^Tell me a story$
    - assistant: (?i)fox
steps: [{text: Once more.}]
`

// conversationRequest is a request whose messages have the roles and texts given, as
// "role: text" items.
func conversationRequest(t *testing.T, items ...string) *Request {
	t.Helper()
	msgs := make([]any, len(items))
	for i, it := range items {
		role, text, _ := strings.Cut(it, ": ")
		m := map[string]any{"id": "m" + string(rune('a'+i)), "role": role, "content": text}
		if role == "tool" {
			m["toolCallId"] = "c1"
		}
		msgs[i] = m
	}
	body, _ := json.Marshal(map[string]any{"threadId": "t", "runId": "r", "messages": msgs})
	in, err := protocol.DecodeRunAgentInput(body, protocol.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return &Request{Route: DefaultRoute, Input: in}
}

// The turns of one conversation whose last user messages are alike are told apart by
// the conversation: the same question asked again gets the scenario keyed by the
// conversation so far, and one no key names gets the scenario of the question alone.
func TestAConversationTellsTurnsApart(t *testing.T) {
	set, err := loadOne(t, stories)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		messages []string
		want     string
	}{
		{[]string{"user: Tell me a story"}, "story"},
		{[]string{"user: Tell me a story", "assistant: Once upon a time there was a fox.", "user: Tell me a story"}, "another-story"},
		{[]string{"user: Tell me a story", "assistant: Once upon a time there was a Fox."}, "again"},
		{[]string{"user: Tell me a story", "assistant: Once upon a time there was a hen."}, "story"},
		{[]string{"system: Be brief.", "user: Tell me a story", "assistant: A fox.", "user: Tell me a story"}, "story"},
	} {
		sel, _ := set.Select(conversationRequest(t, tt.messages...))
		if sel == nil || sel.Scenario.ID != tt.want {
			t.Errorf("%v selects %v, want %s", tt.messages, sel, tt.want)
		}
	}
}

func TestAConversationMissSaysWhere(t *testing.T) {
	set, err := loadOne(t, stories)
	if err != nil {
		t.Fatal(err)
	}
	var keyed *Scenario
	for _, sc := range set.Scenarios() {
		if sc.ID == "another-story" {
			keyed = sc
		}
	}
	for _, tt := range []struct {
		messages []string
		want     string
	}{
		{[]string{"user: Tell me a story"}, "the conversation has 1 message (user), not 3 (user, assistant, user)"},
		{[]string{"user: Tell me a story", "user: hm", "user: Tell me a story"}, "message 2 of the conversation is user, not assistant"},
		{[]string{"user: Tell me a poem", "assistant: Roses.", "user: Tell me a story"}, `message 1 of the conversation (user) "Tell me a poem" does not match /^Tell me a story$/`},
	} {
		_, reasons := keyed.Match.test(conversationRequest(t, tt.messages...))
		if len(reasons) != 1 || reasons[0] != tt.want {
			t.Errorf("%v: reasons %q, want %q", tt.messages, reasons, tt.want)
		}
	}
}

func TestABadConversationIsRefused(t *testing.T) {
	for _, tt := range []struct{ yaml, want string }{
		{"id: a\nmatch: {conversation: user}\nsteps: [{text: a}]\n", "match.conversation must be a list of the request's messages"},
		{"id: a\nmatch: {conversation: []}\nsteps: [{text: a}]\n", "match.conversation must be a list of the request's messages"},
		{"id: a\nmatch: {conversation: [robot]}\nsteps: [{text: a}]\n", `match.conversation item 1: unknown role "robot"`},
		{"id: a\nmatch: {conversation: [{user: a, assistant: b}]}\nsteps: [{text: a}]\n", "match.conversation item 1 must be a role, or one role and the pattern its text matches"},
		{"id: a\nmatch: {conversation: [user: '(']}\nsteps: [{text: a}]\n", "missing closing )"},
		{"id: a\nexamples: [{message: hi, conversation: [{role: user, content: hi}]}]\nsteps: [{text: a}]\n", "an example's conversation is every message its request sends: it takes no message or system besides"},
		{"id: a\nexamples: [{conversation: [{content: hi}]}]\nsteps: [{text: a}]\n", "an example's conversation, message 1: a message is a mapping with a role"},
		{"id: a\nexamples: [{conversation: [{role: tool, content: hi}]}]\nsteps: [{text: a}]\n", "toolCallId"},
	} {
		_, err := loadOne(t, tt.yaml)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want one saying %q", tt.yaml, err, tt.want)
		}
	}
}

// An example's conversation is sent as written, each message with an id of the run's
// own unless it has one: the last the run's message id.
func TestAnExampleSendsItsConversation(t *testing.T) {
	ex := Example{Conversation: []map[string]any{
		{"role": "user", "content": "Tell me a story"},
		{"role": "assistant", "id": "kept", "content": "A fox."},
		{"role": "user", "content": "Another"},
	}}
	got, _ := json.Marshal(ex.RunInput(RunIDs{Thread: "t", Run: "r", Message: "m"})["messages"])
	want := `[{"content":"Tell me a story","id":"m-1","role":"user"},{"content":"A fox.","id":"kept","role":"assistant"},{"content":"Another","id":"m","role":"user"}]`
	if string(got) != want {
		t.Errorf("messages %s\nwant %s", got, want)
	}
	if ex.Conversation[0]["id"] != nil {
		t.Error("sending the example changed it")
	}
}

// A recorded match's conversation and an example's conversation are written so that they
// read back as written: the recording selects its own run.
func TestARecordedConversationReadsBack(t *testing.T) {
	rec := Recorded{ID: "later", Description: "d",
		Match: RecordedMatch{Message: "^again$", Conversation: []RecordedMessage{{Role: "user", Pattern: "^hi$"}, {Role: "assistant"}, {Role: "user", Pattern: "^again$"}}},
		Examples: []Example{{Conversation: []map[string]any{
			{"role": "user", "content": "hi"},
			{"toolCalls": []any{map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "f", "arguments": "{}"}}}, "role": "assistant", "content": "ok"},
			{"role": "user", "content": "again"},
		}}},
		Events: []RecordedEvent{{Type: protocol.RunStarted, Fields: []protocol.Field{{Name: "threadId", Value: "{{ .threadId }}"}, {Name: "runId", Value: "{{ .runId }}"}}},
			{Type: protocol.RunFinished, Fields: []protocol.Field{{Name: "threadId", Value: "{{ .threadId }}"}, {Name: "runId", Value: "{{ .runId }}"}}}},
	}
	out, err := yaml.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "    - {role: assistant, content: ok, toolCalls:") {
		t.Errorf("a message is not written role and content first:\n%s", out)
	}
	set, err := loadOne(t, string(out))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	sc := set.Scenarios()[0]
	if got := len(sc.Match.Conversation); got != 3 || sc.Match.Conversation[1].String() != "assistant" || sc.Match.Conversation[2].String() != "user /^again$/" {
		t.Errorf("conversation read back as %v", sc.Match.Conversation)
	}
	if got := len(sc.Examples[0].Conversation); got != 3 {
		t.Errorf("the example's conversation read back with %d messages", got)
	}
}
