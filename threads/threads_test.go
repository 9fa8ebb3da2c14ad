package threads

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agui-mock/agui-mock/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func noCancel(error) {}

// runOnce plays an empty run on a thread.
func runOnce(t *testing.T, s *Store, thread string) {
	t.Helper()
	run, _, err := s.Begin(key(thread), "r", noCancel)
	if err != nil {
		t.Fatal(err)
	}
	run.Start("sc")
	run.Finish("success", nil)
}

func TestStoreForgetsTheLeastRecentlyUsedPastItsLimit(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	s := NewStore(Limits{MaxThreads: 3, IdleTTL: time.Hour, MaxRuns: 10}, c.now)
	for i := range 3 {
		c.t = c.t.Add(time.Second)
		runOnce(t, s, fmt.Sprint("t", i))
	}
	c.t = c.t.Add(time.Second)
	runOnce(t, s, "t0") // t1 is now the least recently used
	runOnce(t, s, "t3")
	if _, ok := s.History(key("t1")); ok {
		t.Error("t1 should have been forgotten")
	}
	for _, id := range []string{"t0", "t2", "t3"} {
		if _, ok := s.History(key(id)); !ok {
			t.Errorf("%s was forgotten", id)
		}
	}
	if s.Len() != 3 {
		t.Errorf("%d threads, limit 3", s.Len())
	}
}

func TestStoreForgetsIdleThreads(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	s := NewStore(Limits{MaxThreads: 100, IdleTTL: time.Minute, MaxRuns: 10}, c.now)
	runOnce(t, s, "old")
	c.t = c.t.Add(2 * time.Minute)
	runOnce(t, s, "new")
	if _, ok := s.History(key("old")); ok {
		t.Error("an idle thread outlived its TTL")
	}
}

func TestIdleThreadsExpireOnEveryAccess(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	s := NewStore(Limits{MaxThreads: 100, IdleTTL: 3 * time.Second, MaxRuns: 10}, c.now)
	for _, id := range []string{"history", "cancel", "resume", "len"} {
		runOnce(t, s, id)
	}
	c.t = c.t.Add(8 * time.Second) // no other thread is created meanwhile
	if _, ok := s.History(key("history")); ok {
		t.Error("history of a thread idle past its TTL")
	}
	if res := s.Cancel(key("cancel"), ErrCancelled, "", time.Second); res.Known {
		t.Error("cancel found a thread idle past its TTL")
	}
	run, _, err := s.Begin(key("resume"), "r2", noCancel)
	if err != nil {
		t.Fatal(err)
	}
	if !run.created {
		t.Error("a run resumed a thread idle past its TTL instead of starting afresh")
	}
	run.Release()
	if n := s.Len(); n != 0 {
		t.Errorf("%d threads counted, all idle past the TTL", n)
	}
}

func TestStoreNeverForgetsAStreamingThread(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	s := NewStore(Limits{MaxThreads: 1, IdleTTL: time.Minute, MaxRuns: 10}, c.now)
	run, _, err := s.Begin(key("busy"), "r", noCancel)
	if err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(time.Hour)
	runOnce(t, s, "other")
	if _, ok := s.History(key("busy")); !ok {
		t.Fatal("a thread with an active run was forgotten")
	}
	run.Release()
}

func TestRefusedRequestsLeaveNoThreadBehind(t *testing.T) {
	s := NewStore(DefaultLimits(), time.Now)
	run, _, _ := s.Begin(key("new"), "r1", noCancel)
	run.Release()
	if _, ok := s.History(key("new")); ok || s.Len() != 0 {
		t.Error("a refused first request left a thread")
	}
	runOnce(t, s, "kept")
	run, _, _ = s.Begin(key("kept"), "r2", noCancel)
	run.Release()
	if _, ok := s.History(key("kept")); !ok {
		t.Error("a refused request removed an existing thread")
	}
}

