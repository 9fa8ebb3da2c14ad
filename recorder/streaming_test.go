package recorder_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// streaming serves a client's requests with a handler, without a network, so that a test
// can run on a fake clock: the handler runs on a goroutine of its own and its body streams
// to the client as it is written, as over a connection, so a client sees each event when
// it is sent, not all of them once the run is over. The request's context, or closing the
// response body, cancels the handler's.
type streaming struct{ h http.Handler }

func (s streaming) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(r.Context())
	body, pw := io.Pipe()
	w := &pipeResponse{header: http.Header{}, body: pw, ready: make(chan struct{})}
	go func() {
		defer cancel()
		s.h.ServeHTTP(w, r.WithContext(ctx))
		w.WriteHeader(http.StatusOK) // a handler that wrote nothing answers 200, empty
		pw.Close()
		if r.Body != nil {
			r.Body.Close()
		}
	}()
	select {
	case <-w.ready:
	case <-r.Context().Done():
		body.Close() // a write the handler is blocked in fails
		return nil, r.Context().Err()
	}
	return &http.Response{
		Status: http.StatusText(w.status), StatusCode: w.status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: w.sent, Body: cancellingBody{body, cancel}, ContentLength: -1, Request: r,
	}, nil
}

// cancellingBody is a streamed response body; closing it cancels the handler, as a
// closed connection would.
type cancellingBody struct {
	*io.PipeReader
	cancel context.CancelFunc
}

func (b cancellingBody) Close() error {
	b.cancel()
	return b.PipeReader.Close()
}

// pipeResponse is the ResponseWriter of a handler that streaming serves: its body goes
// into a pipe as it is written, and its status and headers go to the client when the
// handler writes the header, its first bytes or its first flush.
type pipeResponse struct {
	header http.Header
	body   *io.PipeWriter
	status int
	sent   http.Header   // the headers as they were when the status was written
	ready  chan struct{} // closed once status and sent are set
}

func (w *pipeResponse) Header() http.Header { return w.header }

func (w *pipeResponse) WriteHeader(status int) {
	if w.status != 0 {
		return
	}
	w.status, w.sent = status, w.header.Clone()
	close(w.ready)
}

func (w *pipeResponse) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

// Flush has nothing to do beyond sending the headers: every Write reaches the client.
func (w *pipeResponse) Flush() { w.WriteHeader(http.StatusOK) }

// timedResponse is the ResponseWriter of a client that notes, on the clock, how long
// after start each SSE frame (ending in a blank line) is written to it.
type timedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
	start  time.Time
	at     []time.Duration
}

func (w *timedResponse) Header() http.Header { return w.header }

func (w *timedResponse) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *timedResponse) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	n, _ := w.body.Write(b)
	for frames := bytes.Count(w.body.Bytes(), []byte("\n\n")); len(w.at) < frames; {
		w.at = append(w.at, time.Since(w.start))
	}
	return n, nil
}

func (w *timedResponse) Flush() {}

// timedRun runs one request through a handler and returns its events and how long
// after the request each was written.
func timedRun(t *testing.T, h http.Handler, body string) ([]protocol.Event, []time.Duration) {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), "POST", "http://localhost/agui/chat", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	w := &timedResponse{header: http.Header{}, start: time.Now()}
	h.ServeHTTP(w, req)
	if w.status != http.StatusOK {
		t.Fatalf("status %d: %s", w.status, w.body.String())
	}
	events := decodeStream(t, w.body.String())
	if len(events) != len(w.at) {
		t.Fatalf("%d events in %d frames: %s", len(events), len(w.at), w.body.String())
	}
	return events, w.at
}

// decodeStream decodes the events of an SSE stream.
func decodeStream(t *testing.T, stream string) []protocol.Event {
	t.Helper()
	var events []protocol.Event
	frames := protocol.NewFrameReader(strings.NewReader(stream), 1<<20)
	for f, err := frames.Next(); err == nil; f, err = frames.Next() {
		ev, err := protocol.DecodeEvent([]byte(f.Data))
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, ev)
	}
	return events
}
