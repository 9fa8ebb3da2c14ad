package threads

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// What a CopilotKit runtime keeps of a thread: the events of each of its runs, compacted
// as the runtime's in-memory runner keeps them, which its connect route replays to a
// client that reloads, and the agent the thread belongs to. A thread keeps them for the
// runs that ask (Run.Keep: the runs of the runtime's routes) and when it is seeded; the
// other runs of the server cost nothing more.

// kept is a thread's runs as the runtime keeps them.
type kept struct {
	agent   string
	created time.Time // when its first run ended
	updated time.Time // when its last run ended
	// order orders threads updated within the same tick of the clock: the store's count
	// of kept runs when its last one was added.
	order uint64
	runs  []keptRun
	bytes int64 // the runs' events, as protocol.EventsFootprint counts them
}

// keptRun is one run's events, compacted.
type keptRun struct {
	runID  string
	events []protocol.Event
	bytes  int64
}

// add keeps a run that ended at now, the order-th the store kept, its oldest runs
// dropped past max.
func (k *kept) add(runID string, events []protocol.Event, now time.Time, order uint64, max int) {
	if len(k.runs) == 0 {
		k.created = now
	}
	k.updated, k.order = now, order
	compacted := protocol.CompactEvents(events)
	run := keptRun{runID: runID, events: compacted, bytes: protocol.EventsFootprint(compacted)}
	k.runs = append(k.runs, run)
	k.bytes += run.bytes
	if max > 0 && len(k.runs) > max {
		for _, dropped := range k.runs[:len(k.runs)-max] {
			k.bytes -= dropped.bytes
		}
		k.runs = slices.Delete(k.runs, 0, len(k.runs)-max)
	}
}

// events are every kept run's events, compacted as one stream, as the runtime replays
// them.
func (k *kept) events() []protocol.Event {
	var all []protocol.Event
	for _, r := range k.runs {
		all = append(all, r.events...)
	}
	return protocol.CompactEvents(all)
}

// messageIDs are the ids of the messages the kept runs hold: those their events name,
// and those their clients sent, in RUN_STARTED's input.
func (k *kept) messageIDs() map[string]bool {
	ids := map[string]bool{}
	for _, r := range k.runs {
		for _, ev := range r.events {
			if id := ev.Str("messageId"); id != "" {
				ids[id] = true
			}
			if ev.Type != protocol.RunStarted {
				continue
			}
			input, _ := ev.Get("input")
			msgs, _ := input.(map[string]any)["messages"].([]any)
			for _, m := range msgs {
				if id, _ := m.(map[string]any)["id"].(string); id != "" {
					ids[id] = true
				}
			}
		}
	}
	return ids
}

// Live is the events of a run as it sends them, which a client that connects while the
// run streams follows to its end.
type Live struct {
	mu      sync.Mutex
	events  []protocol.Event
	ended   bool
	changed chan struct{} // closed, and replaced, when an event comes or the run ends
}

func newLive() *Live { return &Live{changed: make(chan struct{})} }

// add appends an event and wakes the followers.
func (l *Live) add(ev protocol.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ev)
	close(l.changed)
	l.changed = make(chan struct{})
}

// end marks the run ended, wakes the followers, and returns its events.
func (l *Live) end() []protocol.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ended {
		l.ended = true
		close(l.changed)
	}
	return l.events
}

// Next returns the run's events from index from on, waiting until there is one or the
// run has ended (ended true, with what came last), or until ctx is done.
func (l *Live) Next(ctx context.Context, from int) (events []protocol.Event, ended bool, err error) {
	for {
		l.mu.Lock()
		events, ended, changed := l.events[min(from, len(l.events)):], l.ended, l.changed
		l.mu.Unlock()
		if len(events) > 0 || ended {
			return events, ended, nil
		}
		select {
		case <-ctx.Done():
			return nil, false, context.Cause(ctx)
		case <-changed:
		}
	}
}

// Events returns the events the run has sent so far.
func (l *Live) Events() []protocol.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// Keep makes the run one of the runtime's, of the given agent: the thread keeps its
// events, compacted, when it ends. It returns the ids of the messages the thread's kept
// runs hold, which the runtime leaves out of the run's RUN_STARTED input.
func (r *Run) Keep(agent string) (historic map[string]bool) {
	r.store.mu.Lock()
	defer r.store.mu.Unlock()
	t := r.thread
	if t.kept == nil {
		t.kept = &kept{}
	}
	t.kept.agent = agent
	r.active.live = newLive()
	return t.kept.messageIDs()
}

// Append adds events to what the thread keeps of the run that its client never got: the
// runtime's end of a run whose stream ended without a terminal event. It does nothing
// for a run the thread does not keep.
func (r *Run) Append(events ...protocol.Event) {
	if live := r.active.live; live != nil {
		for _, ev := range events {
			live.add(ev)
		}
	}
}

// Live returns the run's events as it sends them; nil when the thread does not keep them.
func (r *Run) Live() *Live { return r.active.live }

// Replay is what a client that connects to a thread gets: the events of its kept runs,
// compacted, and the run streaming now, if it is one of the runtime's.
type Replay struct {
	Events []protocol.Event
	Live   *Live // nil when no run of the runtime streams on the thread
}

