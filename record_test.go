package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
)

// TestServeRecordsWhatNoScenarioAnswers runs the command with -record-missing against a
// real upstream: a miss is recorded from it, and the same request then replays the
// recording without reaching the upstream.
func TestServeRecordsWhatNoScenarioAnswers(t *testing.T) {
	set, err := scenarios.Load(scenarios.Builtin())
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	agent := server.New(cfg, set).Handler()
	var hits atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		agent.ServeHTTP(w, r)
	}))
	defer upstream.Close()

	own, recorded := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(own, "mine.yaml"), scenarioFile("own"))
	url := start(t, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", own, "--scenarios", recorded,
		"--record-missing", "--upstream", upstream.URL, "--record-dir", recorded, "--poll-interval", "1h"}, nil)

	if got := ask(t, url, "alpha"); got != "served-own" || hits.Load() != 0 {
		t.Fatalf("a scenario's request got %q with %d upstream hits", got, hits.Load())
	}
	first := ask(t, url, "showcase")
	if hits.Load() != 1 || !strings.Contains(first, "Here is what I found") {
		t.Fatalf("the miss was not proxied: %q, %d hits", first, hits.Load())
	}
	files, _ := filepath.Glob(filepath.Join(recorded, "*.yaml"))
	if len(files) != 1 {
		t.Fatalf("recordings %v", files)
	}
	eventually(t, "the recording is loaded", func() bool { return status(t, url).Scenarios == 2 })
	before := hits.Load()
	if got := ask(t, url, "showcase"); !strings.Contains(got, "Here is what I found") || hits.Load() != before {
		t.Errorf("the replay got %q and reached the upstream %d more times", got, hits.Load()-before)
	}
	if data, _ := os.ReadFile(files[0]); !strings.Contains(string(data), "delay:") {
		t.Errorf("the recording has no timing:\n%s", data)
	}
}

func TestRecordNeedsAnUpstream(t *testing.T) {
	var stderr strings.Builder
	if code := run(t.Context(), []string{"record"}, env(nil), &strings.Builder{}, &stderr); code != 1 || !strings.Contains(stderr.String(), "recording needs -upstream") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	stderr.Reset()
	if code := run(t.Context(), []string{"serve", "--upstream", "http://x"}, env(nil), &strings.Builder{}, &stderr); code != 1 || !strings.Contains(stderr.String(), "-upstream is for recording") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
}
