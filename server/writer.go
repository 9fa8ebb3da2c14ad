package server

import (
	"errors"
	"net/http"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// eventWriter writes SSE frames and flushes each one, so the client sees every event
// the moment it is due.
type eventWriter struct {
	w            http.ResponseWriter
	rc           *http.ResponseController
	withIDs      bool
	writeTimeout time.Duration
	split        bool // the split fault: every write goes out in pieces of a few bytes
	buf          []byte
}

func newEventWriter(w http.ResponseWriter, withIDs bool, writeTimeout time.Duration, split bool) *eventWriter {
	return &eventWriter{w: w, rc: http.NewResponseController(w), withIDs: withIDs, writeTimeout: writeTimeout, split: split}
}

// begin sends the stream's headers.
func (e *eventWriter) begin() error {
	h := e.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no") // nginx and similar proxies: do not buffer
	e.w.WriteHeader(http.StatusOK)
	return e.flush()
}

// event writes one event stamped with the current time in milliseconds.
func (e *eventWriter) event(ev protocol.Event) error {
	var err error
	e.buf, err = protocol.AppendFrame(e.buf[:0], ev, time.Now().UnixMilli(), e.withIDs)
	if err != nil {
		return err
	}
	return e.write(e.buf)
}

func (e *eventWriter) comment() error { return e.write([]byte(protocol.KeepAlive)) }

func (e *eventWriter) write(b []byte) error {
	if e.split {
		// pieces of 1, 2, 3 and 5 bytes in turn cut multi-byte characters, JSON escapes
		// and the data: prefix at every position
		splitSizes := [...]int{1, 2, 3, 5}
		for i := 0; len(b) > 0; i++ {
			n := min(splitSizes[i%len(splitSizes)], len(b))
			if err := e.writeOnce(b[:n]); err != nil {
				return err
			}
			b = b[n:]
		}
		return nil
	}
	return e.writeOnce(b)
}

func (e *eventWriter) writeOnce(b []byte) error {
	if e.writeTimeout > 0 {
		if err := e.rc.SetWriteDeadline(time.Now().Add(e.writeTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
	}
	if _, err := e.w.Write(b); err != nil {
		return err
	}
	return e.flush()
}

func (e *eventWriter) flush() error {
	if err := e.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}