// Replay returns the thread's replay; false for a thread unknown, or one that keeps no
// runs.
func (s *Store) Replay(key Key) (Replay, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.find(key)
	if t == nil || t.kept == nil {
		return Replay{}, false
	}
	s.touch(t)
	r := Replay{Events: t.kept.events()}
	if t.active != nil {
		r.Live = t.active.live
	}
	return r, true
}

// Listed is a thread as the runtime's thread list names it.
type Listed struct {
	ID               string
	Agent            string
	Created, Updated time.Time
	order            uint64
}

// List returns the threads of a test that keep runs (of the given agent, unless it is
// ""), the most recently updated first.
func (s *Store) List(testID, agent string) []Listed {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropExpired(s.now())
	var out []Listed
	for key, t := range s.threads {
		if key.Test != testID || t.kept == nil || len(t.kept.runs) == 0 || (agent != "" && t.kept.agent != agent) {
			continue
		}
		out = append(out, Listed{ID: key.Thread, Agent: t.kept.agent, Created: t.kept.created, Updated: t.kept.updated, order: t.kept.order})
	}
	slices.SortFunc(out, func(a, b Listed) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return cmp.Compare(b.order, a.order)
	})
	return out
}

// Kept is what the runtime's thread routes show of a thread: its messages at the end of
// its last kept run, and its kept events, compacted.
type Kept struct {
	Agent    string
	Messages []map[string]any
	Events   []protocol.Event
}

// Kept returns what the thread keeps; false for a thread unknown or that keeps no runs.
func (s *Store) Kept(key Key) (Kept, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.find(key)
	if t == nil || t.kept == nil || len(t.kept.runs) == 0 {
		return Kept{}, false
	}
	t.convMu.Lock()
	conv := t.conversation()
	conv.Settle()
	msgs := cloneMessages(conv.Messages)
	t.convMu.Unlock()
	return Kept{Agent: t.kept.agent, Messages: msgs, Events: t.kept.events()}, true
}

// Seed is a conversation a thread starts from, as if its runs had been played.
type Seed struct {
	Agent string
	// Runs are the events of each run, as protocol.SeededThread.Events makes them.
	Runs   [][]protocol.Event
	RunIDs []string
	// Cursor is where the conversation continues, nil when it waits for nothing the
	// scenarios know of.
	Cursor *scenarios.Cursor
	// Next names the scenario that answers the thread's next run; "" for none.
	Next string
}

// SeedError says a thread cannot be seeded now.
type SeedError struct{ RunID string }

// Error says which run still streams.
func (e *SeedError) Error() string {
	return "run " + e.RunID + " is streaming on this thread; stop it before seeding the thread again"
}

// Seed makes a thread the seeded conversation, in place of what it was. A thread with a
// run streaming is not replaced: *SeedError. A conversation that alone would keep more
// than Limits.MaxBytes is not kept, and the thread is forgotten: *TooLargeError.
func (s *Store) Seed(key Key, seed Seed) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.find(key)
	if t != nil && t.active != nil {
		return &SeedError{RunID: t.active.runID}
	}
	if t == nil {
		s.evict(s.now())
		t = &Thread{key: key}
		t.elem = s.lru.PushFront(t)
		s.threads[key] = t
	}
	now := s.now()
	t.convMu.Lock()
	t.conv, t.frozen = protocol.Conversation{}, nil
	t.runs, t.started = nil, 0
	t.kept = &kept{agent: seed.Agent}
	for i, events := range seed.Runs {
		for _, ev := range events {
			if ev.Type == protocol.RunStarted {
				t.conv.AddInput(seededInput(ev))
			}
			_ = t.conv.Apply(ev)
		}
		t.started++
		outcome := protocol.OutcomeOf(events[len(events)-1])
		awaiting := 0
		if i == len(seed.Runs)-1 {
			awaiting = seed.Cursor.Awaiting()
			if interrupts, _ := protocol.Awaited(events, func(ev protocol.Event) protocol.Event { return ev }); awaiting == 0 {
				awaiting = len(interrupts)
			}
		}
		t.runs = append(t.runs, RunRecord{RunID: seed.RunIDs[i], Scenario: SeededScenario, Outcome: outcome, Awaiting: awaiting, Started: now, Ended: now})
		s.keptRuns++
		t.kept.add(seed.RunIDs[i], events, now, s.keptRuns, s.limits.MaxRuns)
	}
	t.conv.Settle()
	t.convMu.Unlock()
	t.cursor, t.next = seed.Cursor, seed.Next
	s.touch(t)
	t.freeze()
	s.settle(t)
	if max := s.limits.MaxBytes; max > 0 && t.size > max {
		s.forget(t)
		return &TooLargeError{Bytes: t.size, Limit: max}
	}
	s.shedBytes(t)
	return nil
}

// SeededScenario is what a seeded run's record names as its scenario.
const SeededScenario = "(seeded)"

// seededInput is the run input a seeded run's RUN_STARTED carries: its client's messages.
func seededInput(started protocol.Event) *protocol.RunAgentInput {
	input, _ := started.Get("input")
	msgs, _ := input.(map[string]any)["messages"].([]any)
	in := &protocol.RunAgentInput{}
	for _, m := range msgs {
		raw, _ := m.(map[string]any)
		id, _ := raw["id"].(string)
		role, _ := raw["role"].(string)
		in.Messages = append(in.Messages, protocol.Message{ID: id, Role: role, Raw: raw})
	}
	return in
}

// Has reports whether the store holds a thread of key.
func (s *Store) Has(key Key) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.find(key) != nil
}
