package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/internal/testkit"
)

// startAndLog starts the server with args and returns its URL and its start-up log,
// complete once /_mock/readyz answers.
func startAndLog(t *testing.T, args ...string) (string, string) {
	t.Helper()
	var log syncBuffer
	url := startLogged(t, append([]string{"--addr", "127.0.0.1:0"}, args...), nil, &log)
	resp, err := http.Get(url + "/_mock/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return url, log.String()
}

// TestStartupLogIsShortAndNamesTheInspector: at the default level the start-up log says
// where it listens, the inspector's URL and how many scenarios from where, in a few
// lines; each scenario gets a line at debug.
func TestStartupLogIsShortAndNamesTheInspector(t *testing.T) {
	t.Chdir("../..") // the repository's root, whose examples the log names as given
	url, log := startAndLog(t, "--scenarios", "examples")
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if len(lines) > 3 {
		t.Errorf("%d lines at start, want at most 3:\n%s", len(lines), log)
	}
	limit, known := descriptorLimit()
	_, streams := maxStreams(streamLimit{}, limit, known, false)
	for _, want := range []string{"inspector=" + url + "/_mock/ui", `from="examples: `, ", builtin: ", "maxStreams=" + strconv.Quote(streams)} {
		if !strings.Contains(log, want) {
			t.Errorf("the start-up log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "msg=scenario ") {
		t.Errorf("a line per scenario at the default level:\n%s", log)
	}

	_, debug := startAndLog(t, "--scenarios", "examples", "--log-level", "debug")
	if !strings.Contains(debug, "level=DEBUG msg=scenario id=weather") {
		t.Errorf("no line per scenario at debug:\n%s", debug)
	}
}

// TestAnnouncementIsJSONInAJSONLog: with -log-format json the line saying where the
// server listens is a JSON record like every other line, which tools still read.
func TestAnnouncementIsJSONInAJSONLog(t *testing.T) {
	t.Chdir("../..") // the repository's root, whose examples the log names as given
	var out bytes.Buffer
	announce(&out, "json", "http://127.0.0.1:8000")
	var record struct{ Level, Msg, URL, Inspector string }
	if err := json.Unmarshal(out.Bytes(), &record); err != nil {
		t.Fatalf("not a JSON record: %q: %v", out.String(), err)
	}
	if record.Level != "INFO" || record.Msg != "agui-mock listening on http://127.0.0.1:8000" || record.Inspector != "http://127.0.0.1:8000/_mock/ui" {
		t.Errorf("record %+v", record)
	}
	if url, ok := testkit.ListeningURL(out.String()); !ok || url != "http://127.0.0.1:8000" {
		t.Errorf("listeningURL of the JSON record: %q %v", url, ok)
	}
	out.Reset()
	announce(&out, "text", "http://127.0.0.1:8000")
	if out.String() != "agui-mock listening on http://127.0.0.1:8000\n" {
		t.Errorf("text announcement %q", out.String())
	}

	_, log := startAndLog(t, "--log-format", "json", "--no-builtin", "--scenarios", "examples")
	for line := range strings.Lines(log) {
		if !json.Valid([]byte(line)) {
			t.Errorf("a log line that is no JSON: %q", line)
		}
	}
}

// TestPrintedLinesAreJSONInAJSONLog: what the recorder prints for people, a line per
// recording, is a JSON record too with -log-format json.
func TestPrintedLinesAreJSONInAJSONLog(t *testing.T) {
	var out bytes.Buffer
	fmt.Fprintf(printer(&out, "json"), "recorded run %s\n", "r1")
	var record struct{ Msg string }
	if err := json.Unmarshal(out.Bytes(), &record); err != nil || record.Msg != "recorded run r1" {
		t.Errorf("%q: %v", out.String(), err)
	}
	out.Reset()
	fmt.Fprintf(printer(&out, "text"), "recorded run %s\n", "r1")
	if out.String() != "recorded run r1\n" {
		t.Errorf("text: %q", out.String())
	}
}

// TestRecordAnnouncesOnlyWhatItDoes: record proxies every request to the agent, so its
// start-up log names the agent and the record directory, and neither the built-in
// scenarios nor the routes only they would answer, which it never plays.
func TestRecordAnnouncesOnlyWhatItDoes(t *testing.T) {
	dir := t.TempDir()
	var logged syncBuffer
	url := startLogged(t, []string{"record", "--addr", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9", "--record-dir", dir, "--log-level", "debug"}, nil, &logged)
	testkit.Eventually(t, "the ready line", func() bool { return strings.Contains(logged.String(), "msg=ready") })
	log := logged.String()
	for _, want := range []string{"msg=ready", "upstream=http://127.0.0.1:9", "recordDir=" + dir, `run="POST ` + url + "/<any path> → http://127.0.0.1:9", "inspector=" + url + "/_mock/ui"} {
		if !strings.Contains(log, want) {
			t.Errorf("the start-up log of record lacks %q:\n%s", want, log)
		}
	}
	for _, unwanted := range []string{"builtin", "scenarios=", "/agentic_chat", "/_mock/scenarios", "seed=", "speed=", "msg=scenario "} {
		if strings.Contains(log, unwanted) {
			t.Errorf("the start-up log of record announces %q, which it does not serve:\n%s", unwanted, log)
		}
	}
}
