package protocol

import "testing"

// An event read from an agent is written back with the members of its nested objects
// in the order the agent wrote them, lists of objects included; a member written twice
// counts once, where it was last written, as decoding keeps its last value.
func TestAnEventIsWrittenInTheOrderItWasRead(t *testing.T) {
	for _, data := range []string{
		`{"type":"STATE_SNAPSHOT","snapshot":{"z":1,"messages":[{"type":"human","id":"u1","content":"hi"},{"type":"ai","id":"a1"}],"a":{"y":true,"b":null}},"rawEvent":{"run_id":"r","event":"on_chain_end"}}`,
		`{"type":"RAW","source":"x","event":{"b":[[{"d":1,"c":2}]],"a":"s"}}`,
		`{"type":"CUSTOM","value":{"b":1,"a":2},"name":"n"}`,
	} {
		ev, err := DecodeEvent([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		got, err := ev.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != data {
			t.Errorf("written as\n%s\nwant\n%s", got, data)
		}
	}
	ev, _ := DecodeEvent([]byte(`{"type":"CUSTOM","value":{"b":1,"a":2,"b":3},"name":"n"}`))
	if got, _ := ev.MarshalJSON(); string(got) != `{"type":"CUSTOM","value":{"a":2,"b":3},"name":"n"}` {
		t.Errorf("a member written twice: %s", got)
	}
}

// Members an order does not name (added after the event was read) follow those it
// names, in sorted order; members it names that are gone are left out; an event
// without an order is written sorted, and one whose objects were sorted keeps none.
func TestAnOrderLeavesWhatItDoesNotNameSorted(t *testing.T) {
	ev, _ := DecodeEvent([]byte(`{"type":"CUSTOM","value":{"c":1,"b":2,"a":3},"name":"n"}`))
	v, _ := ev.Get("value")
	m := v.(map[string]any)
	delete(m, "b")
	m["e"], m["d"] = 4, 5
	if got, _ := ev.MarshalJSON(); string(got) != `{"type":"CUSTOM","value":{"c":1,"a":3,"d":5,"e":4},"name":"n"}` {
		t.Errorf("written as %s", got)
	}
	if got, _ := ev.Without("name").MarshalJSON(); string(got) != `{"type":"CUSTOM","value":{"c":1,"a":3,"d":5,"e":4}}` {
		t.Errorf("a copy without a field lost the order: %s", got)
	}
	ev.Order = nil
	if got, _ := ev.MarshalJSON(); string(got) != `{"type":"CUSTOM","value":{"a":3,"c":1,"d":5,"e":4},"name":"n"}` {
		t.Errorf("written without an order as %s", got)
	}
	sorted, _ := DecodeEvent([]byte(`{"type":"CUSTOM","value":{"a":1,"b":[{"c":1}]},"name":"n"}`))
	if sorted.Order != nil {
		t.Errorf("objects already sorted have an order: %+v", sorted.Order)
	}
}

// BenchmarkAppendRecordedEvent writes a LangGraph STATE_SNAPSHOT as a replay of its
// recording does: in the agent's member order (ordered), and as it was written before
// recordings kept it, its objects sorted by encoding/json (sorted).
func BenchmarkAppendRecordedEvent(b *testing.B) {
	ev, err := DecodeEvent([]byte(`{"type":"STATE_SNAPSHOT","snapshot":{"messages":[{"id":"user-0c55913d","content":"Book me a flight","additional_kwargs":{},"response_metadata":{},"type":"human"},{"id":"run-01a243f5","content":"Flight AF1234 to Paris?","tool_calls":[],"type":"ai"}]},"rawEvent":{"id":"e1","event":"on_chain_end","data":{"event":"x","name":"offer","tags":["graph:step:1"],"run_id":"r1","metadata":{"ls_integration":"langgraph","created_by":"system","graph_id":"agent","thread_id":"t1","langgraph_step":1,"langgraph_node":"offer"}}}}`))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		order *KeyOrder
	}{{"sorted", nil}, {"ordered", ev.Order}} {
		b.Run(c.name, func(b *testing.B) {
			e := ev
			e.Order = c.order
			var buf []byte
			b.ReportAllocs()
			for b.Loop() {
				if buf, err = e.AppendJSON(buf[:0], 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
