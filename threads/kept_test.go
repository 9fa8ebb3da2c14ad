package threads

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// playKept plays a run of the runtime's on a thread: its events, then its end.
func playKept(t *testing.T, s *Store, thread, runID string, events ...protocol.Event) {
	t.Helper()
	run, _, err := s.Begin(key(thread), runID, noCancel)
	if err != nil {
		t.Fatal(err)
	}
	run.Start("sc")
	run.Keep("default")
	for _, ev := range events {
		run.Apply(ev)
	}
	run.Finish(protocol.OutcomeOf(events[len(events)-1]), nil)
}

func text(id, words string) []protocol.Event {
	return []protocol.Event{
		protocol.NewEvent(protocol.TextMessageStart, "messageId", id, "role", "assistant"),
		protocol.NewEvent(protocol.TextMessageContent, "messageId", id, "delta", words),
		protocol.NewEvent(protocol.TextMessageContent, "messageId", id, "delta", "!"),
		protocol.NewEvent(protocol.TextMessageEnd, "messageId", id),
	}
}

func started(runID string, msgIDs ...string) protocol.Event {
	msgs := make([]any, len(msgIDs))
	for i, id := range msgIDs {
		msgs[i] = map[string]any{"id": id, "role": "user", "content": "hi"}
	}
	return protocol.NewEvent(protocol.RunStarted, "threadId", "t", "runId", runID, "input", map[string]any{"messages": msgs})
}

func TestAThreadKeepsTheRuntimesRunsCompacted(t *testing.T) {
	c := &clock{t: time.Unix(100, 0)}
	s := NewStore(DefaultLimits(), c.now)
	playKept(t, s, "t", "r1", append(append([]protocol.Event{started("r1", "u1")}, text("m1", "Hello")...), protocol.NewEvent(protocol.RunFinished, "threadId", "t", "runId", "r1"))...)
	c.t = c.t.Add(time.Minute)
	playKept(t, s, "t", "r2", started("r2", "u2"), protocol.NewEvent(protocol.RunError, "message", "boom"))
	replay, ok := s.Replay(key("t"))
	if !ok || replay.Live != nil {
		t.Fatalf("replay %+v %v", replay, ok)
	}
	want := []string{protocol.RunStarted, protocol.TextMessageStart, protocol.TextMessageContent, protocol.TextMessageEnd, protocol.RunFinished, protocol.RunStarted, protocol.RunError}
	var got []string
	for _, ev := range replay.Events {
		got = append(got, ev.Type)
	}
	if !slices.Equal(got, want) || replay.Events[2].Str("delta") != "Hello!" {
		t.Errorf("replay %v, want %v", got, want)
	}
	run, _, _ := s.Begin(key("t"), "r3", noCancel)
	historic := run.Keep("default")
	run.Release()
	for _, id := range []string{"u1", "u2", "m1"} {
		if !historic[id] {
			t.Errorf("message %s is not among the thread's: %v", id, historic)
		}
	}
	list := s.List("", "")
	if len(list) != 1 || list[0].ID != "t" || list[0].Agent != "default" || !list[0].Created.Equal(time.Unix(100, 0)) || !list[0].Updated.Equal(time.Unix(160, 0)) {
		t.Errorf("list %+v", list)
	}
	if s.List("", "researcher") != nil || s.List("other test", "") != nil {
		t.Error("the list shows what the agent or test filters out")
	}
	if _, ok := s.Replay(Key{Test: "other test", Thread: "t"}); ok {
		t.Error("another test replays the thread")
	}
}

func TestAThreadWithoutRuntimeRunsKeepsNothing(t *testing.T) {
	s := NewStore(DefaultLimits(), time.Now)
	runOnce(t, s, "plain")
	if _, ok := s.Replay(key("plain")); ok {
		t.Error("a run that did not ask to be kept is kept")
	}
	if list := s.List("", ""); len(list) != 0 {
		t.Errorf("list %+v", list)
	}
}

