package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"go.uber.org/goleak"

	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// TestMain checks that no test leaves a goroutine behind. The parallel tests wait on
// timers and sockets, so more of them run at once than there are CPUs.
func TestMain(m *testing.M) {
	testkit.WaitersInParallel(8)
	goleak.VerifyTestMain(m)
}

// newServer serves the given scenario file (or the built-in set when yaml is empty).
func newServer(t testing.TB, yaml string, configure func(*Config)) *Server {
	t.Helper()
	src := source(yaml)
	set, err := scenarios.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Seed = 1
	cfg.Sources = []scenarios.Source{src}
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.AllowedHosts = []string{"example.com"} // the host of httptest.NewRequest's requests
	if configure != nil {
		configure(&cfg)
	}
	return New(cfg, set)
}

func source(yaml string) scenarios.Source {
	if yaml == "" {
		return scenarios.Builtin()
	}
	return scenarios.Source{FS: fstest.MapFS{"d/test.yaml": {Data: []byte(yaml)}}, Root: "d", Label: "d"}
}

// newServerErr reports why a scenario file does not load.
func newServerErr(yaml string) (*scenarios.Set, error) { return scenarios.Load(source(yaml)) }

// write is one Write call on a recorded stream and when it happened.
type write struct {
	at   time.Duration
	data string
}

// streamRecorder is a flushable ResponseWriter that notes when each write happens.
// streamRecorder records a response as its client would see it: what is written reaches
// the client when flushed, or when the handler returns.
type streamRecorder struct {
	mu      sync.Mutex
	start   time.Time
	header  http.Header
	status  int
	pending strings.Builder
	writes  []write // one per flush that carried data
}

func newRecorder() *streamRecorder { return &streamRecorder{start: time.Now(), header: http.Header{}} }

func (r *streamRecorder) Header() http.Header { return r.header }
func (r *streamRecorder) WriteHeader(code int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status == 0 {
		r.status = code
	}
}
func (r *streamRecorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending.Write(b)
	return len(b), nil
}
func (r *streamRecorder) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending.Len() > 0 {
		r.writes = append(r.writes, write{at: time.Since(r.start), data: r.pending.String()})
		r.pending.Reset()
	}
}

func (r *streamRecorder) body() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, w := range r.writes {
		b.WriteString(w.data)
	}
	return b.String()
}

// events decodes the recorded stream.
func (r *streamRecorder) events(t testing.TB) []protocol.Event {
	t.Helper()
	events, err := protocol.ReadEvents(strings.NewReader(r.body()), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// post sends a run request straight to the handler and returns when the handler does.
func post(ctx context.Context, s *Server, route, body string, header map[string]string) *streamRecorder {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, route, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := newRecorder()
	s.Handler().ServeHTTP(rec, req)
	rec.Flush() // the end of the response
	return rec
}

func types(events []protocol.Event) []string {
	out := make([]string, len(events))
	for i, ev := range events {
		out[i] = ev.Type
	}
	return out
}
