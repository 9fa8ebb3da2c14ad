// Package threads keeps the conversations the server has had: each thread's messages
// and state, where a paused scenario continues, its runs, and the run streaming now.
// Memory is bounded by a count, a byte budget and an idle time limit.
package threads

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// Limits bound the store.
type Limits struct {
	MaxThreads int           // the least recently used thread is forgotten past this
	IdleTTL    time.Duration // a thread unused this long is forgotten
	MaxRuns    int           // runs kept in a thread's record
	// MaxBytes bounds what the threads keep together, as protocol.Footprint counts it:
	// their messages and state, and what they keep of the CopilotKit runtime's runs.
	// Past it the least recently used threads are forgotten as a run ends; 0: no bound.
	MaxBytes int64
}

// DefaultLimits suit a developer machine and an e2e farm alike.
func DefaultLimits() Limits {
	return Limits{MaxThreads: 10000, IdleTTL: time.Hour, MaxRuns: 100, MaxBytes: DefaultMaxBytes}
}

// Key names a thread in the store: a thread id within the test that sent it (the
// X-Test-Id header; "" for requests without one). Its parts stay apart, so that no
// thread id, whatever characters it holds, names a thread of another test.
type Key struct {
	Test   string
	Thread string
}

// ErrCancelled is the cause of a run stopped through the cancel endpoint.
var ErrCancelled = errors.New("cancelled through /agui/cancel")

// ErrStopped is the cause of a run stopped through the CopilotKit runtime's stop route,
// whose stream ends as the runtime ends a stopped run's.
var ErrStopped = errors.New("stopped through the runtime's stop route")

// RunRecord is one run in a thread's history.
type RunRecord struct {
	RunID    string           `json:"runId"`
	Scenario string           `json:"scenario"`
	Outcome  protocol.Outcome `json:"outcome"`
	// Awaiting is the number of interrupts the run left waiting for an answer: with an
	// interrupt outcome, or with success in the LangGraph dialect.
	Awaiting int       `json:"awaiting,omitempty"`
	Started  time.Time `json:"startedAt"`
	Ended    time.Time `json:"endedAt,omitzero"`
}

// Thread is one conversation. Its conversation is guarded by convMu, everything else by
// the store's lock; use the store's methods.
type Thread struct {
	elem   *list.Element // in the store's recency list
	key    Key
	convMu sync.Mutex // guards conv and frozen; a streaming run updates conv event by event
	conv   protocol.Conversation
	// frozen is conv as JSON while no run streams on the thread (conv is then empty): a
	// store of thousands of threads would otherwise give the collector their every
	// message and value to walk on each collection. conversation thaws it.
	frozen   []byte
	cursor   *scenarios.Cursor
	runs     []RunRecord
	started  int // runs started, all of them: runs keeps only the latest
	active   *activeRun
	lastUsed time.Time
	// kept is what a CopilotKit runtime keeps of the thread, for its runs through the
	// runtime's routes (and a seeded thread's): nil for a thread that has none.
	kept *kept
	// next is the scenario the thread was seeded to play next; "" when its next run is
	// chosen as any other.
	next string
	// size is what the thread keeps, in bytes, as of its last run's end (settle).
	size int64
}

type activeRun struct {
	runID    string
	scenario string
	cancel   context.CancelCauseFunc
	// done is closed when the run's stream has ended; it is made when a cancel waits for
	// that (Cancel), or a run that finds the thread busy may (Begin), which most runs
	// never meet. Guarded by the store's lock.
	done   chan struct{}
	ending string // how the stream ended after a cancel, as the client got it
	live   *Live  // its events as it sends them, when the thread keeps them
}

// ended closes done, if a cancel made it: a cancel finds no run once its thread's active
// run is gone, so none makes it later. The caller holds the store's lock.
func (a *activeRun) ended() {
	if a.done != nil {
		close(a.done)
	}
}

// Store holds the threads.
type Store struct {
	mu      sync.Mutex
	limits  Limits
	threads map[Key]*Thread
	lru     *list.List // most recently used first
	now     func() time.Time
	// keptRuns counts the runs threads kept for the CopilotKit runtime, which orders the
	// threads its thread list shows when the clock does not.
	keptRuns uint64
	bytes    int64  // what the threads keep together: the sum of their sizes
	shed     uint64 // threads forgotten to stay within Limits.MaxBytes
}

