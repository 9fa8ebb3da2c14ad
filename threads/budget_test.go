package threads

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// playMessage plays a run on a thread whose input carries one user message of the given
// length; kept says whether the thread keeps the run's events, as the runtime's do.
func playMessage(t *testing.T, s *Store, thread string, length int, kept bool) {
	t.Helper()
	run, _, err := s.Begin(key(thread), "r-"+thread, noCancel)
	if err != nil {
		t.Fatal(err)
	}
	run.Start("sc")
	msg := protocol.Message{ID: "u-" + thread, Role: "user", Raw: map[string]any{"id": "u-" + thread, "role": "user", "content": strings.Repeat("x", length)}}
	run.AddInput(&protocol.RunAgentInput{Messages: []protocol.Message{msg}})
	if kept {
		run.Keep("default")
		run.Apply(protocol.NewEvent(protocol.RunStarted, "threadId", thread, "runId", "r-"+thread, "input", map[string]any{"messages": []any{msg.Raw}}))
		run.Apply(protocol.NewEvent(protocol.RunFinished, "threadId", thread, "runId", "r-"+thread))
	}
	run.Finish(protocol.OutcomeSuccess, nil)
}

// TestThreadsStayWithinTheirByteBudget: threads that each keep a large message — in their
// history, and again in the runtime's kept events — make the store forget the least
// recently used ones past its byte budget, as their runs end, and no sooner.
func TestThreadsStayWithinTheirByteBudget(t *testing.T) {
	const mib = 1 << 20
	for _, kept := range []bool{false, true} {
		t.Run(fmt.Sprint("kept ", kept), func(t *testing.T) {
			c := &clock{t: time.Unix(0, 0)}
			s := NewStore(Limits{MaxThreads: 100, IdleTTL: time.Hour, MaxRuns: 10, MaxBytes: 10 * mib}, c.now)
			perThread := int64(mib)
			if kept {
				perThread = 2 * mib
			}
			for i := range 12 {
				c.t = c.t.Add(time.Second)
				playMessage(t, s, fmt.Sprint("t", i), mib, kept)
			}
			u := s.Usage()
			if u.Bytes > 10*mib || u.Bytes < 10*mib-perThread-perThread/4 {
				t.Errorf("the threads keep %d bytes, budget %d", u.Bytes, 10*mib)
			}
			if want := 12 - int(u.Bytes/perThread); u.Threads+int(u.Shed) != 12 || int(u.Shed) != want {
				t.Errorf("usage %+v: %d threads shed, want %d", u, u.Shed, want)
			}
			if _, ok := s.History(key("t11")); !ok {
				t.Error("the most recent thread was forgotten")
			}
			if _, ok := s.History(key("t0")); ok {
				t.Error("the least recently used thread is kept past the budget")
			}
			s.Reset("", true)
			if u := s.Usage(); u.Bytes != 0 || u.Threads != 0 {
				t.Errorf("after a reset: %+v", u)
			}
		})
	}
}

// TestAStreamingThreadIsNeverShed: a thread whose run streams stays, whatever the
// others keep; the thread that alone passes the budget goes when its run ends.
func TestAStreamingThreadIsNeverShed(t *testing.T) {
	s := NewStore(Limits{MaxThreads: 100, IdleTTL: time.Hour, MaxRuns: 10, MaxBytes: 1 << 20}, time.Now)
	playMessage(t, s, "small", 1<<10, false)
	busy, _, err := s.Begin(key("busy"), "r", noCancel)
	if err != nil {
		t.Fatal(err)
	}
	busy.Start("sc")
	playMessage(t, s, "huge", 2<<20, false)
	if !s.Has(key("busy")) {
		t.Error("the thread whose run streams was forgotten")
	}
	if s.Has(key("huge")) || !s.Has(key("small")) {
		t.Errorf("the thread past the budget alone is kept, or the small one is not: %+v", s.Usage())
	}
	busy.Finish(protocol.OutcomeSuccess, nil)
}

// TestASeededThreadPastTheBudgetIsRefused: a seed that alone would keep more than the
// budget is refused with its size, and leaves no thread behind.
func TestASeededThreadPastTheBudgetIsRefused(t *testing.T) {
	s := NewStore(Limits{MaxThreads: 100, IdleTTL: time.Hour, MaxRuns: 10, MaxBytes: 1 << 20}, time.Now)
	huge := []protocol.Event{
		protocol.NewEvent(protocol.RunStarted, "threadId", "t", "runId", "s1", "input", map[string]any{"messages": []any{
			map[string]any{"id": "u1", "role": "user", "content": strings.Repeat("x", 1<<20)}}}),
		protocol.NewEvent(protocol.RunFinished, "threadId", "t", "runId", "s1"),
	}
	err := s.Seed(key("t"), Seed{Runs: [][]protocol.Event{huge}, RunIDs: []string{"s1"}})
	var tooLarge *TooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Limit != 1<<20 || tooLarge.Bytes < 2<<20 || !strings.Contains(err.Error(), "--threads-max-bytes") {
		t.Fatalf("seeding past the budget: %v", err)
	}
	if s.Has(key("t")) || s.Usage().Bytes != 0 {
		t.Errorf("the refused seed left %+v", s.Usage())
	}
}