func TestAClientThatConnectsDuringARunFollowsItToItsEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := NewStore(DefaultLimits(), time.Now)
		run, _, _ := s.Begin(key("t"), "r1", noCancel)
		run.Start("sc")
		run.Keep("default")
		run.Apply(started("r1", "u1"))
		replay, _ := s.Replay(key("t"))
		if replay.Live == nil || len(replay.Events) != 0 {
			t.Fatalf("replay during the first run: %+v", replay)
		}
		got := make(chan []string)
		go func() {
			var types []string
			for from := 0; ; {
				events, ended, err := replay.Live.Next(t.Context(), from)
				if err != nil {
					t.Error(err)
				}
				for _, ev := range events {
					types = append(types, ev.Type)
				}
				from += len(events)
				if ended {
					got <- types
					return
				}
			}
		}()
		time.Sleep(time.Second)
		for _, ev := range text("m1", "Hi") {
			run.Apply(ev)
		}
		run.Finish(protocol.OutcomeSuccess, nil)
		want := []string{protocol.RunStarted, protocol.TextMessageStart, protocol.TextMessageContent, protocol.TextMessageContent, protocol.TextMessageEnd}
		if types := <-got; !slices.Equal(types, want) {
			t.Errorf("followed %v, want %v", types, want)
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, _, err := newLive().Next(ctx, 0); err == nil {
			t.Error("a follower whose client left goes on waiting")
		}
	})
}

func TestASeededThreadIsAsIfItsRunsHadBeenPlayed(t *testing.T) {
	s := NewStore(DefaultLimits(), time.Now)
	runs := [][]protocol.Event{
		append(append([]protocol.Event{started("s1", "u1")}, text("m1", "Hi")...), protocol.NewEvent(protocol.RunError, "message", "boom")),
		{started("s2", "u2"), protocol.NewEvent(protocol.StateSnapshot, "snapshot", map[string]any{"n": 1}), protocol.NewEvent(protocol.RunFinished, "threadId", "t", "runId", "s2",
			"outcome", map[string]any{"type": "interrupt", "interrupts": []any{map[string]any{"id": "i1"}}})},
	}
	cursor := &scenarios.Cursor{Interrupts: []scenarios.PendingInterrupt{{ID: "i1"}}}
	if err := s.Seed(key("t"), Seed{Agent: "researcher", Runs: runs, RunIDs: []string{"s1", "s2"}, Cursor: cursor, Next: "next-one"}); err != nil {
		t.Fatal(err)
	}
	h, ok := s.History(key("t"))
	if !ok || len(h.Messages) != 3 || h.Messages[1]["content"] != "Hi!" || len(h.Interrupts) != 1 || len(h.Runs) != 2 ||
		h.Runs[0].Outcome != protocol.OutcomeError || h.Runs[1].Awaiting != 1 || h.Runs[1].Scenario != SeededScenario {
		t.Errorf("history %+v", h)
	}
	kept, ok := s.Kept(key("t"))
	if !ok || kept.Agent != "researcher" || len(kept.Messages) != 3 {
		t.Errorf("kept %+v", kept)
	}
	run, got, err := s.Begin(key("t"), "r3", noCancel)
	if err != nil || got != cursor || run.Seeded() != "next-one" || run.Turn() != 2 {
		t.Fatalf("the next run: %v %v %q %d", err, got, run.Seeded(), run.Turn())
	}
	if err := s.Seed(key("t"), Seed{Runs: runs[:1], RunIDs: []string{"s1"}}); err == nil {
		t.Error("a thread with a run streaming was seeded over")
	}
	run.Start("sc")
	run.Finish(protocol.OutcomeSuccess, nil)
	run, _, _ = s.Begin(key("t"), "r4", noCancel)
	if run.Seeded() != "" {
		t.Error("the seeded scenario answers more than the next run")
	}
	run.Release()
}