// NewStore returns an empty store.
func NewStore(limits Limits, now func() time.Time) *Store {
	return &Store{limits: limits, threads: map[Key]*Thread{}, lru: list.New(), now: now}
}

// find returns a thread, or nil for an unknown one. A thread idle past the TTL is
// forgotten here, so that it expires on every access, not only when a new thread
// makes room. The caller holds s.mu.
func (s *Store) find(key Key) *Thread {
	t := s.threads[key]
	if t != nil && s.expired(t, s.now()) {
		s.forget(t)
		return nil
	}
	return t
}

// expired reports whether a thread has been idle past the TTL; a thread with a run
// streaming never is. The caller holds s.mu.
func (s *Store) expired(t *Thread, now time.Time) bool {
	return t.active == nil && now.Sub(t.lastUsed) > s.limits.IdleTTL
}

// forget removes a thread. The caller holds s.mu.
func (s *Store) forget(t *Thread) {
	s.lru.Remove(t.elem)
	delete(s.threads, t.key)
	s.bytes -= t.size
}

// touch marks a thread used now. The caller holds s.mu.
func (s *Store) touch(t *Thread) { s.touchAt(t, s.now()) }

// touchAt marks a thread used at now, read by the caller. The caller holds s.mu.
func (s *Store) touchAt(t *Thread, now time.Time) {
	t.lastUsed = now
	s.lru.MoveToFront(t.elem)
}

// BusyError says a thread already has a run streaming.
type BusyError struct {
	RunID string
	// Ended is closed when that run's stream has ended: a client that stopped it and
	// at once starts the next run may come before the server has seen it leave.
	Ended <-chan struct{}
}

// Error says which run still streams, and what the client can do.
func (e *BusyError) Error() string {
	return fmt.Sprintf("run %s is still streaming on this thread; wait for it to end or cancel it", e.RunID)
}

// Run is a run in progress on a thread, holding the thread until Finish or Release.
type Run struct {
	store   *Store
	thread  *Thread
	active  *activeRun // &own: the thread's active run while this one streams
	own     activeRun
	record  int
	created bool   // this run's request created the thread
	turn    int    // runs the thread started before this one
	next    string // the scenario the thread was seeded to play next
}

// Begin claims a thread for a run and returns the cursor where its conversation paused
// (nil when it has none). It fails with *BusyError while another run streams on it.
// cancel stops the run; the cancel endpoint calls it with ErrCancelled.
func (s *Store) Begin(key Key, runID string, cancel context.CancelCauseFunc) (*Run, *scenarios.Cursor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now() // one reading for the expiry, the eviction and the use
	t := s.threads[key]
	if t != nil && s.expired(t, now) { // as find
		s.forget(t)
		t = nil
	}
	created := t == nil
	if created {
		s.evict(now)
		t = &Thread{key: key}
		t.elem = s.lru.PushFront(t)
		s.threads[key] = t
	}
	if a := t.active; a != nil {
		if a.done == nil {
			a.done = make(chan struct{})
		}
		return nil, nil, &BusyError{RunID: a.runID, Ended: a.done}
	}
	s.touchAt(t, now)
	r := &Run{store: s, thread: t, own: activeRun{runID: runID, cancel: cancel}, record: -1, created: created, turn: t.started, next: t.next}
	r.active = &r.own
	t.active = r.active
	return r, t.cursor, nil
}

// Turn returns how many runs the thread started before this one: 0 for the first.
func (r *Run) Turn() int { return r.turn }

// Seeded returns the scenario the thread was seeded to play next, "" when none: the run
// plays it, unless it continues a scenario's paused conversation.
func (r *Run) Seeded() string { return r.next }

// Start records that the run plays a scenario.
func (r *Run) Start(scenario string) {
	r.store.mu.Lock()
	defer r.store.mu.Unlock()
	t := r.thread
	r.active.scenario = scenario
	t.next = ""
	t.started++
	t.runs = append(t.runs, RunRecord{RunID: r.active.runID, Scenario: scenario, Outcome: protocol.OutcomeRunning, Started: r.store.now()})
	if len(t.runs) > r.store.limits.MaxRuns {
		t.runs = t.runs[len(t.runs)-r.store.limits.MaxRuns:]
	}
	r.record = len(t.runs) - 1
}

