package testkit

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// Agent serves a fake AG-UI agent until the test ends and returns its base URL. It
// answers every request with answer, which writes the run's stream: an SSE stream
// (Content-Type: text/event-stream) unless answer sets another header or fails the
// request.
func Agent(t testing.TB, answer func(s *Stream, run *Run)) *url.URL {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		answer(&Stream{w: w}, &Run{Request: r, Body: body})
	}))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatalf("the fake agent's URL %q: %v", srv.URL, err)
	}
	return u
}

// Run is a request the fake agent answers.
type Run struct {
	Request *http.Request
	Body    []byte // read whole
}

// Decode decodes the request's JSON body into v: a map, or a struct of the members the
// agent reads.
func (r *Run) Decode(v any) error {
	if err := json.Unmarshal(r.Body, v); err != nil {
		return fmt.Errorf("decoding the run input: %w", err)
	}
	return nil
}

// Stream is the fake agent's answer to a run. Every write is flushed at once, so the
// client sees each event as it is written.
type Stream struct {
	w http.ResponseWriter
}

// Header is the answer's header, to change before the first write.
func (s *Stream) Header() http.Header { return s.w.Header() }

// Fail answers the run with status and message, as text, instead of a stream.
func (s *Stream) Fail(status int, message string) { http.Error(s.w, message, status) }

// Event writes ev, any value that marshals to JSON (a map, a protocol.Event), as one
// data: frame.
func (s *Stream) Event(ev any) {
	data, err := json.Marshal(ev)
	if err != nil {
		panic(fmt.Sprintf("the fake agent's event %v: %v", ev, err)) // a test's own mistake
	}
	s.Raw("data: " + string(data) + "\n\n")
}

// Raw writes text as it is: frames of the test's own making (data split over lines,
// malformed JSON, a stream cut short), or a body of another content type.
func (s *Stream) Raw(text string) { s.Write([]byte(text)) }

// Write writes p as it is, as Raw does; it makes the stream an io.Writer.
func (s *Stream) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	s.w.(http.Flusher).Flush()
	return n, err
}
