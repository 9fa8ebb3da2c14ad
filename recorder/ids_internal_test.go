package recorder

import (
	"fmt"
	"testing"

	"github.com/agui-mock/agui-mock/protocol"
)

// A short id ("m1", "u1") is templated in the members that name ids only: elsewhere
// the same text could be anything (a short answer, a count), and is kept as written.
// A long one is templated wherever it stands whole, and never inside a longer text.
func TestShortIDsAreTemplatedOnlyInMembersThatNameIDs(t *testing.T) {
	s := &session{ids: map[string]string{}, counts: map[string]int{}}
	events := []capturedEvent{
		{event: protocol.NewEvent(protocol.TextMessageStart, "messageId", "m1", "role", "assistant")},
		{event: protocol.NewEvent(protocol.TextMessageStart, "messageId", "message-long-01", "role", "assistant")},
		{event: protocol.NewEvent(protocol.StateSnapshot, "snapshot", map[string]any{
			"answer": "m1", "user": "u1", "last": "message-long-01", "said": "message-long-01 said",
			"messages": []any{
				map[string]any{"id": "m1", "message_id": "m1", "ids": []any{"m1", "u1"}, "userId": "u1"},
			},
		})},
	}
	sent := []protocol.Message{{ID: "u1", Role: "user"}}
	got := s.templated(events, "t", "r", &protocol.RunAgentInput{Messages: sent})
	snapshot := fmt.Sprint(got[2].Fields[0].Value)
	want := "map[answer:m1 last:{{ id `m2` }} messages:[map[id:{{ id `m1` }} ids:[{{ id `m1` }} {{ (nth -1 .messages).id }}] message_id:{{ id `m1` }} userId:{{ (nth -1 .messages).id }}]] said:message-long-01 said user:u1]"
	if snapshot != want {
		t.Errorf("snapshot written as\n%s\nwant\n%s", snapshot, want)
	}
	if _, named := s.ids["u1"]; named {
		t.Errorf("the client's message id was given a generated name: %v", s.ids)
	}
}

// A UUID the agent minted in a member that names an id — an A2A task's id inside a RAW
// event — is a generated id of the replay, the same wherever it recurs; one the request
// holds (the app's user id in its state) is kept as the client sent it.
func TestAMintedUUIDIsTemplated(t *testing.T) {
	const task, user = "17f8c152-7544-4a60-888b-9ecafe707346", "0b9e2f3a-1c4d-4e5f-8a9b-0c1d2e3f4a5b"
	s := &session{ids: map[string]string{}, counts: map[string]int{}}
	events := []capturedEvent{
		{event: protocol.NewEvent(protocol.Raw, "event", map[string]any{"kind": "task", "id": task, "contextId": "t", "owner": map[string]any{"userId": user}}, "source", "a2a")},
		{event: protocol.NewEvent(protocol.Raw, "event", map[string]any{"kind": "status-update", "taskId": task, "note": task + " done"}, "source", "a2a")},
	}
	in := &protocol.RunAgentInput{Raw: map[string]any{"state": map[string]any{"user": user}}}
	got := s.templated(events, "t", "r", in)
	first, second := fmt.Sprint(got[0].Fields[0].Value), fmt.Sprint(got[1].Fields[0].Value)
	if want := "map[contextId:{{ .threadId }} id:{{ id `x1` }} kind:task owner:map[userId:" + user + "]]"; first != want {
		t.Errorf("the task written as\n%s\nwant\n%s", first, want)
	}
	if want := "map[kind:status-update note:" + task + " done taskId:{{ id `x1` }}]"; second != want {
		t.Errorf("the update written as\n%s\nwant\n%s", second, want)
	}
}