func TestOneRunAtATimePerThread(t *testing.T) {
	s := NewStore(DefaultLimits(), time.Now)
	run, _, err := s.Begin(key("t"), "r1", noCancel)
	if err != nil {
		t.Fatal(err)
	}
	run.Start("sc")
	_, _, err = s.Begin(key("t"), "r2", noCancel)
	var busy *BusyError
	if !errors.As(err, &busy) || busy.RunID != "r1" {
		t.Fatalf("second run: %v", err)
	}
	select {
	case <-busy.Ended:
		t.Fatal("the busy run's end is told before it ended")
	default:
	}
	run.Finish("success", nil)
	select {
	case <-busy.Ended:
	default:
		t.Fatal("the busy run's end is not told once it ended")
	}
	if _, _, err := s.Begin(key("t"), "r3", noCancel); err != nil {
		t.Fatalf("after the first run ended: %v", err)
	}
}

func TestRunsAreRecordedAndBounded(t *testing.T) {
	s := NewStore(Limits{MaxThreads: 10, IdleTTL: time.Hour, MaxRuns: 2}, time.Now)
	for i := range 3 {
		run, _, _ := s.Begin(key("t"), fmt.Sprint("r", i), noCancel)
		run.Start("sc")
		run.AddInput(&protocol.RunAgentInput{Messages: []protocol.Message{{ID: fmt.Sprint("u", i), Role: "user", Raw: map[string]any{"id": fmt.Sprint("u", i), "role": "user", "content": "hi"}}}})
		run.Apply(protocol.NewEvent(protocol.TextMessageStart, "messageId", fmt.Sprint("a", i), "role", "assistant"))
		run.Apply(protocol.NewEvent(protocol.TextMessageContent, "messageId", fmt.Sprint("a", i), "delta", "hello"))
		run.Finish([]protocol.Outcome{protocol.OutcomeSuccess, protocol.OutcomeInterrupt, protocol.OutcomeError}[i], nil)
	}
	h, _ := s.History(key("t"))
	if len(h.Runs) != 2 || h.Runs[0].RunID != "r1" || h.Runs[1].Outcome != "error" {
		t.Errorf("runs %+v", h.Runs)
	}
	if len(h.Messages) != 6 || h.Messages[5]["content"] != "hello" {
		t.Errorf("messages %+v", h.Messages)
	}
	// a history is a copy: changing it does not change the thread
	h.Messages[0]["content"] = "changed"
	if again, _ := s.History(key("t")); again.Messages[0]["content"] != "hi" {
		t.Error("History returned shared maps")
	}
}

func TestCancelStopsTheRunAndWaitsForItsStream(t *testing.T) {
	s := NewStore(DefaultLimits(), time.Now)
	ctx, cancel := context.WithCancelCause(context.Background())
	run, _, _ := s.Begin(key("t"), "r1", cancel)
	run.Start("sc")
	go func() {
		<-ctx.Done()
		if !errors.Is(context.Cause(ctx), ErrCancelled) {
			t.Errorf("cause %v", context.Cause(ctx))
		}
		run.Finish("cancelled", nil)
	}()
	res := s.Cancel(key("t"), ErrCancelled, "", time.Second)
	if !res.Known || res.RunID != "r1" || res.Scenario != "sc" {
		t.Errorf("cancel %+v", res)
	}
	if h, _ := s.History(key("t")); h.Runs[0].Outcome != "cancelled" || h.Running != nil {
		t.Errorf("history after cancel %+v", h.Runs)
	}
	if res := s.Cancel(key("t"), ErrCancelled, "", time.Second); res.RunID != "" || !res.Known {
		t.Errorf("second cancel %+v", res)
	}
	if res := s.Cancel(key("nope"), ErrCancelled, "", time.Second); res.Known {
		t.Errorf("unknown thread %+v", res)
	}
}

