package server

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

// breakpoints is the set of breakpoints.
type breakpoints struct {
	mu    sync.Mutex
	next  int
	all   map[string]*Breakpoint
	count atomic.Int64 // len(all), read without the lock by every event of every stream
}

func (b *breakpoints) add(bp Breakpoint) Breakpoint {
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

func (b *breakpoints) get(id string) (*Breakpoint, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	bp, ok := b.all[id]
	return bp, ok
}

// snapshot returns a copy of a breakpoint's state.
func (b *breakpoints) snapshot(bp *Breakpoint) Breakpoint {
	b.mu.Lock()
	defer b.mu.Unlock()
	return *bp
}

// hit claims the breakpoint that matches an event about to be sent, if any.
func (b *breakpoints) hit(testID, scenario, step string, index int, threadID, runID string) *Breakpoint {
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

// release lets a paused stream go on; releasing before it is reached disarms it. With
// forget, the breakpoint is gone too.
func (b *breakpoints) release(bp *Breakpoint, forget bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.releaseLocked(bp)
	if forget {
		delete(b.all, bp.ID)
		b.count.Store(int64(len(b.all)))
	}
}

func (b *breakpoints) releaseLocked(bp *Breakpoint) {
	if !bp.Released {
		bp.Released = true
		close(bp.released)
	}
}

// remove forgets a test's breakpoints (all when testID is empty), releasing paused streams.
func (b *breakpoints) remove(testID string, all bool) {
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

// wait blocks until the breakpoint is reached or ctx ends.
func (bp *Breakpoint) wait(ctx context.Context) bool {
	select {
	case <-bp.reached:
		return true
	case <-ctx.Done():
		return false
	}
}
