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

	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/recorder"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
)

// recordingProxy serves a mock that records every run with a recorder configured by cfg
// (quiet unless cfg has a logger).
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
func streamingUpstream(t *testing.T, stream func(w io.Writer)) *url.URL {
	t.Helper()
	return testkit.Agent(t, func(s *testkit.Stream, _ *testkit.Run) { stream(s) })
}

// TestMultiLineDataIsRelayedFramed has the upstream split each event's JSON over several
// data: lines, as SSE allows: the client gets every line framed, and the recording has
// the events the lines make up together.
func TestMultiLineDataIsRelayedFramed(t *testing.T) {
	upstream := streamingUpstream(t, func(w io.Writer) {
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
func endlessRun(n, size int) func(w io.Writer) {
	return func(w io.Writer) {
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

// TestCredentialsAreRedactedWhereverTheyAre has the upstream send credentials in state,
// state deltas, text (one split across three deltas), tool arguments, custom and raw
// events and a messages snapshot: the client gets them as sent, the fixture holds none,
// keeps ordinary values, loads and replays, and the recorder says how many it redacted.
func TestCredentialsAreRedactedWhereverTheyAre(t *testing.T) {
	secrets := []string{
		"state-key-1", "hunter2pass", "nested-client-secret", "pk-in-config", "delta-pass-9", "tok-delta-1",
		"ASIAY34FZKBOKMUTVV7A", "eyJhbGciOiJIUzI1NiJ9", "eyJzdWIiOiIxMjM0NTY3ODkwIn0", "dozjgNryP4J3jVmNHl0w5N",
		"github_pat_11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ", "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe",
		"xoxb-123456789012-AbCdEfGhIjKl", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo",
		"tool-pass-77", "sid-abc123cookie", "Basic dXNlcjpwYXNz", "snap-pass-42", "AKIAIOSFODNN7EXAMPLE", "resume-secret-5",
	}
	events := []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"STATE_SNAPSHOT","snapshot":{"api_key":"state-key-1","password":"hunter2pass","nested":{"db":{"client_secret":"nested-client-secret"}},` +
			`"config":{"privateKey":"pk-in-config","sort_key":"name","public_key":"ssh-ed25519 AAAAC3Nz"},"tokens":1500,"max_tokens":4096,"monkey":"banana","note":"the token budget is fine"}}`,
		`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/credentials","value":{"password":"delta-pass-9"}},{"op":"add","path":"/sessionToken","value":"tok-delta-1"},{"op":"replace","path":"/tokens","value":1600}]}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Your key is ASIAY34FZKBOKMUTVV7A, the JWT eyJhbGciOiJIUzI1Ni"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"J9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3j"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"VmNHl0w5N_XgL0n3I9PlFUP0THsR8U and the token budget is 5000 tokens. "}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Also github_pat_11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ, AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe, xoxb-123456789012-AbCdEfGhIjKl, sk_live_4eC39HqLyjWDarjtT1zdp7dc and\n"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END RSA PRIVATE KEY-----"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"login","parentMessageId":"m"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"user\":\"ada\",\"pass"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"word\":\"tool-pass-77\",\"tokens\":12}"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"c"}`,
		`{"type":"CUSTOM","name":"session","value":{"cookie":"sid-abc123cookie"}}`,
		`{"type":"RAW","event":{"headers":{"Authorization":"Basic dXNlcjpwYXNz"}}}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a1","role":"assistant","content":"ok","toolCalls":[{"id":"c","type":"function","function":{"name":"login","arguments":"{\"password\":\"snap-pass-42\"}"}}]}]}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i","reason":"confirm","message":"Go on?"}]}}`,
	}
	answered := []string{`{"type":"RUN_STARTED","threadId":"t","runId":"r2"}`, `{"type":"RUN_FINISHED","threadId":"t","runId":"r2"}`}
	upstream := testkit.Agent(t, func(w *testkit.Stream, run *testkit.Run) {
		stream := events
		if strings.Contains(string(run.Body), `"resume"`) {
			stream = answered
		}
		for _, ev := range stream {
			fmt.Fprintf(w, "data: %s\n\n", ev)
		}
	})
	out := t.TempDir()
	progress := make(lines, 4)
	proxy := recordingProxy(t, recorder.Config{Upstream: upstream, OutDir: out, Dedupe: true, Progress: progress})
	first := `{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"u","role":"user","content":"use AKIAIOSFODNN7EXAMPLE"}]}`
	got, _ := client{t, proxy.URL}.run(first)
	if len(got) != len(events) || got[4].Str("delta") != "Your key is ASIAY34FZKBOKMUTVV7A, the JWT eyJhbGciOiJIUzI1Ni" {
		t.Fatalf("the client did not get the run as sent: %v", got)
	}
	if line := <-progress; !strings.Contains(line, "complete, 18 secrets redacted →") {
		t.Errorf("the recorder says: %s", line)
	}
	// the answer to the interrupt carries a secret too
	resume := `{"threadId":"t","runId":"r2","protocolVersion":"1.1","messages":[],"resume":[{"interruptId":"i","status":"resolved","payload":{"note":"fine","token":"resume-secret-5"}}]}`
	client{t, proxy.URL}.run(resume)
	if line := <-progress; !strings.Contains(line, "1 secret redacted →") {
		t.Errorf("the recorder says: %s", line)
	}

	files, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	if len(files) != 1 {
		t.Fatalf("recordings %v", files)
	}
	data, _ := os.ReadFile(files[0])
	for _, secret := range secrets {
		if strings.Contains(string(data), secret) {
			t.Errorf("the fixture holds %q", secret)
		}
	}
	for _, ordinary := range []string{"sort_key: name", "public_key: ssh-ed25519 AAAAC3Nz", "tokens: 1500", "max_tokens: 4096", "monkey: banana",
		"note: the token budget is fine", "and the token budget is 5000 tokens.", `"tokens":12}`, "value: 1600", "note: fine"} {
		if !strings.Contains(string(data), ordinary) {
			t.Errorf("the fixture lost %q:\n%s", ordinary, data)
		}
	}
	if t.Failed() {
		t.Logf("the fixture:\n%s", data)
	}
	replay := serverFor(t, server.DefaultConfig(), scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
	replayed, _ := client{t, replay.URL}.run(first) // the user's message with its secret still selects the recording
	if len(replayed) != len(events)-2 {             // the three deltas of the JWT are one
		t.Errorf("the replay has %d events", len(replayed))
	}
}

