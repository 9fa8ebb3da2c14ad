package recorder_test

import (
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/recorder"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
)

// recordingProxy serves a mock that records every run from upstream into out.
func recordingProxy(t *testing.T, cfg recorder.Config) *httptest.Server {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quiet()
	}
	rec, err := recorder.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	scfg := server.DefaultConfig()
	scfg.Recorder, scfg.RecordAll = rec, true
	return serverFor(t, scfg, scenarios.Builtin())
}

// streamingUpstream answers every request with the SSE text of stream.
func streamingUpstream(t *testing.T, stream func(w http.ResponseWriter)) *url.URL {
	t.Helper()
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		stream(w)
	}))
	t.Cleanup(upstream.Close)
	u, _ := url.Parse(upstream.URL)
	return u
}

// TestMultiLineDataIsRelayedFramed has the upstream split each event's JSON over several
// data: lines, as SSE allows: the client gets every line framed, and the recording has
// the events the lines make up together.
func TestMultiLineDataIsRelayedFramed(t *testing.T) {
	upstream := streamingUpstream(t, func(w http.ResponseWriter) {
		for _, ev := range []string{
			`{"type":"RUN_STARTED",` + "\n" + `"threadId":"t","runId":"r"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m",` + "\n" + `"role":"assistant"}`,
			`{"type":"TEXT_MESSAGE_CONTENT",` + "\n" + `"messageId":"m",` + "\n" + `"delta":"two lines"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
			`{"type":"RUN_FINISHED",` + "\n" + `"threadId":"t","runId":"r"}`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", strings.ReplaceAll(ev, "\n", "\ndata: "))
		}
	})
	out := t.TempDir()
	proxy := recordingProxy(t, recorder.Config{Upstream: upstream, OutDir: out})
	events, _ := client{t, proxy.URL}.run(`{"threadId":"t","runId":"r","messages":[{"role":"user","content":"lines"}]}`)
	if len(events) != 5 || events[2].Str("delta") != "two lines" {
		t.Fatalf("the client got %v", events)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	if len(files) != 1 {
		t.Fatalf("recordings %v", files)
	}
	replay := serverFor(t, server.DefaultConfig(), scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
	replayed, _ := client{t, replay.URL}.run(`{"threadId":"t","runId":"r","messages":[{"role":"user","content":"lines"}]}`)
	var types []string
	for _, ev := range replayed {
		types = append(types, ev.Type)
	}
	if strings.Join(types, " ") != "RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED" || replayed[2].Str("delta") != "two lines" {
		t.Errorf("the recording replays %v", replayed)
	}
}

// TestRedirectsAreNotFollowed has the upstream redirect runs and history requests to
// another server: nothing reaches it, the client gets 502 upstream_redirect naming where
// the upstream pointed, and nothing is recorded.
func TestRedirectsAreNotFollowed(t *testing.T) {
	var reached atomic.Int64
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) }))
	t.Cleanup(elsewhere.Close)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/steal"+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(upstream.Close)
	u, _ := url.Parse(upstream.URL)
	out := t.TempDir()
	mine := &http.Client{Timeout: time.Minute}
	proxy := recordingProxy(t, recorder.Config{Upstream: u, OutDir: out, Client: mine})
	if mine.CheckRedirect != nil {
		t.Error("the recorder changed the client it was given")
	}
	for _, path := range []string{"/agui/chat", server.HistoryPath} {
		req, _ := http.NewRequest("POST", proxy.URL+path, strings.NewReader(`{"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Api-Key", "key-for-the-agent-only")
		req.Header.Set("Authorization", "Bearer for-the-agent-only")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "upstream_redirect") || !strings.Contains(string(body), elsewhere.URL+"/steal"+path) {
			t.Errorf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
	if reached.Load() != 0 {
		t.Errorf("the redirect was followed %d times, with the client's headers", reached.Load())
	}
	if files := listAll(t, out); len(files) != 0 {
		t.Errorf("recorded %v", files)
	}
}

// listAll lists every file under dir, hidden ones included.
func listAll(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// endlessRun streams a run of n text deltas of the given size.
func endlessRun(n, size int) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		fmt.Fprint(w, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\n\n")
		delta := strings.Repeat("x", size)
		for range n {
			fmt.Fprintf(w, "data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":%q}\n\n", delta)
		}
		fmt.Fprint(w, "data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n")
	}
}

// TestARunPastTheRecordingLimitIsRelayedNotRecorded streams more than a recording keeps,
// by count and by size: the client gets the whole run, one log line says which limit it
// passed, and nothing is written.
func TestARunPastTheRecordingLimitIsRelayedNotRecorded(t *testing.T) {
	tests := []struct {
		name      string
		maxEvents int
		maxBytes  int64
		limit     string
	}{
		{"events", 500, 0, "limit=\"500 events\""},
		{"bytes", 0, 64 << 10, "limit=\"65536 bytes of events (-record-max-bytes)\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const deltas = 2000
			upstream := streamingUpstream(t, endlessRun(deltas, 100))
			out := t.TempDir()
			log := make(lines, 64)
			proxy := recordingProxy(t, recorder.Config{Upstream: upstream, OutDir: out, MaxEvents: tt.maxEvents, MaxBytes: tt.maxBytes,
				Logger: slog.New(slog.NewTextHandler(log, nil)), Progress: log})
			events, _ := client{t, proxy.URL}.run(`{"threadId":"t","runId":"r","messages":[{"role":"user","content":"endless"}]}`)
			if len(events) != deltas+4 || events[len(events)-1].Type != "RUN_FINISHED" {
				t.Errorf("the client got %d events, ending with %v", len(events), events[len(events)-1])
			}
			close(log)
			var said []string
			for line := range log {
				said = append(said, line)
			}
			if len(said) != 1 || !strings.Contains(said[0], "not recording a run past the recording limit") || !strings.Contains(said[0], tt.limit) || !strings.Contains(said[0], "thread=t run=r") {
				t.Errorf("the log says:\n%s", strings.Join(said, "\n"))
			}
			if files := listAll(t, out); len(files) != 0 {
				t.Errorf("written %v", files)
			}
		})
	}
}
