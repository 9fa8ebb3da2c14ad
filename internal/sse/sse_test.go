package sse

import (
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// response is a response writer that records what each flush sends and the write
// deadlines it is given.
type response struct {
	mu        sync.Mutex // the first flush runs on a goroutine of its own
	start     time.Time
	header    http.Header
	status    int
	buffered  strings.Builder
	flushed   []string        // what each flush carried
	deadlines []time.Duration // from the start
}

func newResponse() *response { return &response{start: time.Now(), header: http.Header{}} }

func (r *response) Header() http.Header { return r.header }

func (r *response) WriteHeader(code int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status = code
}

func (r *response) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buffered.Write(b)
}

func (r *response) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushed = append(r.flushed, r.buffered.String())
	r.buffered.Reset()
}

func (r *response) SetWriteDeadline(t time.Time) error {
	r.deadlines = append(r.deadlines, t.Sub(r.start))
	return nil
}

func TestAStreamHasTheEventStreamHeaders(t *testing.T) {
	rec := newResponse()
	w := NewWriter(rec, 0)
	w.Begin("text/event-stream; charset=utf-8")
	want := http.Header{
		"Content-Type":      {"text/event-stream; charset=utf-8"},
		"Cache-Control":     {"no-cache"},
		"Connection":        {"keep-alive"},
		"X-Accel-Buffering": {"no"},
	}
	if !reflect.DeepEqual(rec.header, want) || rec.status != http.StatusOK {
		t.Errorf("status %d, headers %v; want 200, %v", rec.status, rec.header, want)
	}
}

func TestFramesWaitForFlush(t *testing.T) {
	rec := newResponse()
	w := NewWriter(rec, 0)
	w.Begin("text/event-stream; charset=utf-8")
	for _, frame := range []string{"data: {\"a\":1}\n\n", "data: {\"b\":2}\n\n"} {
		if _, err := w.Write([]byte(frame)); err != nil {
			t.Fatal(err)
		}
	}
	if len(rec.flushed) != 0 {
		t.Fatalf("sent before a flush: %q", rec.flushed)
	}
	for range 2 { // the first flush runs on a goroutine of its own, the next on the caller's
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"data: {\"a\":1}\n\ndata: {\"b\":2}\n\n", ""}; !reflect.DeepEqual(rec.flushed, want) {
		t.Errorf("flushes %q, want %q", rec.flushed, want)
	}
}

// noFlush is a response writer that cannot flush nor set deadlines.
type noFlush struct{ http.ResponseWriter }

func TestAResponseThatCannotFlushIsNoError(t *testing.T) {
	w := NewWriter(noFlush{newResponse()}, time.Second)
	w.Begin("text/event-stream; charset=utf-8")
	if _, err := w.Write([]byte(": keep-alive\n\n")); err != nil {
		t.Errorf("write: %v", err)
	}
	if err := w.Flush(); err != nil {
		t.Errorf("flush: %v", err)
	}
}

func TestWriteDeadlinesAreRenewedWhenHalfSpent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newResponse()
		w := NewWriter(rec, 10*time.Second)
		w.Begin("text/event-stream; charset=utf-8")
		for i := range 13 { // one frame a second
			if _, err := w.Write([]byte("data: {}\n\n")); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if len(rec.deadlines) == 0 {
				t.Fatal("no write deadline was set")
			}
			if left := rec.deadlines[len(rec.deadlines)-1] - time.Since(rec.start); left < 5*time.Second {
				t.Fatalf("frame %d was written with %v left before its deadline", i, left)
			}
			time.Sleep(time.Second)
		}
		if want := []time.Duration{10 * time.Second, 16 * time.Second, 22 * time.Second}; !reflect.DeepEqual(rec.deadlines, want) {
			t.Errorf("deadlines %v, want %v", rec.deadlines, want)
		}
		if len(rec.flushed) != 13 {
			t.Errorf("%d flushes, want 13", len(rec.flushed))
		}
	})
}

func TestWithoutATimeoutWritesHaveNoDeadline(t *testing.T) {
	rec := newResponse()
	w := NewWriter(rec, 0)
	w.Begin("text/event-stream; charset=utf-8")
	if _, err := w.Write([]byte("data: {}\n\n")); err != nil {
		t.Fatal(err)
	}
	if len(rec.deadlines) != 0 {
		t.Errorf("deadlines %v, want none", rec.deadlines)
	}
}
