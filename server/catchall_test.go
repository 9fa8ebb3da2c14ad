package server

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	return newServerWithOwnFiles(t, log, ownScenarios)
}

// newServerWithOwnFiles is newServerWithOwn with scenarios of the developer's own given.
func newServerWithOwnFiles(t *testing.T, log *bytes.Buffer, own string) *Server {
	t.Helper()
	src := scenarios.Source{FS: fstest.MapFS{"d/own.yaml": {Data: []byte(own)}}, Root: "d", Label: "d"}
	s := newServer(t, "", func(c *Config) {
		c.Speed = 0
		c.Sources = []scenarios.Source{src, scenarios.Builtin()}
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
	warning := builtinWarning(&log)
	if warning.Msg != builtinAnswered || warning.Scenario != scenarios.CatchAllID ||
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

// builtinLine is what a test reads of the warning a run answered by a built-in
// scenario logs.
type builtinLine struct{ Level, Msg, Scenario, Nearest, Route string }

// builtinWarning returns the first warning of a JSON log, or a zero line.
func builtinWarning(log *bytes.Buffer) builtinLine {
	for line := range strings.Lines(log.String()) {
		var l builtinLine
		if err := json.Unmarshal([]byte(line), &l); err == nil && l.Level == "WARN" {
			return l
		}
	}
	return builtinLine{}
}

// recordedFile is a scenario as agui-mock record writes one: the request's message
// exactly, and its forwardedProps.scenario_name.
const recordedFile = `
id: rec-search-for-ocean-wave-videos-269328ce
match:
  message: ^Search for ocean wave videos$
  forwardedProps: {scenario_name: video-mixcut}
events:
  - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
  - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
`

// TestABuiltInAnsweringWhatARecordingMissesIsTold: replaying a recorded directory, a
// request the recording does not answer is played by the built-in video-mixcut-search;
// the warning names it and the recording with why it missed, the header and the journal
// entry carry the same. The request the recording answers is told nothing.
func TestABuiltInAnsweringWhatARecordingMissesIsTold(t *testing.T) {
	var log bytes.Buffer
	recorded := scenarios.Source{FS: fstest.MapFS{"rec/ocean.yaml": {Data: []byte(recordedFile)}}, Root: "rec", Label: "rec"}
	s := newServer(t, "", func(c *Config) {
		c.Speed = 0
		c.Sources = []scenarios.Source{recorded, scenarios.Builtin()}
		c.Logger = slog.New(slog.NewJSONHandler(&log, nil))
	})
	if err := s.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	const run = `{"threadId":"t1","runId":"r1","forwardedProps":{"scenario_name":"video-mixcut"},"messages":[{"role":"user","content":%q}]}`
	rec := post(t.Context(), s, "/agui/chat", fmt.Sprintf(run, "Search for ocean wave videos"), nil)
	if got := rec.Header().Get(NearMissesHeader); got != "" || builtinWarning(&log).Level != "" {
		t.Errorf("the recording answered, yet %s: %q, log:\n%s", NearMissesHeader, got, log.String())
	}
	rec = post(t.Context(), s, "/agui/chat", strings.Replace(fmt.Sprintf(run, "Search for mountain videos"), `"t1"`, `"t2"`, 1), nil)
	if got := rec.Header().Get(NearMissesHeader); got != "rec-search-for-ocean-wave-videos-269328ce" {
		t.Errorf("%s: %q, want the recording", NearMissesHeader, got)
	}
	warning := builtinWarning(&log)
	if warning.Msg != builtinAnswered || warning.Scenario != "video-mixcut-search" || warning.Route != "/agui/chat" ||
		!strings.HasPrefix(warning.Nearest, "rec-search-for-ocean-wave-videos-269328ce (rec/ocean.yaml:2:1): message ") ||
		!strings.Contains(warning.Nearest, "Search for mountain videos") {
		t.Errorf("no warning naming video-mixcut-search and the recording's message:\n%s", log.String())
	}
	entries := journaledEntries(t, s)
	if len(entries) != 2 || entries[0].NearMisses != nil || entries[1].Scenario != "video-mixcut-search" {
		t.Fatalf("journal: %+v", entries)
	}
	if misses := entries[1].NearMisses; len(misses) != 1 || misses[0].ID != "rec-search-for-ocean-wave-videos-269328ce" ||
		misses[0].Source != "rec/ocean.yaml:2:1" || len(misses[0].Reasons) != 1 {
		t.Errorf("the journal entry's near misses: %+v", misses)
	}
}

// TestADojoRouteIsTheBuiltinsToAnswer: a run posted to a Dojo route, which a built-in
// scenario names and none of the developer's does, is the built-in scenarios' to answer,
// whatever the developer's own (which match any route, but not its message): nothing is
// told. Once one of theirs names the route, a miss of theirs there is told.
func TestADojoRouteIsTheBuiltinsToAnswer(t *testing.T) {
	var log bytes.Buffer
	s := newServerWithOwn(t, &log)
	rec := post(t.Context(), s, "/agentic_chat", `{"threadId":"t1","runId":"r1","messages":[{"role":"user","content":"hello there"}]}`, nil)
	if got := rec.Header().Get(NearMissesHeader); got != "" {
		t.Errorf("%s: %s", NearMissesHeader, got)
	}
	if strings.Contains(log.String(), "a built-in scenario answered") {
		t.Errorf("a Dojo run is warned of:\n%s", log.String())
	}

	log.Reset()
	s = newServerWithOwnFiles(t, &log, "id: dojo-orders\nmatch: {route: /agentic_chat, message: ^orders$}\nsteps: [{text: Orders.}]\n")
	rec = post(t.Context(), s, "/agentic_chat", `{"threadId":"t1","runId":"r1","messages":[{"role":"user","content":"hello there"}]}`, nil)
	if got := rec.Header().Get(NearMissesHeader); got == "" {
		t.Errorf("no %s once a scenario of theirs names the route", NearMissesHeader)
	}
	if w := builtinWarning(&log); w.Scenario != "dojo-agentic_chat" || !strings.Contains(w.Nearest, `dojo-orders`) {
		t.Errorf("warning %+v, want dojo-agentic_chat and dojo-orders:\n%s", w, log.String())
	}
}
