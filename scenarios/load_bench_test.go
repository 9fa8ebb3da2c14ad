package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"testing"
	"testing/fstest"
	"time"
)

// BenchmarkLoad1000Files loads a directory of 1,000 scenario files, each with a match,
// templates and several steps, as the server does at start and on every reload.
// Target: 200 ms.
func BenchmarkLoad1000Files(b *testing.B) {
	dir := b.TempDir()
	for i := range 1000 {
		body := fmt.Sprintf(`id: scenario-%d
match:
  message: (?i)^question %d (?P<topic>\w+)
  forwardedProps: {scenario_name: bench}
timing: {tokensPerSecond: 50}
steps:
  - reasoning: Thinking about {{ .captures.topic }}.
  - text: Here is an answer about {{ .captures.topic }} for {{ Name }}.
  - tool: {name: lookup, args: {topic: "{{ .captures.topic }}"}, result: {found: true}}
  - state: {count: %d}
  - stateDelta: [{op: replace, path: /count, value: %d}]
`, i, i, i, i+1)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%04d.yaml", i)), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	src := Source{FS: os.DirFS(dir), Root: ".", Label: dir}
	for b.Loop() {
		set, err := Load(src)
		if err != nil {
			b.Fatal(err)
		}
		if len(set.Scenarios()) != 1000 {
			b.Fatal(len(set.Scenarios()))
		}
	}
}

// peakHeap runs f and returns the most heap it had in use meanwhile, in MiB, sampled
// every millisecond (runtime/metrics reads it without stopping the world). The
// collection it starts with is not timed.
func peakHeap(b *testing.B, f func()) float64 {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	inUse := func() uint64 {
		metrics.Read(samples)
		return samples[0].Value.Uint64() + samples[1].Value.Uint64()
	}
	b.StopTimer()
	runtime.GC()
	b.StartTimer()
	base, peak := inUse(), uint64(0)
	done, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for tick := time.NewTicker(time.Millisecond); ; {
			peak = max(peak, inUse())
			select {
			case <-done:
				tick.Stop()
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	<-sampled
	return float64(max(peak, inUse())-base) / (1 << 20)
}

// BenchmarkRefuseFanOut loads a directory holding a 3.9 MiB scenario of 95,000
// subagent steps, whose run would stream 475,002 events: the first load refuses it as
// it reads it, the next ones, remembering it, without parsing it. It reports the most
// heap each load has in use. Before the count of the steps, the dry run refused it
// after 1.2 to 1.4 s with 410 MiB of heap in use, and every load paid that again
// (bench/refusal.sh measures it through the binary).
func BenchmarkRefuseFanOut(b *testing.B) {
	src := Source{FS: fstest.MapFS{"d/fanout.yaml": {Data: fanOut(95_000)}}, Root: "d", Label: "d"}
	refuse := func(b *testing.B, refused *Refusals) {
		if _, err := LoadRemembering(context.Background(), Limits{}, refused, nil, src); err == nil {
			b.Fatal("the fan-out was not refused")
		}
	}
	for _, remembered := range []bool{false, true} {
		name := map[bool]string{false: "first", true: "remembered"}[remembered]
		b.Run(name, func(b *testing.B) {
			var refused *Refusals
			if remembered {
				refused = NewRefusals(1)
				refuse(b, refused)
			}
			peak := 0.0
			for b.Loop() {
				peak = max(peak, peakHeap(b, func() { refuse(b, refused) }))
			}
			b.ReportMetric(peak, "peak-heap-MiB")
		})
	}
}
