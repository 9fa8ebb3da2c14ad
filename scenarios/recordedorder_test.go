package scenarios

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/protocol"
)

// A recorded event's objects keep the agent's member order from the recording to the
// replayed bytes: written in it, read back in it, and sent in it, templates rendered
// inside; a message of the request a snapshot replays comes in the order AG-UI's
// message types declare, and an event step of a scenario of steps keeps its file's.
func TestRecordedObjectsKeepTheAgentsMemberOrder(t *testing.T) {
	agent := []string{
		`{"type":"STATE_SNAPSHOT","snapshot":{"messages":[{"type":"human","id":"u1","content":"hi"}],"count":2,"agent":{"zone":"z","name":"n"}},"rawEvent":{"run_id":"r","event":"x"}}`,
		`{"type":"RAW","event":{"event":"on_chain_end","data":{"output":"o","input":"i"}},"source":"langgraph"}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u1","role":"user","content":"hi"},{"role":"assistant","id":"a1","content":"Hello.","toolCalls":[{"type":"function","id":"c1","function":{"name":"f","arguments":"{}"}}]}]}`,
	}
	want := []string{
		`{"type":"STATE_SNAPSHOT","snapshot":{"messages":[{"type":"human","id":"client-1","content":"hi"}],"count":2,"agent":{"zone":"z","name":"n"}},"rawEvent":{"run_id":"run-9","event":"x"}}`,
		agent[1],
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"client-1","role":"user","content":"hi"},{"role":"assistant","id":"a1","content":"Hello.","toolCalls":[{"type":"function","id":"c1","function":{"name":"f","arguments":"{}"}}]}]}`,
	}
	rec := Recorded{ID: "ordered", Match: RecordedMatch{Message: "^hi$"}, Events: []RecordedEvent{started(0)}}
	for i, data := range agent {
		ev, err := protocol.DecodeEvent([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		switch i { // as the recorder templates them
		case 0:
			snapshot, _ := ev.Get("snapshot")
			snapshot.(map[string]any)["messages"].([]any)[0].(map[string]any)["id"] = "{{ (nth -1 .messages).id }}"
			raw, _ := ev.Get("rawEvent")
			raw.(map[string]any)["run_id"] = "{{ .runId }}"
		case 2:
			messages, _ := ev.Get("messages")
			messages.([]any)[0] = "{{ nth -1 .messages }}"
		}
		rec.Events = append(rec.Events, RecordedEvent{Type: ev.Type, Fields: ev.Fields, Order: ev.Order})
	}
	rec.Events = append(rec.Events, finished(0))
	data, err := yaml.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "{type: human, id: '{{ (nth -1 .messages).id }}', content: hi}") {
		t.Errorf("the file does not keep the agent's order:\n%s", data)
	}
	set, err := loadOne(t, string(data))
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	plan := planFor(t, set, request(t, "/agui/chat", `{"threadId":"t","runId":"run-9","messages":[{"content":"hi","role":"user","id":"client-1"}]}`), PlanOptions{})
	if len(plan.Events) != len(want)+2 {
		t.Fatalf("planned %d events, want %d", len(plan.Events), len(want)+2)
	}
	for i, timed := range plan.Events[1 : len(want)+1] {
		got, err := timed.Event.Without("timestamp").MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want[i] {
			t.Errorf("event %d sent as\n%s\nwant\n%s", i, got, want[i])
		}
	}

	set, err = loadOne(t, `
steps:
  - event: {type: CUSTOM, name: order, value: {zeta: 1, alpha: [{y: "{{ .runId }}", x: 2}]}}
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, timed := range planFor(t, set, request(t, "/agui/chat", `{"threadId":"t","runId":"run-9","messages":[]}`), PlanOptions{}).Events {
		if timed.Event.Type != protocol.Custom {
			continue
		}
		if got, _ := timed.Event.Without("timestamp").MarshalJSON(); string(got) != `{"type":"CUSTOM","name":"order","value":{"zeta":1,"alpha":[{"y":"run-9","x":2}]}}` {
			t.Errorf("the event step sent as %s", got)
		}
	}
}
