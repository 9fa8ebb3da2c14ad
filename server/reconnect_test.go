package server

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agui-mock/agui-mock/threads"
)

func TestParseCursor(t *testing.T) {
	token := strings.Repeat("A", tokenLen)
	for _, c := range []struct {
		id   string
		want cursor
		ok   bool
	}{
		{token + ".1", cursor{token, 1}, true},
		{" " + token + ".42 ", cursor{token, 42}, true},
		{token + ".0", cursor{}, false},
		{token + ".-3", cursor{}, false},
		{token + ".x", cursor{}, false},
		{token, cursor{}, false},
		{"RUN_STARTED_1795989888731", cursor{}, false},
		{strings.Repeat("A", tokenLen-1) + ".1", cursor{}, false},
		{strings.Repeat("!", tokenLen) + ".1", cursor{}, false},
	} {
		got, ok := parseCursor(c.id)
		if got != c.want || ok != c.ok {
			t.Errorf("parseCursor(%q) = %v %v, want %v %v", c.id, got, ok, c.want, c.ok)
		}
	}
}

// cancelCause is what a run's cancel function was called with, read from the test.
type cancelCause struct {
	mu    sync.Mutex
	cause error
}

func (c *cancelCause) cancel(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cause = err
}

func (c *cancelCause) get() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cause
}

// newTestReplay registers a run in a registry of the given bounds, and returns what its
// run was cancelled with.
func newTestReplay(cfg ReconnectConfig) (*reconnects, *replayRun, *cancelCause) {
	cfg.Cursor = true
	r := newReconnects(cfg)
	cause := &cancelCause{}
	run := r.open(threads.Key{Thread: "t"}, "r", cause.cancel)
	return r, run, cause
}

// frames reads what a reader at seq gets now.
func frames(run *replayRun, seq int) (string, int, bool, bool) {
	out, last, ended, gone, _ := run.from(nil, seq)
	return string(out), last, ended, gone
}

func TestReplayKeepsEveryFrameAndHandsOutTheRest(t *testing.T) {
	_, run, _ := newTestReplay(DefaultReconnectConfig())
	run.add([]byte("a"))
	run.add([]byte("b"))
	if got, last, ended, _ := frames(run, 1); got != "b" || last != 2 || ended {
		t.Fatalf("after 1: %q up to %d ended %v", got, last, ended)
	}
	run.add([]byte("c"))
	run.end()
	if got, last, ended, _ := frames(run, 2); got != "c" || last != 3 || !ended {
		t.Fatalf("after 2: %q up to %d ended %v", got, last, ended)
	}
	if err := run.attach(4); !errors.Is(err, errCursorAhead) {
		t.Errorf("a cursor past the end: %v, want %v", err, errCursorAhead)
	}
	if err := run.attach(3); err != nil {
		t.Errorf("a cursor at the last event: %v", err)
	}
}

func TestReplayBoundsARunAndAllRuns(t *testing.T) {
	r, run, _ := newTestReplay(ReconnectConfig{MaxRunBytes: 4096, MaxBytes: 8192})
	frame := []byte(strings.Repeat("x", 1024-frameOverhead))
	for range 6 {
		run.add(frame)
	}
	if run.first != 3 || run.bytes != 4096 || r.used.Load() != 4096 {
		t.Fatalf("past its bound the run keeps frames from %d, %d bytes (%d in all); want from 3, 4096", run.first, run.bytes, r.used.Load())
	}
	if err := run.attach(1); !errors.Is(err, errCursorDropped) {
		t.Errorf("a cursor before the kept frames: %v, want %v", err, errCursorDropped)
	}
	if err := run.attach(2); err != nil {
		t.Errorf("a cursor right before the kept frames: %v", err)
	}
	run.detach()

	// Runs that have ended give up their room first, the first to end first.
	run.end()
	other := r.open(threads.Key{Thread: "u"}, "r", func(error) {})
	for range 5 {
		other.add(frame)
	}
	if r.lookup(run.token) != nil || !run.gone {
		t.Error("the ended run kept its frames past the total bound")
	}
	if other.bytes != 4096 || r.used.Load() != 4096 {
		t.Errorf("the writing run keeps %d bytes, %d in all; want 4096", other.bytes, r.used.Load())
	}
	// A frame larger than a run's bound is not kept, nor anything before it.
	other.add(make([]byte, 4096))
	if other.bytes != 0 || other.first != other.next || r.used.Load() != 0 {
		t.Errorf("after a frame past the bound: %d bytes from %d (next %d), %d in all", other.bytes, other.first, other.next, r.used.Load())
	}
}

func TestAnAbsentClientsRunIsCancelledWhenTheGraceIsOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const grace = 10 * time.Second
		r, run, cause := newTestReplay(ReconnectConfig{Grace: grace})
		run.leave()
		time.Sleep(grace - time.Millisecond)
		if cause.get() != nil {
			t.Fatalf("cancelled before the grace was over: %v", cause.get())
		}
		// A client that comes back stops the clock; when it goes again the grace starts anew.
		if err := run.attach(0); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Hour)
		if cause.get() != nil {
			t.Fatalf("cancelled while a client read it: %v", cause.get())
		}
		run.detach()
		time.Sleep(grace - time.Millisecond)
		if cause.get() != nil {
			t.Fatalf("cancelled before the new grace was over: %v", cause.get())
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if !errors.Is(cause.get(), errGraceOver) {
			t.Fatalf("after the grace: cause %v, want %v", cause.get(), errGraceOver)
		}
		if r.lookup(run.token) != nil {
			t.Error("the run's cursor still works after the grace")
		}
	})
}

func TestAnEndedRunIsKeptForTheGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const grace = 5 * time.Second
		r, run, cause := newTestReplay(ReconnectConfig{Grace: grace})
		run.add([]byte("a"))
		run.end() // its first client read it to the end
		time.Sleep(grace - time.Millisecond)
		if r.lookup(run.token) == nil {
			t.Fatal("forgotten before the grace was over")
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if r.lookup(run.token) != nil {
			t.Error("kept after the grace")
		}
		if cause.get() != nil {
			t.Errorf("an ended run was cancelled: %v", cause.get())
		}
	})
}

func TestAReaderWaitingOnARunSeesItForgotten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, run, _ := newTestReplay(ReconnectConfig{Grace: time.Second})
		if err := run.attach(0); err != nil {
			t.Fatal(err)
		}
		_, _, _, _, changed := run.from(nil, 0)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go func() {
			select {
			case <-changed:
			case <-ctx.Done():
			}
		}()
		r.forget(run)
		synctest.Wait()
		if _, _, _, gone := frames(run, 0); !gone {
			t.Error("the reader does not see the run gone")
		}
	})
}