// Release gives the thread back after a request that started no run; a thread that
// the request created is forgotten again, so refused requests leave nothing behind.
func (r *Run) Release() {
	r.store.mu.Lock()
	defer r.store.mu.Unlock()
	if live := r.active.live; live != nil {
		live.end()
	}
	r.thread.active = nil
	if r.created {
		r.store.forget(r.thread)
	}
	r.active.ended()
}

// AddInput merges the run input's messages and state into the thread.
func (r *Run) AddInput(in *protocol.RunAgentInput) {
	r.thread.convMu.Lock()
	defer r.thread.convMu.Unlock()
	conv := r.thread.conversation()
	conv.Settle()
	conv.AddInput(in)
}

// History returns a copy of the thread's messages with the run input's merged in,
// without changing the thread.
func (r *Run) History(in *protocol.RunAgentInput) []map[string]any {
	r.thread.convMu.Lock()
	own := r.thread.conversation()
	own.Settle()
	conv := protocol.Conversation{Messages: cloneMessages(own.Messages)}
	r.thread.convMu.Unlock()
	conv.AddInput(in)
	return conv.Messages
}

// Apply records an event the run sent.
func (r *Run) Apply(ev protocol.Event) {
	r.thread.convMu.Lock()
	_ = r.thread.conversation().Apply(ev) // the client ignores what cannot apply, and so does history
	r.thread.convMu.Unlock()
	if live := r.active.live; live != nil {
		live.add(ev)
	}
}

// Cancelled records how the run's stream ended after a cancel (e.g. "RUN_FINISHED with
// outcome cancelled"), for the cancel endpoint to report.
func (r *Run) Cancelled(ending string) {
	r.store.mu.Lock()
	defer r.store.mu.Unlock()
	r.active.ending = ending
}

// Finish releases the thread: outcome is how the run ended, next where the conversation
// continues (nil when it does not).
func (r *Run) Finish(outcome protocol.Outcome, next *scenarios.Cursor) {
	r.store.mu.Lock()
	defer r.store.mu.Unlock()
	t := r.thread
	t.cursor = next
	t.active = nil
	now := r.store.now()
	r.store.touchAt(t, now)
	if live := r.active.live; live != nil {
		r.store.keptRuns++
		t.kept.add(r.active.runID, live.end(), now, r.store.keptRuns, r.store.limits.MaxRuns)
	}
	t.freeze()
	if i := r.recordIndex(); i >= 0 {
		t.runs[i].Outcome, t.runs[i].Awaiting = outcome, next.Awaiting()
		t.runs[i].Ended = now
	}
	r.store.settle(t)
	r.store.shedBytes(t)
	r.active.ended()
}

// conversation returns the thread's conversation, thawed if it was frozen. The caller
// holds t.convMu.
func (t *Thread) conversation() *protocol.Conversation {
	if t.frozen != nil {
		t.conv, t.frozen = protocol.Thaw(t.frozen), nil
	}
	return &t.conv
}

// freeze keeps the conversation as JSON until a run or a reader needs it again; one
// that cannot be written so stays as it is.
func (t *Thread) freeze() {
	t.convMu.Lock()
	defer t.convMu.Unlock()
	if t.frozen != nil {
		return
	}
	if frozen, err := t.conv.Freeze(); err == nil {
		t.conv, t.frozen = protocol.Conversation{}, frozen
	}
}

// recordIndex finds the run's record; old records may have been dropped meanwhile.
func (r *Run) recordIndex() int {
	for i := len(r.thread.runs) - 1; i >= 0; i-- {
		if r.thread.runs[i].RunID == r.active.runID && r.thread.runs[i].Outcome == protocol.OutcomeRunning {
			return i
		}
	}
	return -1
}

