package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
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
	refuse := func(b *testing.B, mem *Memory) {
		if _, err := LoadRemembering(context.Background(), Limits{}, mem, nil, src); err == nil {
			b.Fatal("the fan-out was not refused")
		}
	}
	for _, remembered := range []bool{false, true} {
		name := map[bool]string{false: "first", true: "remembered"}[remembered]
		b.Run(name, func(b *testing.B) {
			var mem *Memory
			if remembered {
				mem = NewMemory(1)
				refuse(b, mem)
			}
			peak := 0.0
			for b.Loop() {
				peak = max(peak, peakHeap(b, func() { refuse(b, mem) }))
			}
			b.ReportMetric(peak, "peak-heap-MiB")
		})
	}
}

// recordedSuite writes n scenario files as a suite grown by recording has them: 45 %
// recordings (an anchored, quoted message, forwardedProps, recorded events) and 55 %
// hand-written scenarios (an unanchored (?i) pattern with groups, templated steps),
// each with one example that must select it.
func recordedSuite(tb testing.TB, dir string, n int) {
	tb.Helper()
	for i := range n {
		var body string
		if i%20 < 9 {
			body = fmt.Sprintf(`id: rec-%d
match:
  message: ^Search for ocean wave videos number %d$
  forwardedProps: {scenario_name: video-mixcut}
examples:
  - {message: Search for ocean wave videos number %d, forwardedProps: {scenario_name: video-mixcut}}
events:
  - {delay: 12, type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
  - {delay: 410, type: TEXT_MESSAGE_START, messageId: '{{ id "m1" }}', role: assistant}
  - {delay: 31, type: TEXT_MESSAGE_CONTENT, messageId: '{{ id "m1" }}', delta: 'I found '}
  - {delay: 31, type: TEXT_MESSAGE_CONTENT, messageId: '{{ id "m1" }}', delta: '%d videos.'}
  - {delay: 8, type: TEXT_MESSAGE_END, messageId: '{{ id "m1" }}'}
  - {delay: 3, type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
`, i, i, i, i)
		} else {
			body = fmt.Sprintf(`id: hand-%d
match:
  message: (?i)book (?:a|an) (?P<what>\w+) to (?P<city>\w+) for trip %d\b
examples:
  - {message: Please book a flight to Lisbon for trip %d tomorrow}
steps:
  - reasoning: Looking for a {{ .captures.what }}.
  - text: Booked a {{ .captures.what }} to {{ .captures.city }} for {{ Name }}.
  - tool: {name: book, args: {what: "{{ .captures.what }}"}, result: {ok: true}}
`, i, i, i)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%05d.yaml", i)), []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkLoadRecordedSuite loads recorded-style suites of 1,000 and 5,000 files, each
// scenario with an example the load checks. Target: 5,000 at most 6× the time of 1,000
// (before the index the example check tried every scenario for every example: 18×).
func BenchmarkLoadRecordedSuite(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := b.TempDir()
			recordedSuite(b, dir, n)
			src := Source{FS: os.DirFS(dir), Root: ".", Label: dir}
			for b.Loop() {
				set, err := Load(src)
				if err != nil {
					b.Fatal(err)
				}
				if len(set.Scenarios()) != n {
					b.Fatal(len(set.Scenarios()))
				}
			}
		})
	}
}

// BenchmarkReloadOneEdit reloads a recorded-style suite of 5,000 files after one file
// is saved, through the memory a server keeps between reloads. The other files were
// written long before they were read, as in a suite in use (the memory's clock is an
// hour ahead). Target: a small part of the 200 ms from the save to the edit served.
func BenchmarkReloadOneEdit(b *testing.B) {
	dir := b.TempDir()
	recordedSuite(b, dir, 5000)
	src := Source{FS: os.DirFS(dir), Root: ".", Label: dir}
	mem := NewMemory(DefaultRefusals)
	mem.now = func() time.Time { return time.Now().Add(time.Hour) }
	if _, err := LoadRemembering(context.Background(), Limits{}, mem, nil, src); err != nil {
		b.Fatal(err)
	}
	edited := filepath.Join(dir, "s04999.yaml")
	original, err := os.ReadFile(edited)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for b.Loop() {
		n++
		body := strings.Replace(string(original), "Booked a", fmt.Sprintf("Booked (edit %d) a", n), 1)
		if err := os.WriteFile(edited, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		if _, err := LoadRemembering(context.Background(), Limits{}, mem, nil, src); err != nil {
			b.Fatal(err)
		}
	}
}