// TestTheRunsContinuingAnUnrecordedRunAreNotRecorded records a run that passes the
// recording limit, then answers it in the same thread: the answer goes to the agent and
// its run reaches the client, but with no recorded run before it, it is not recorded.
func TestTheRunsContinuingAnUnrecordedRunAreNotRecorded(t *testing.T) {
	paused := endlessRun(50, 10)
	upstream := testkit.Agent(t, func(w *testkit.Stream, run *testkit.Run) {
		if strings.Contains(string(run.Body), `"resume"`) {
			fmt.Fprint(w, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r2\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r2\"}\n\n")
			return
		}
		paused(w)
	})
	out := t.TempDir()
	log := make(lines, 16)
	proxy := recordingProxy(t, recorder.Config{Upstream: upstream, OutDir: out, MaxEvents: 20, Logger: slog.New(slog.NewTextHandler(log, nil)), Progress: log})
	client{t, proxy.URL}.run(`{"threadId":"t","runId":"r","messages":[{"role":"user","content":"long"}]}`)
	answered, _ := client{t, proxy.URL}.run(`{"threadId":"t","runId":"r2","messages":[],"resume":[{"interruptId":"i","status":"resolved"}]}`)
	if len(answered) != 2 {
		t.Errorf("the answer's run reached the client as %v", answered)
	}
	close(log)
	var said []string
	for line := range log {
		said = append(said, line)
	}
	if len(said) != 2 || !strings.Contains(said[0], "recording limit") || !strings.Contains(said[1], "not recording a run that continues a run that was not recorded") || !strings.Contains(said[1], "run=r2") {
		t.Errorf("the log says:\n%s", strings.Join(said, "\n"))
	}
	if files := listAll(t, out); len(files) != 0 {
		t.Errorf("written %v", files)
	}
}

// TestPastTheRecordingLimitTheRunIsOnlyRelayed has the upstream open messages it never
// ends after the recording limit: the run is relayed as sent, unchecked, since what the
// checker remembers would grow with it; a stream that then stops without a terminal event
// still ends with RUN_ERROR.
func TestPastTheRecordingLimitTheRunIsOnlyRelayed(t *testing.T) {
	for _, tt := range []struct {
		name, end string
		events    int    // the client gets
		last      string // the type of the last one
	}{
		{"finished", `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`, 22, "RUN_FINISHED"},
		{"cut short", `{"type":"TEXT_MESSAGE_START","messageId":"last","role":"assistant"}`, 23, "RUN_ERROR"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			upstream := streamingUpstream(t, func(w io.Writer) {
				fmt.Fprint(w, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n")
				for i := range 20 {
					fmt.Fprintf(w, "data: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m%d\",\"role\":\"assistant\"}\n\n", i)
				}
				fmt.Fprintf(w, "data: %s\n\n", tt.end)
			})
			proxy := recordingProxy(t, recorder.Config{Upstream: upstream, OutDir: t.TempDir(), MaxEvents: 5})
			events, _ := client{t, proxy.URL}.run(`{"threadId":"t","runId":"r","messages":[{"role":"user","content":"open"}]}`)
			if last := events[len(events)-1]; len(events) != tt.events || last.Type != tt.last || (last.Type == "RUN_ERROR" && last.Str("code") != "upstream_stream_broken") {
				t.Errorf("the client got %d events, the last %v", len(events), last)
			}
		})
	}
}

