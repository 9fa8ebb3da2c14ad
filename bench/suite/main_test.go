package main

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
)

// writeSuite writes a suite of n files and its aimock fixtures, and loads the files as
// the server does.
func writeSuite(t *testing.T, n int) (string, *scenarios.Set, []aimockFixture) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "suite")
	fixtures := filepath.Join(t.TempDir(), "aimock.json")
	if err := run(n, dir, 44, 45, fixtures); err != nil {
		t.Fatal(err)
	}
	set, err := scenarios.Load(scenarios.Source{FS: os.DirFS(dir), Root: ".", Label: dir})
	if err != nil {
		t.Fatalf("the suite does not load: %v", err)
	}
	data, err := os.ReadFile(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	var list []aimockFixture
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != n {
		t.Fatalf("%d aimock fixtures for %d files", len(list), n)
	}
	return dir, set, list
}

// TestSuiteLoadsWithTheLastFileTriedLast: every example selects its own scenario (the
// load checks it), 45 % of the files are recordings, and the last file's scenario is
// the one agui-mock tries last.
func TestSuiteLoadsWithTheLastFileTriedLast(t *testing.T) {
	const n = 400
	dir, set, _ := writeSuite(t, n)
	loaded := set.Scenarios()
	if len(loaded) != n {
		t.Fatalf("%d scenarios loaded from %d files", len(loaded), n)
	}
	recorded := 0
	for _, sc := range loaded {
		if strings.HasPrefix(sc.ID, "rec-") {
			recorded++
		}
	}
	if recorded != n*45/100 {
		t.Errorf("%d recordings among %d files, want %d", recorded, n, n*45/100)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	lastFile := entries[len(entries)-1].Name()
	if got := filepath.Base(loaded[len(loaded)-1].Source.File); got != lastFile {
		t.Errorf("the scenario tried last is %s's, want the last file's, %s", got, lastFile)
	}
}

// TestSuiteIsTheSameForTheSameSeed: the same seed writes the same files, another seed
// others.
func TestSuiteIsTheSameForTheSameSeed(t *testing.T) {
	a, b, c := generate(60, 7, 45), generate(60, 7, 45), generate(60, 8, 45)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed wrote different suites")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("another seed wrote the same suite")
	}
}

// TestAimockFixturesAreTheScenarios: aimock, trying its fixtures in order, answers each
// example with that example's fixture (so that the last example is tried against every
// fixture), and streams the events agui-mock streams for it: the same types, text, tool
// calls and results.
func TestAimockFixturesAreTheScenarios(t *testing.T) {
	const n = 120
	_, set, list := writeSuite(t, n)
	patterns := make([]*regexp.Regexp, n)
	for i, f := range list {
		flags := ""
		if f.Flags != "" {
			flags = "(?" + f.Flags + ")"
		}
		patterns[i] = regexp.MustCompile(flags + f.Pattern) // Go reads (?<name>…) as JavaScript does
	}
	for i, f := range list {
		for j, p := range patterns {
			props := list[j].ForwardedProps == nil || reflect.DeepEqual(list[j].ForwardedProps, f.ForwardedProps)
			if p.MatchString(f.Example) && props {
				if j != i {
					t.Errorf("aimock answers the example of fixture %d (%q) with fixture %d", i, f.Example, j)
				}
				break
			}
		}
	}

	cfg := server.DefaultConfig()
	cfg.Speed = 0
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	ts := httptest.NewServer(server.New(cfg, set).Handler())
	defer ts.Close()
	for i, f := range list {
		props := map[string]any{}
		for k, v := range f.ForwardedProps {
			props[k] = v
		}
		body, _ := json.Marshal(map[string]any{"threadId": "t", "runId": "r", "tools": []any{}, "context": []any{}, "state": map[string]any{},
			"forwardedProps": props, "messages": []any{map[string]any{"id": "u1", "role": "user", "content": f.Example}}})
		resp, err := http.Post(ts.URL+"/agui/chat", "application/json", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		var served []map[string]any
		lines := bufio.NewScanner(resp.Body)
		for lines.Scan() {
			if data, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
				var e map[string]any
				if err := json.Unmarshal([]byte(data), &e); err != nil {
					t.Fatal(err)
				}
				served = append(served, e)
			}
		}
		resp.Body.Close()
		if got, want := essence(served), essence(f.Events); !reflect.DeepEqual(got, want) {
			t.Errorf("fixture %d (%q): agui-mock streams\n%v\naimock's fixture has\n%v", i, f.Example, got, want)
		}
	}
}

// essence is what a run streams, ids and timestamps aside: each event's type, with its
// text delta, tool name or tool result.
func essence(events []map[string]any) []string {
	var out []string
	for _, e := range events {
		s := e["type"].(string)
		for _, k := range []string{"delta", "toolCallName", "content"} {
			if v, ok := e[k].(string); ok {
				s += " " + k + "=" + v
			}
		}
		out = append(out, s)
	}
	return out
}
