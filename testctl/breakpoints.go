package testctl

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// Breakpoint pauses streams before an event, so that a test can look at a half-streamed
// UI without racing a timer. It matches the first event of the step with the given id,
// or the event at the given index, in runs of the given scenario (any when empty) for
// the given test id; it triggers once.
type Breakpoint struct {
	ID       string `json:"id"`
	TestID   string `json:"testId,omitempty"`
	Scenario string `json:"scenario,omitempty"`
	Step     string `json:"step,omitempty"`
	Event    *int   `json:"event,omitempty"`
	Reached  bool   `json:"reached"`
	Released bool   `json:"released"`
	ThreadID string `json:"threadId,omitempty"`
	RunID    string `json:"runId,omitempty"`

	reached  chan struct{} // closed when a stream pauses here
	released chan struct{} // closed when the test lets it go on
}

// Wait blocks until a stream has paused at the breakpoint, or ctx ends; it reports
// whether a stream has.
func (bp *Breakpoint) Wait(ctx context.Context) bool {
	select {
	case <-bp.reached:
		return true
	case <-ctx.Done():
		return false
	}
}

// Resumed is closed when the stream paused at the breakpoint may go on: the breakpoint
// was released, or forgotten.
func (bp *Breakpoint) Resumed() <-chan struct{} { return bp.released }

// Breakpoints is the set of breakpoints of every test. Their ids are unique across
// tests.
type Breakpoints struct {
	mu    sync.Mutex
	next  int
	all   map[string]*Breakpoint
	count atomic.Int64 // len(all), read without the lock by every event of every stream
}

// Add arms a breakpoint, giving it its id, and returns a copy of it.
func (b *Breakpoints) Add(bp Breakpoint) Breakpoint {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next++
	bp.ID = fmt.Sprintf("bp-%d", b.next)
	bp.reached, bp.released = make(chan struct{}), make(chan struct{})
	if b.all == nil {
		b.all = map[string]*Breakpoint{}
	}
	b.all[bp.ID] = &bp
	b.count.Store(int64(len(b.all)))
	return bp
}

// Get returns the breakpoint with an id, or false if there is none.
func (b *Breakpoints) Get(id string) (*Breakpoint, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	bp, ok := b.all[id]
	return bp, ok
}

// Snapshot returns a copy of a breakpoint's state.
func (b *Breakpoints) Snapshot(bp *Breakpoint) Breakpoint {
	b.mu.Lock()
	defer b.mu.Unlock()
	return *bp
}

// Hit claims the breakpoint that matches an event about to be sent, if any: the event
// at index in the run of a scenario for a test, the first of the step with the id step.
func (b *Breakpoints) Hit(testID, scenario, step string, index int, threadID, runID string) *Breakpoint {
	if b.count.Load() == 0 {
		return nil // the usual case: no test has set any
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, bp := range b.all {
		if bp.Reached || bp.TestID != testID || (bp.Scenario != "" && bp.Scenario != scenario) {
			continue
		}
		if (bp.Step != "" && bp.Step == step) || (bp.Event != nil && *bp.Event == index) {
			bp.Reached, bp.ThreadID, bp.RunID = true, threadID, runID
			close(bp.reached)
			return bp
		}
	}
	return nil
}

// Release lets a paused stream go on; releasing before it is reached disarms it. With
// forget, the breakpoint is gone too.
func (b *Breakpoints) Release(bp *Breakpoint, forget bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.releaseLocked(bp)
	if forget {
		delete(b.all, bp.ID)
		b.count.Store(int64(len(b.all)))
	}
}

func (b *Breakpoints) releaseLocked(bp *Breakpoint) {
	if !bp.Released {
		bp.Released = true
		close(bp.released)
	}
}

// Reset forgets a test's breakpoints (testID "" names the requests without one), or
// all of them, releasing the streams paused there.
func (b *Breakpoints) Reset(testID string, all bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id, bp := range b.all {
		if all || bp.TestID == testID {
			b.releaseLocked(bp)
			delete(b.all, id)
		}
	}
	b.count.Store(int64(len(b.all)))
}
