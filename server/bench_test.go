package server

import (
	"fmt"
	"os"
	"testing"

	"github.com/agui-mock/agui-mock/scenarios"
)

// BenchmarkShortRun answers a five-event run end to end through the handler: the
// per-run cost of decoding, selecting, planning, streaming and keeping the thread.
func BenchmarkShortRun(b *testing.B) {
	s := newServer(b, "", func(c *Config) {
		c.Speed = 0
		c.Sources = []scenarios.Source{{FS: os.DirFS("../bench/scenarios"), Root: ".", Label: "bench"}}
	})
	if err := s.Reload(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		rec := post(b.Context(), s, "/agui/chat", fmt.Sprintf(`{"threadId":"t%d","runId":"r","messages":[{"id":"u","role":"user","content":"short"}]}`, i), nil)
		if rec.status != 200 {
			b.Fatal(rec.status)
		}
	}
}