func TestATurnCountsEveryRunTheThreadStarted(t *testing.T) {
	s := NewStore(Limits{MaxThreads: 10, IdleTTL: time.Hour, MaxRuns: 2}, time.Now)
	turn := func(thread string) int {
		t.Helper()
		run, _, err := s.Begin(key(thread), "r", noCancel)
		if err != nil {
			t.Fatal(err)
		}
		defer run.Release()
		return run.Turn()
	}
	for i := range 4 { // past MaxRuns: the count is not the length of the kept record
		if got := turn("t"); got != i {
			t.Errorf("before run %d the turn is %d", i, got)
		}
		runOnce(t, s, "t")
	}
	// a refused request starts no run; another thread counts its own runs
	run, _, _ := s.Begin(key("t"), "refused", noCancel)
	run.Release()
	if got := turn("t"); got != 4 {
		t.Errorf("after a refused request the turn is %d, want 4", got)
	}
	if got := turn("other"); got != 0 {
		t.Errorf("a new thread's first turn is %d", got)
	}
	s.Reset("", true)
	if got := turn("t"); got != 0 {
		t.Errorf("a thread forgotten and begun again starts at turn %d", got)
	}
}

// key names a thread of the requests without a test id.
func key(thread string) Key { return Key{Thread: thread} }

func TestAThreadIDNeverReachesAnotherTestsThreads(t *testing.T) {
	s := NewStore(DefaultLimits(), time.Now)
	// A thread id holding the separator a joined key would use, and the test id of
	// another test in front of it.
	tricky := Key{Thread: "A\x1fX"}
	tests := Key{Test: "A", Thread: "X"}
	for _, k := range []Key{tricky, tests} {
		run, _, err := s.Begin(k, "r", noCancel)
		if err != nil {
			t.Fatal(err)
		}
		run.Start("sc")
		run.AddInput(&protocol.RunAgentInput{Messages: []protocol.Message{{ID: "m", Role: "user", Content: k.Test + "/" + k.Thread, Raw: map[string]any{"id": "m", "role": "user", "content": k.Test + "/" + k.Thread}}}})
		run.Finish("success", nil)
	}
	if s.Len() != 2 {
		t.Fatalf("%d threads, want 2 apart", s.Len())
	}
	if h, _ := s.History(tricky); h.Messages[0]["content"] != "/A\x1fX" {
		t.Errorf("thread %q reached %v", tricky.Thread, h.Messages)
	}
	s.Reset("A", false)
	if _, ok := s.History(tests); ok {
		t.Error("resetting test A kept its thread")
	}
	if _, ok := s.History(tricky); !ok {
		t.Errorf("resetting test A forgot thread %q of the requests without a test id", tricky.Thread)
	}
}

// A thread no run streams on keeps its conversation frozen, for the collector not to
// walk; its history, and the next run, read it as it was.
func TestAFinishedThreadKeepsItsConversationFrozenAndReadsItBack(t *testing.T) {
	s := NewStore(DefaultLimits(), time.Now)
	play := func(runID, userID, reply string) {
		t.Helper()
		run, _, err := s.Begin(key("t"), runID, noCancel)
		if err != nil {
			t.Fatal(err)
		}
		run.Start("sc")
		run.AddInput(&protocol.RunAgentInput{Messages: []protocol.Message{{ID: userID, Role: "user", Raw: map[string]any{"id": userID, "role": "user", "content": "hi"}}},
			State: map[string]any{"turn": runID}})
		for _, ev := range []protocol.Event{
			protocol.NewEvent(protocol.TextMessageStart, "messageId", reply, "role", "assistant"),
			protocol.NewEvent(protocol.TextMessageContent, "messageId", reply, "delta", "hello"),
			protocol.NewEvent(protocol.TextMessageEnd, "messageId", reply),
		} {
			run.Apply(ev)
		}
		run.Finish("success", nil)
	}
	play("r1", "u1", "a1")
	s.mu.Lock()
	thread := s.threads[key("t")]
	frozen := thread.frozen != nil && thread.conv.Messages == nil
	s.mu.Unlock()
	if !frozen {
		t.Fatal("a finished thread's conversation is not frozen")
	}
	play("r2", "u2", "a2")
	h, _ := s.History(key("t"))
	var ids []any
	for _, m := range h.Messages {
		ids = append(ids, m["id"])
	}
	if fmt.Sprint(ids) != "[u1 a1 u2 a2]" || h.Messages[3]["content"] != "hello" || fmt.Sprint(h.State) != "map[turn:r2]" {
		t.Errorf("history after two runs, frozen between them: %v %v %v", ids, h.Messages, h.State)
	}
}
