package threads

import (
	"fmt"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// BenchmarkRunUpdates records a run of 100 text deltas in a thread, as a stream does.
func BenchmarkRunUpdates(b *testing.B) {
	s := NewStore(DefaultLimits(), time.Now)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		run, _, err := s.Begin(key(fmt.Sprint("t", i%1000)), "r", func(error) {})
		if err != nil {
			b.Fatal(err)
		}
		run.Start("sc")
		id := fmt.Sprint("m", i)
		run.Apply(protocol.NewEvent(protocol.TextMessageStart, "messageId", id, "role", "assistant"))
		for range 100 {
			run.Apply(protocol.NewEvent(protocol.TextMessageContent, "messageId", id, "delta", "word "))
		}
		run.Apply(protocol.NewEvent(protocol.TextMessageEnd, "messageId", id))
		run.Finish("success", nil)
	}
}
