package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agui-mock/agui-mock/scenarios"
)

// ownScenarios is a developer's file beside the built-in set: a scenario that needs a
// tool the page may not offer, and one for another topic.
const ownScenarios = `
id: book-flight
match: {message: '(?i)book', tools: [bookFlight]}
steps: [{tool: {name: bookFlight, args: {}}}]
---
id: order-status
match: {message: '(?i)order'}
steps: [{text: shipped}]
`

func newServerWithOwn(t *testing.T, log *bytes.Buffer) *Server {
	t.Helper()
	own := scenarios.Source{FS: fstest.MapFS{"d/own.yaml": {Data: []byte(ownScenarios)}}, Root: "d", Label: "d"}
	s := newServer(t, "", func(c *Config) {
		c.Speed = 0
		c.Sources = []scenarios.Source{own, scenarios.Builtin()}
		c.Logger = slog.New(slog.NewJSONHandler(log, nil))
	})
	if err := s.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	log.Reset() // what loading logged
	return s
}

// TestCatchAllSaysWhyNoScenarioOfYoursMatched: the page did not offer the tool the
// developer's scenario needs, so the catch-all answers; the header, a warning and the
// journal entry name the nearest scenario of theirs and why it missed.
func TestCatchAllSaysWhyNoScenarioOfYoursMatched(t *testing.T) {
	var log bytes.Buffer
	s := newServerWithOwn(t, &log)
	rec := post(t.Context(), s, "/agui/chat", `{"threadId":"t1","runId":"r1","messages":[{"role":"user","content":"please book a flight"}]}`, nil)
	if !strings.Contains(rec.body(), "RUN_FINISHED") {
		t.Fatalf("the catch-all did not answer:\n%s", rec.body())
	}
	if got := rec.Header().Get(NearMissesHeader); !strings.HasPrefix(got, "book-flight") {
		t.Errorf("%s: %q, want book-flight first", NearMissesHeader, got)
	}
	var warning struct{ Level, Msg, Nearest string }
	for line := range strings.Lines(log.String()) {
		if err := json.Unmarshal([]byte(line), &warning); err == nil && warning.Level == "WARN" {
			break
		}
		warning.Level = ""
	}
	if warning.Level != "WARN" || !strings.Contains(warning.Msg, "catch-all") ||
		!strings.Contains(warning.Nearest, "book-flight (d/own.yaml:2:1)") || !strings.Contains(warning.Nearest, "bookFlight") {
		t.Errorf("no warning naming book-flight and its missing tool:\n%s", log.String())
	}
	entries := journaledEntries(t, s)
	if len(entries) != 1 || entries[0].Scenario != scenarios.CatchAllID {
		t.Fatalf("journal: %+v", entries)
	}
	misses := entries[0].NearMisses
	if len(misses) != 2 || misses[0].ID != "book-flight" || len(misses[0].Reasons) != 1 || !strings.Contains(misses[0].Reasons[0], "bookFlight") {
		t.Errorf("the journal entry's near misses: %+v", misses)
	}
}

// TestNoNearMissesWhenYourScenarioAnswersOrYouHaveNone: only the catch-all answering
// over scenarios of the developer's own is explained.
func TestNoNearMissesWhenYourScenarioAnswersOrYouHaveNone(t *testing.T) {
	var log bytes.Buffer
	s := newServerWithOwn(t, &log)
	rec := post(t.Context(), s, "/agui/chat", `{"threadId":"t1","runId":"r1","messages":[{"role":"user","content":"where is my order"}]}`, nil)
	if got := rec.Header().Get(NearMissesHeader); got != "" || strings.Contains(log.String(), "WARN") {
		t.Errorf("order-status answered, yet %s: %q, log:\n%s", NearMissesHeader, got, log.String())
	}
	builtinOnly := newServer(t, "", func(c *Config) { c.Speed = 0 })
	rec = post(t.Context(), builtinOnly, "/agui/chat", `{"threadId":"t1","runId":"r1","messages":[{"role":"user","content":"zzz"}]}`, nil)
	if got := rec.Header().Get(NearMissesHeader); got != "" {
		t.Errorf("with the built-in set alone, %s: %q", NearMissesHeader, got)
	}
	if e := journaledEntries(t, builtinOnly); len(e) != 1 || e[0].Scenario != scenarios.CatchAllID || e[0].NearMisses != nil {
		t.Errorf("journal: %+v", e)
	}
}
