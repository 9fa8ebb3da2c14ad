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
	got := s.templated(events, "t", "r", sent)
	snapshot := fmt.Sprint(got[2].Fields[0].Value)
	want := "map[answer:m1 last:{{ id `m2` }} messages:[map[id:{{ id `m1` }} ids:[{{ id `m1` }} {{ (nth -1 .messages).id }}] message_id:{{ id `m1` }} userId:{{ (nth -1 .messages).id }}]] said:message-long-01 said user:u1]"
	if snapshot != want {
		t.Errorf("snapshot written as\n%s\nwant\n%s", snapshot, want)
	}
	if _, named := s.ids["u1"]; named {
		t.Errorf("the client's message id was given a generated name: %v", s.ids)
	}
}
