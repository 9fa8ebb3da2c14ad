package server

import (
	"errors"
	"net/http"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// eventWriter writes SSE frames. Frames wait in the response's buffer until flush, which
// the player calls before every wait: the client sees each event the moment it is due,
// and events due at the same moment go out in one write instead of one each.
type eventWriter struct {
	w            http.ResponseWriter
	rc           *http.ResponseController
	writeTimeout time.Duration
	faultWrite   func(e *eventWriter, b []byte) error // a fault's: writes in place of a plain write
	withIDs      bool
	pending      bool // written since the last flush
	headersSent  bool // flushed once: net/http has written the headers
	deadline     time.Time
	buf          []byte
}

// newEventWriter returns a writer of SSE frames to w; faultWrite, if not nil, is a
// fault's, and writes every frame and comment in place of a plain write.
func newEventWriter(w http.ResponseWriter, withIDs bool, writeTimeout time.Duration, faultWrite func(e *eventWriter, b []byte) error) *eventWriter {
	return &eventWriter{w: w, rc: http.NewResponseController(w), withIDs: withIDs, writeTimeout: writeTimeout, faultWrite: faultWrite}
}

// begin starts the stream. Its headers wait for the first flush: they go out with the
// first events if those are due at once, or alone before the first wait.
func (e *eventWriter) begin() {
	h := e.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no") // nginx and similar proxies: do not buffer
	e.w.WriteHeader(http.StatusOK)
	e.pending = true
}

// event writes one event stamped with timestamp, in milliseconds.
func (e *eventWriter) event(ev protocol.Event, timestamp int64) error {
	var err error
	e.buf, err = protocol.AppendFrame(e.buf[:0], ev, timestamp, e.withIDs)
	if err != nil {
		return err
	}
	return e.write(e.buf)
}

// comment writes a keep-alive comment and flushes it: it is written only during waits.
func (e *eventWriter) comment() error {
	if err := e.write([]byte(protocol.KeepAlive)); err != nil {
		return err
	}
	return e.flush()
}

func (e *eventWriter) write(b []byte) error {
	if e.faultWrite != nil {
		return e.faultWrite(e, b)
	}
	return e.writeOnce(b)
}

func (e *eventWriter) writeOnce(b []byte) error {
	// The deadline is renewed when less than half of it is left, not before every write:
	// each write has at least half the timeout, and most cost no timer update.
	if e.writeTimeout > 0 {
		if now := time.Now(); e.deadline.Sub(now) < e.writeTimeout/2 {
			e.deadline = now.Add(e.writeTimeout)
			if err := e.rc.SetWriteDeadline(e.deadline); err != nil && !errors.Is(err, http.ErrNotSupported) {
				return err
			}
		}
	}
	e.pending = true
	_, err := e.w.Write(b)
	return err
}

// flushPending flushes if anything was written since the last flush.
func (e *eventWriter) flushPending() error {
	if !e.pending {
		return nil
	}
	return e.flush()
}

// flush sends what was written since the last flush. The first flush, in which net/http
// writes the headers, runs on a goroutine of its own: writing them takes 4 KiB of stack,
// and on the stream's goroutine, already deep in the middleware, that would double the
// goroutine's stack to 16 KiB for as long as the stream stays open.
func (e *eventWriter) flush() error {
	e.pending = false
	if !e.headersSent {
		e.headersSent = true
		done := make(chan error, 1)
		go func() { done <- e.flushNow() }()
		return <-done
	}
	return e.flushNow()
}

func (e *eventWriter) flushNow() error {
	if err := e.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}
