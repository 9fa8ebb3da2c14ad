package cmd

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
)

// TestServeRecordsWhatNoScenarioAnswers runs the command with -record-missing against a
// real upstream: a miss is recorded from it, and the same request then replays the
// recording without reaching the upstream.
func TestServeRecordsWhatNoScenarioAnswers(t *testing.T) {
	t.Parallel()
	upstream, hits := countingAgent(t)
	own, recorded := t.TempDir(), t.TempDir()
	testkit.WriteFile(t, filepath.Join(own, "mine.yaml"), scenarioFile("own"))
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
	testkit.Eventually(t, "the recording is loaded", func() bool { return status(t, url).Scenarios == 2 })
	before := hits.Load()
	if got := ask(t, url, "showcase"); !strings.Contains(got, "Here is what I found") || hits.Load() != before {
		t.Errorf("the replay got %q and reached the upstream %d more times", got, hits.Load()-before)
	}
	if data, _ := os.ReadFile(files[0]); !strings.Contains(string(data), "delay:") {
		t.Errorf("the recording has no timing:\n%s", data)
	}
}

// countingAgent is a real AG-UI agent serving the built-in scenarios, and the number of
// requests it has had. It plays them at a tenth of their time: still paced, so that what
// is recorded from it has delays to keep.
func countingAgent(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	agent := builtinAgent(t, 0.1)
	hits := new(atomic.Int64)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		agent.ServeHTTP(w, r)
	}))
	t.Cleanup(upstream.Close)
	return upstream, hits
}

// builtinAgent is a real AG-UI agent: agui-mock serving its built-in scenarios at the
// speed.
func builtinAgent(t *testing.T, speed float64) http.Handler {
	t.Helper()
	set, err := scenarios.Load(scenarios.Builtin())
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.Speed = speed
	return server.New(cfg, set).Handler()
}

// listedIDs returns the ids GET /_mock/scenarios lists.
func listedIDs(t *testing.T, url string) []string {
	t.Helper()
	resp, err := http.Get(url + "/_mock/scenarios")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Scenarios []struct {
			ID string `json:"id"`
		} `json:"scenarios"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(list.Scenarios))
	for i, sc := range list.Scenarios {
		ids[i] = sc.ID
	}
	return ids
}

// TestRecordingsReplayFromARecordDirOfTheirOwn serves -record-missing with a record
// directory outside every scenario directory: it is served and watched too, so the
// second identical request replays the recording without reaching the upstream.
func TestRecordingsReplayFromARecordDirOfTheirOwn(t *testing.T) {
	t.Parallel()
	upstream, hits := countingAgent(t)
	own := t.TempDir()
	recorded := filepath.Join(t.TempDir(), "not-yet-there")
	testkit.WriteFile(t, filepath.Join(own, "mine.yaml"), scenarioFile("own"))
	url := start(t, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", own,
		"--record-missing", "--upstream", upstream.URL, "--record-dir", recorded, "--poll-interval", "1h"}, nil)

	first := ask(t, url, "showcase")
	if hits.Load() != 1 || !strings.Contains(first, "Here is what I found") {
		t.Fatalf("the miss was not proxied: %q, %d hits", first, hits.Load())
	}
	testkit.Eventually(t, "the recording is loaded", func() bool { return status(t, url).Scenarios == 2 })
	if ids := listedIDs(t, url); len(ids) != 2 || !slices.ContainsFunc(ids, func(id string) bool { return strings.HasPrefix(id, "rec-showcase-") }) {
		t.Errorf("/_mock/scenarios lists %v", ids)
	}
	if got := ask(t, url, "showcase"); !strings.Contains(got, "Here is what I found") || hits.Load() != 1 {
		t.Errorf("the replay got %q and reached the upstream %d more times", got, hits.Load()-1)
	}
}

// TestRecordMissingLeavesTheBuiltinScenariosOut serves -record-missing without
// -no-builtin: the user's scenarios answer their requests, and what they do not answer
// is recorded from the agent — also a request a built-in scenario would answer (a Dojo
// route, the showcase) — and then replayed.
func TestRecordMissingLeavesTheBuiltinScenariosOut(t *testing.T) {
	t.Parallel()
	upstream, hits := countingAgent(t)
	own, recorded := t.TempDir(), t.TempDir()
	testkit.WriteFile(t, filepath.Join(own, "mine.yaml"), scenarioFile("own"))
	url := start(t, []string{"--addr", "127.0.0.1:0", "--scenarios", own,
		"--record-missing", "--upstream", upstream.URL, "--record-dir", recorded, "--poll-interval", "1h"}, nil)

	if got := ask(t, url, "alpha"); got != "served-own" {
		t.Fatalf("the own scenario's request got %q", got)
	}
	if ids := listedIDs(t, url); slices.ContainsFunc(ids, func(id string) bool { return id == scenarios.CatchAllID || strings.HasPrefix(id, "dojo-") }) {
		t.Errorf("built-in scenarios are served: %v", ids)
	}
	before := status(t, url).Scenarios
	first := ask(t, url, "showcase")
	if hits.Load() != 1 || first == "" {
		t.Fatalf("the request a built-in scenario answers was not recorded from the upstream: %q, %d hits", first, hits.Load())
	}
	testkit.Eventually(t, "the recording is loaded", func() bool { return status(t, url).Scenarios == before+1 })
	if got := ask(t, url, "showcase"); got != first || hits.Load() != 1 {
		t.Errorf("the replay got %q (recorded %q) and reached the upstream %d more times", got, first, hits.Load()-1)
	}
}

// TestRecordingsWithoutDedupeValidateAndServe records the same request twice with
// -dedupe=false: each session keeps a file and an id of its own, and the directory
// validates and serves, replaying the first recording.
func TestRecordingsWithoutDedupeValidateAndServe(t *testing.T) {
	t.Parallel()
	upstream, _ := countingAgent(t)
	recorded := t.TempDir()
	proxy := start(t, []string{"record", "--addr", "127.0.0.1:0", "--upstream", upstream.URL, "--record-dir", recorded, "--dedupe=false"}, nil)
	first := ask(t, proxy, "tell me about whales")
	if second := ask(t, proxy, "tell me about whales"); second == first {
		t.Fatalf("the upstream answered the same twice: %q", first)
	}
	files, _ := filepath.Glob(filepath.Join(recorded, "*.yaml"))
	if len(files) != 2 {
		t.Fatalf("recordings %v, want one per session", files)
	}
	var stdout, stderr strings.Builder
	if code := run(t.Context(), []string{"validate", recorded}, env(nil), &stdout, &stderr); code != 0 {
		t.Fatalf("validate exits %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	url := start(t, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", recorded, "--watch", "off"}, nil)
	if ids := listedIDs(t, url); len(ids) != 2 || ids[0] == ids[1] {
		t.Errorf("served ids %v", ids)
	}
	if got := ask(t, url, "tell me about whales"); got != first {
		t.Errorf("the replay got %q, want the first recording's %q", got, first)
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