// TestSecretsSplitAcrossAnyStreamsDeltasAreRedacted has the upstream split credentials
// across the deltas of every kind of stream: reasoning chunks, THINKING text, text
// chunks of which only the first names the message (the rest one character each) and
// tool call chunks, and set one through an activity's patch. The client gets them as
// sent; the fixture holds none of them, says how many it redacted, and replays.
func TestSecretsSplitAcrossAnyStreamsDeltasAreRedacted(t *testing.T) {
	const ghToken = "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"
	events := []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"REASONING_START","messageId":"r0"}`,
		`{"type":"REASONING_MESSAGE_CHUNK","messageId":"r1","delta":"the key is sk-proj-abcdefgh"}`,
		`{"type":"REASONING_MESSAGE_CHUNK","delta":"ijklmnopqrstuvwxyz012345, noted"}`,
		`{"type":"REASONING_END","messageId":"r0"}`,
		`{"type":"THINKING_START"}`,
		`{"type":"THINKING_TEXT_MESSAGE_START"}`,
		`{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"use AKIAIOSF"}`,
		`{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"ODNN7EXAMPLE here"}`,
		`{"type":"THINKING_TEXT_MESSAGE_END"}`,
		`{"type":"THINKING_END"}`,
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","role":"assistant","delta":"Your token: g"}`,
	}
	for _, c := range ghToken[1:] + " (keep it)" {
		events = append(events, fmt.Sprintf(`{"type":"TEXT_MESSAGE_CHUNK","delta":%q}`, string(c)))
	}
	events = append(events,
		`{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"post","delta":"{\"channel\":\"ops\",\"hook\":\"xoxb-1234"}`,
		`{"type":"TOOL_CALL_CHUNK","delta":"56789012-AbCdEfGhIjKl\"}"}`,
		`{"type":"ACTIVITY_SNAPSHOT","messageId":"a1","activityType":"plan","content":{"step":1}}`,
		`{"type":"ACTIVITY_DELTA","messageId":"a1","activityType":"plan","patch":[{"op":"add","path":"/apiKey","value":"plain-activity-key"}]}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
	)
	upstream := streamingUpstream(t, func(w io.Writer) {
		for _, ev := range events {
			fmt.Fprintf(w, "data: %s\n\n", ev)
		}
	})
	out := t.TempDir()
	progress := make(lines, 1)
	proxy := recordingProxy(t, recorder.Config{Upstream: upstream, OutDir: out, Progress: progress})
	request := `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"split secrets"}]}`
	got, _ := client{t, proxy.URL}.run(request)
	if len(got) != len(events) {
		t.Fatalf("the client got %d events of %d", len(got), len(events))
	}
	if line := <-progress; !strings.Contains(line, "complete, 5 secrets redacted →") {
		t.Errorf("the recorder says: %s", line)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	if len(files) != 1 {
		t.Fatalf("recordings %v", files)
	}
	data, _ := os.ReadFile(files[0])
	for _, part := range []string{"abcdefgh", "ijklmnop", "AKIAIOSF", "ODNN7EXAMPLE", "wWPw5k", "pINUx", "xoxb-1234", "AbCdEfGh", "plain-activity-key"} {
		if strings.Contains(string(data), part) {
			t.Errorf("the fixture holds %q", part)
		}
	}
	if t.Failed() {
		t.Logf("the fixture:\n%s", data)
	}
	replay := serverFor(t, server.DefaultConfig(), scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
	replayed, _ := client{t, replay.URL}.run(request)
	texts := map[string]string{}
	for _, ev := range replayed {
		texts[ev.Type] += ev.Str("delta")
	}
	want := map[string]string{
		"REASONING_MESSAGE_CHUNK":       "the key is [REDACTED], noted",
		"THINKING_TEXT_MESSAGE_CONTENT": "use [REDACTED] here",
		"TEXT_MESSAGE_CHUNK":            "Your token: [REDACTED] (keep it)",
		"TOOL_CALL_CHUNK":               `{"channel":"ops","hook":"[REDACTED]"}`,
	}
	for typ, text := range want {
		if texts[typ] != text {
			t.Errorf("the replay's %s says %q, want %q", typ, texts[typ], text)
		}
	}
}
