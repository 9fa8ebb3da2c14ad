// Package sse writes Server-Sent Events responses: the headers every event stream of the
// mock carries, whether it plays a scenario or relays a recorded agent, and the frames,
// flushed when the caller says.
package sse

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Writer writes an SSE response. What is written waits in the response's buffer until
// Flush. The zero Writer is not usable: make one with NewWriter.
type Writer struct {
	w            http.ResponseWriter
	rc           http.ResponseController // a value, so that a Writer kept in its caller's state costs no allocation
	writeTimeout time.Duration
	deadline     time.Time
	headersSent  bool // flushed once: net/http has written the headers
}

// NewWriter returns a writer of an SSE response to w. With a writeTimeout, every write
// has at least half of it to complete; with none, writes have no deadline. It returns a
// Writer, not a pointer, so that callers can keep it inside their own writer without
// another allocation.
func NewWriter(w http.ResponseWriter, writeTimeout time.Duration) Writer {
	return Writer{w: w, rc: *http.NewResponseController(w), writeTimeout: writeTimeout}
}

// Begin sets the stream's headers, with its contentType (that of SSE, or of another
// transport of events), its status, 200, and Connection: keep-alive unless the caller
// has set Connection. The headers wait for the first Flush: they go out with the first
// frames, or alone if Flush comes first.
func (w *Writer) Begin(contentType string) {
	h := w.w.Header()
	// The values share one array, as http.Header.Clone does: one allocation, not four.
	values := []string{contentType, "no-cache", "no", "keep-alive"}
	h["Content-Type"], h["Cache-Control"] = values[0:1:1], values[1:2:2]
	h["X-Accel-Buffering"] = values[2:3:3] // nginx and similar proxies: do not buffer
	if h.Get("Connection") == "" {         // a stream that will be taken over (Conn) says close
		h["Connection"] = values[3:4:4] // net/http replaces it with close when it closes the connection
	}
	w.w.WriteHeader(http.StatusOK)
}

// Header returns the response's header, to add to before Begin.
func (w *Writer) Header() http.Header { return w.w.Header() }

// Write writes b, one or more whole or partial frames, to the response's buffer.
func (w *Writer) Write(b []byte) (int, error) {
	// The deadline is renewed when less than half of it is left, not before every write:
	// each write has at least half the timeout, and most cost no timer update.
	if w.writeTimeout > 0 {
		if now := time.Now(); w.deadline.Sub(now) < w.writeTimeout/2 {
			w.deadline = now.Add(w.writeTimeout)
			if err := w.rc.SetWriteDeadline(w.deadline); err != nil && !errors.Is(err, http.ErrNotSupported) {
				return 0, fmt.Errorf("setting the write deadline: %w", err)
			}
		}
	}
	return w.w.Write(b)
}

// Flush sends what was written since the last flush; a response that cannot flush
// sends it when the handler returns. The first flush, in which net/http writes the
// headers, runs on a goroutine of its own: writing them takes 4 KiB of stack, and on a
// stream's goroutine, already deep in the middleware, that would double the goroutine's
// stack to 16 KiB for as long as the stream stays open.
func (w *Writer) Flush() error {
	if !w.headersSent {
		w.headersSent = true
		done := make(chan error, 1)
		go func() { done <- w.flush() }()
		return <-done
	}
	return w.flush()
}

func (w *Writer) flush() error {
	if err := w.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}
