package protocol

import (
	"runtime"
	"strings"
	"testing"
)

// TestFootprintIsCloseToTheHeapAValueTakes decodes values of several shapes and compares
// their footprint with what decoding them kept on the heap: within a third of it either
// way, so that a budget in footprint bytes is one in memory.
func TestFootprintIsCloseToTheHeapAValueTakes(t *testing.T) {
	for name, body := range map[string]string{
		"one long string":    `{"content":"` + strings.Repeat("x", 4<<20) + `"}`,
		"many small members": `{"state":[` + strings.TrimSuffix(strings.Repeat(`{"a":1,"b":"two","c":[true,null,3.5],"d":{"e":"f"}},`, 20000), ",") + `]}`,
		"many messages":      `{"messages":[` + strings.TrimSuffix(strings.Repeat(`{"id":"m-123456","role":"user","content":"hello there, how are you?"},`, 20000), ",") + `]}`,
	} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			v, err := DecodeJSON([]byte(body))
			if err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			got := Footprint(v)
			runtime.KeepAlive(v)
			t.Logf("footprint %d bytes, heap held %d", got, held)
			if 3*got < 2*held || 2*got > 3*held {
				t.Errorf("footprint %d bytes, heap held %d", got, held)
			}
		})
	}
}

func TestEventFootprintCountsItsValues(t *testing.T) {
	small := NewEvent(TextMessageContent, "messageId", "m1", "delta", "hi")
	big := NewEvent(TextMessageContent, "messageId", "m1", "delta", strings.Repeat("x", 1<<20))
	if d := big.Footprint() - small.Footprint(); d != 1<<20-2 {
		t.Errorf("a delta 1 MiB longer adds %d bytes", d)
	}
	if n := EventsFootprint([]Event{small, big}); n != small.Footprint()+big.Footprint() {
		t.Errorf("the events' footprint %d is not the sum of theirs", n)
	}
}