// History is a thread as the history endpoint shows it.
type History struct {
	ThreadID         string           `json:"threadId"`
	Messages         []map[string]any `json:"messages"`
	State            any              `json:"state"`
	Interrupts       []map[string]any `json:"interrupts"`
	PendingToolCalls []string         `json:"pendingToolCallIds"`
	Running          *RunRecord       `json:"running"`
	Runs             []RunRecord      `json:"runs"`
}

// History returns a copy of a thread's record, or false for an unknown thread.
func (s *Store) History(key Key) (History, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.find(key)
	if t == nil {
		return History{}, false
	}
	t.convMu.Lock()
	conv := t.conversation()
	conv.Settle()
	h := History{ThreadID: t.key.Thread, Messages: cloneMessages(conv.Messages), State: conv.State,
		Interrupts: []map[string]any{}, PendingToolCalls: []string{}, Runs: append([]RunRecord(nil), t.runs...)}
	t.convMu.Unlock()
	if h.Messages == nil {
		h.Messages = []map[string]any{}
	}
	if h.State == nil {
		h.State = map[string]any{}
	}
	if t.cursor != nil {
		for _, pi := range t.cursor.Interrupts {
			h.Interrupts = append(h.Interrupts, pi.Wire)
		}
		for _, tc := range t.cursor.ToolCalls {
			h.PendingToolCalls = append(h.PendingToolCalls, tc.ID)
		}
	}
	for i := range h.Runs {
		if h.Runs[i].Outcome == protocol.OutcomeRunning {
			h.Running = &h.Runs[i]
		}
	}
	return h, true
}

// Cancellation says what a cancel request stopped.
type Cancellation struct {
	Known    bool   // the thread exists
	RunID    string // the run stopped; empty when none was streaming
	Scenario string
	Ending   string // how its stream ended, as the run recorded it; empty if not (yet) known
}

// Cancel stops the run streaming on a thread, with cause (ErrCancelled or ErrStopped),
// and waits, up to wait, until its stream has ended. Given a runID, it stops that run
// only: another run streaming is left alone, and the answer says none was stopped.
func (s *Store) Cancel(key Key, cause error, runID string, wait time.Duration) Cancellation {
	s.mu.Lock()
	t := s.find(key)
	if t == nil {
		s.mu.Unlock()
		return Cancellation{}
	}
	a := t.active
	if a == nil || (runID != "" && a.runID != runID) {
		s.mu.Unlock()
		return Cancellation{Known: true}
	}
	a.cancel(cause)
	if a.done == nil {
		a.done = make(chan struct{})
	}
	done := a.done
	s.mu.Unlock()
	select {
	case <-done:
	case <-time.After(wait):
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return Cancellation{Known: true, RunID: a.runID, Scenario: a.scenario, Ending: a.ending}
}

// Reset forgets the threads of a test (every thread with all), cancelling their
// streaming runs.
func (s *Store) Reset(testID string, all bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, t := range s.threads {
		if all || key.Test == testID {
			if t.active != nil {
				t.active.cancel(ErrCancelled)
			}
			s.forget(t)
		}
	}
}

// Len returns how many threads the store holds, idle ones past the TTL not counted.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropExpired(s.now())
	return len(s.threads)
}

// evict makes room for one more thread at now: it forgets threads idle past the TTL and, past
// the count limit, the least recently used ones. A thread with a run streaming is never
// forgotten. The caller holds s.mu.
func (s *Store) evict(now time.Time) {
	s.dropExpired(now)
	for e := s.lru.Back(); e != nil && len(s.threads) >= s.limits.MaxThreads; {
		t := e.Value.(*Thread)
		prev := e.Prev()
		if t.active == nil {
			s.forget(t)
		}
		e = prev
	}
}

// dropExpired forgets the threads idle past the TTL at now. The caller holds s.mu.
func (s *Store) dropExpired(now time.Time) {
	for e := s.lru.Back(); e != nil; {
		t := e.Value.(*Thread)
		prev := e.Prev()
		switch {
		case t.active != nil: // streaming: kept
		case s.expired(t, now):
			s.forget(t)
		default:
			return // everything in front of it is newer
		}
		e = prev
	}
}

func cloneMessages(msgs []map[string]any) []map[string]any {
	out := make([]map[string]any, len(msgs))
	for i, m := range msgs {
		out[i] = protocol.CloneObject(m)
	}
	return out
}
