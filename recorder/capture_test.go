package recorder

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

func TestACapturePastItsBoundsKeepsNothing(t *testing.T) {
	ev := capturedEvent{event: protocol.NewEvent(protocol.TextMessageContent, "messageId", "m", "delta", "x")}
	for _, tt := range []struct {
		name      string
		maxEvents int
		maxBytes  int64
		passedAt  int
	}{
		{"events", 3, 1000, 4},
		{"bytes", 1000, 25, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := capture{maxEvents: tt.maxEvents, maxBytes: tt.maxBytes}
			for n := 1; n <= 10; n++ {
				if passed := c.add(ev, 10); passed != (n == tt.passedAt) {
					t.Fatalf("event %d: passed %v", n, passed)
				}
				if n < tt.passedAt && len(c.events) != n {
					t.Fatalf("event %d: %d kept", n, len(c.events))
				}
				if n >= tt.passedAt && (c.events != nil || c.passed == "") {
					t.Fatalf("event %d: %d kept past the bound (%q)", n, len(c.events), c.passed)
				}
			}
			if c.count != 10 || c.bytes != 100 {
				t.Errorf("counted %d events, %d bytes", c.count, c.bytes)
			}
		})
	}
}

// stream is an upstream that streams a run of n text deltas of size bytes each, made up
// as it is read, and measures the live heap after its first tenth and at its end.
type stream struct {
	n, size, sent   int
	pending         []byte
	early, atTheEnd uint64
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func (s *stream) Read(p []byte) (int, error) {
	if len(s.pending) == 0 {
		switch {
		case s.sent == 0:
			s.pending = []byte("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\n\n")
		case s.sent <= s.n:
			if s.sent == s.n/10 {
				s.early = liveHeap()
			}
			s.pending = fmt.Appendf(nil, "data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"%s\"}\n\n", strings.Repeat("x", s.size))
		case s.sent == s.n+1:
			s.atTheEnd = liveHeap()
			s.pending = []byte("data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n")
		default:
			return 0, io.EOF
		}
		s.sent++
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// discard is a client that takes every event and keeps none.
type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(p []byte) (int, error) { return len(p), nil }
func (d discard) WriteHeader(int)             {}
func (d discard) Flush()                      {}

// TestMemoryStaysFlatPastTheRecordingLimit relays a run of 16 MB, far past the recording
// limit: the live heap at its end is about what it was early on.
func TestMemoryStaysFlatPastTheRecordingLimit(t *testing.T) {
	u, _ := url.Parse("http://agent.test")
	r, err := New(Config{Upstream: u, OutDir: t.TempDir(), MaxEvents: 100, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	upstream := &stream{n: 4000, size: 4 << 10}
	kept := &capture{maxEvents: r.cfg.MaxEvents, maxBytes: r.cfg.MaxBytes}
	if problem := r.relay(t.Context(), discard{http.Header{}}, newUpstreamFrames("text/event-stream", upstream, r.cfg.MaxFrame), time.Now(), &protocol.RunAgentInput{ThreadID: "t", RunID: "r"}, kept); problem != "" {
		t.Fatal(problem)
	}
	if kept.passed == "" || kept.events != nil || kept.count != upstream.n+4 {
		t.Fatalf("passed %q with %d events kept of %d", kept.passed, len(kept.events), kept.count)
	}
	if grown := int64(upstream.atTheEnd) - int64(upstream.early); grown > 4<<20 {
		t.Errorf("the live heap grew by %d bytes while relaying %d bytes of events past the limit of 100 events", grown, kept.bytes)
	}
}
