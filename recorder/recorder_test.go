package recorder_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/recorder"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
)

// TestMain checks that no test leaves a goroutine behind. The parallel tests wait on
// timers and sockets, so more of them run at once than there are CPUs.
func TestMain(m *testing.M) {
	testkit.WaitersInParallel(8)
	goleak.VerifyTestMain(m)
}

// upstreamScenarios is the real agent of these tests: varied events, real timing, an
// approval flow with two interrupts and a frontend tool.
const upstreamScenarios = `
id: approval
match: {message: ^deploy$}
timing: {firstEvent: 20ms, firstToken: 60ms, stepGap: 30ms, tokensPerSecond: 100, jitter: 0}
steps:
  - reasoning: {content: Checking the release., encryptedValue: blob-1}
  - text: 'Ready. Literal {{"{{"}} braces stay literal.'
  - state: {stage: ready}
  - stateDelta: [{op: replace, path: /stage, value: waiting}]
  - tool: {name: deploy, args: {env: prod}}
    id: deploy
  - interrupt:
      - {toolCall: deploy, message: 'Deploy to prod?', on: {resolved: [{toolResult: deployed}, {text: Deployed.}], cancelled: [{toolResult: skipped}, {text: Not deployed.}]}}
      - {message: 'Notify the team?', on: {resolved: [{text: Notified.}]}}
  - text: Done.
---
id: pick
match: {message: ^pick$}
timing: {firstEvent: 10ms, firstToken: 40ms, stepGap: 20ms, tokensPerSecond: 100, jitter: 0}
steps:
  - tool: {name: choose, args: {options: [a, b]}}
  - text: 'You picked {{ .answer.content }}.'
---
id: go-on
match: {message: ^go on$}
timing: {firstEvent: 10ms, firstToken: 20ms, stepGap: 20ms, tokensPerSecond: 100, jitter: 0}
steps:
  - text: 'Going on after {{ len .messages }} messages.'
`

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func serverFor(t *testing.T, cfg server.Config, src scenarios.Source) *httptest.Server {
	t.Helper()
	cfg.Logger = quiet()
	ts := httptest.NewServer(server.New(cfg, load(t, src)).Handler())
	t.Cleanup(ts.Close)
	return ts
}

// client runs AG-UI requests and decodes the streams, with a credential in every request.
type client struct {
	t   *testing.T
	url string
}

func (c client) run(body string) ([]protocol.Event, []time.Duration) {
	c.t.Helper()
	return c.runAccepting(body, "")
}

// runAccepting runs a request with an Accept header, when one is given, and decodes the
// stream in the transport it comes in.
func (c client) runAccepting(body, accept string) ([]protocol.Event, []time.Duration) {
	c.t.Helper()
	req, _ := http.NewRequest("POST", c.url+"/agui/chat", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-live-0123456789abcdefSECRET")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		c.t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); accept == protocol.ProtoContentType && ct != protocol.ProtoContentType {
		c.t.Fatalf("asked for protobuf, got %q", ct)
	}
	r := protocol.NewEventReader(resp.Header.Get("Content-Type"), resp.Body, 1<<20)
	var events []protocol.Event
	var at []time.Duration
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return events, at
		}
		if err != nil {
			c.t.Fatal(err)
		}
		events, at = append(events, ev), append(at, time.Since(start))
	}
}

// normalized renders events without timestamps and with generated ids numbered in order
// of appearance, so a replay compares equal to the original modulo ids.
func normalized(events []protocol.Event) []string {
	names := map[string]string{}
	idRe := regexp.MustCompile(`\b(msg|call|int|id|activity|sub)-[0-9a-f]{12}\b`)
	var out []string
	for _, ev := range events {
		b, _ := json.Marshal(ev.Without("timestamp"))
		out = append(out, idRe.ReplaceAllStringFunc(string(b), func(id string) string {
			if names[id] == "" {
				names[id] = fmt.Sprintf("ID%d", len(names)+1)
			}
			return names[id]
		}))
	}
	return out
}

func interruptIDs(events []protocol.Event) []string {
	outcome, _ := events[len(events)-1].Get("outcome")
	var ids []string
	for _, it := range outcome.(map[string]any)["interrupts"].([]any) {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	return ids
}

func toolCallID(events []protocol.Event) string {
	for _, ev := range events {
		if ev.Type == protocol.ToolCallStart {
			return ev.Str("toolCallId")
		}
	}
	return ""
}

// session plays the approval flow (answered by statuses) and the frontend-tool flow.
func session(c client, thread string, statuses [2]string) [][]protocol.Event {
	return sessionAccepting(c, "", thread, statuses)
}

// sessionAccepting plays session with an Accept header in every request.
func sessionAccepting(cl client, accept, thread string, statuses [2]string) [][]protocol.Event {
	c := acceptingClient{cl, accept}
	first, _ := c.run(`{"threadId":"` + thread + `","runId":"r1","protocolVersion":"1.1","messages":[{"id":"u1","role":"user","content":"deploy"}]}`)
	ids := interruptIDs(first)
	second, _ := c.run(fmt.Sprintf(`{"threadId":"%s","runId":"r2","protocolVersion":"1.1","messages":[],"resume":[{"interruptId":"%s","status":"%s"},{"interruptId":"%s","status":"%s"}]}`,
		thread, ids[0], statuses[0], ids[1], statuses[1]))
	pick, _ := c.run(`{"threadId":"` + thread + `-pick","runId":"r1","protocolVersion":"1.1","messages":[{"id":"u1","role":"user","content":"pick"}]}`)
	picked, _ := c.run(`{"threadId":"` + thread + `-pick","runId":"r2","protocolVersion":"1.1","messages":[{"id":"t1","role":"tool","toolCallId":"` + toolCallID(pick) + `","content":"b"}]}`)
	return [][]protocol.Event{first, second, pick, picked}
}

// acceptingClient is a client whose requests carry an Accept header.
type acceptingClient struct {
	client
	accept string
}

func (c acceptingClient) run(body string) ([]protocol.Event, []time.Duration) {
	c.t.Helper()
	return c.runAccepting(body, c.accept)
}

// recordingUpstreamScenarios serves a mock that records every run into a new directory,
// from an upstream mock that plays upstreamScenarios at a quarter of their time (paced
// still, so that the recordings keep delays); it returns the directory and the recording
// server.
func recordingUpstreamScenarios(t *testing.T) (out string, proxy *httptest.Server) {
	t.Helper()
	out = t.TempDir()
	paced := server.DefaultConfig()
	paced.Speed = 0.25
	upstream := serverFor(t, paced, scenarios.Source{FS: fstest.MapFS{"s/u.yaml": {Data: []byte(upstreamScenarios)}}, Root: "s", Label: "upstream"})
	u, _ := url.Parse(upstream.URL)
	return out, recordingProxy(t, recorder.Config{Upstream: u, OutDir: out, Dedupe: true})
}

func TestRecordedSessionsReplayLikeTheOriginal(t *testing.T) {
	t.Parallel()
	out, proxy := recordingUpstreamScenarios(t)

	recorded := map[[2]string][][]protocol.Event{}
	thread := map[[2]string]string{}
	for i, statuses := range [][2]string{{"resolved", "resolved"}, {"cancelled", "resolved"}} {
		thread[statuses] = fmt.Sprint("session-", i)
		recorded[statuses] = session(client{t, proxy.URL}, thread[statuses], statuses)
	}

	files, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	if len(files) != 2 {
		t.Fatalf("recorded files %v: the approval session twice must stay one fixture, plus the tool flow", files)
	}

	replay := serverFor(t, server.DefaultConfig(), scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
	for statuses, original := range recorded {
		replayed := session(client{t, replay.URL}, thread[statuses], statuses)
		for run := range original {
			want, got := normalized(original[run]), normalized(replayed[run])
			if strings.Join(want, "\n") != strings.Join(got, "\n") {
				t.Errorf("%v run %d replays differently:\n got %s\nwant %s", statuses, run, strings.Join(got, "\n    "), strings.Join(want, "\n    "))
			}
		}
	}
}

// A client that asks for protobuf gets the upstream's protobuf frames relayed, and the
// recorder decodes them into the same fixture an SSE session makes: it replays, over
// either transport, like the original.
func TestAProtobufUpstreamIsRelayedAndRecorded(t *testing.T) {
	t.Parallel()
	out, proxy := recordingUpstreamScenarios(t)
	statuses := [2]string{"resolved", "cancelled"}
	recorded := sessionAccepting(client{t, proxy.URL}, protocol.ProtoContentType, "proto-session", statuses)
	files, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	if len(files) != 2 {
		t.Fatalf("recorded files %v", files)
	}
	replay := serverFor(t, server.DefaultConfig(), scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
	for _, accept := range []string{"text/event-stream", protocol.ProtoContentType} {
		replayed := sessionAccepting(client{t, replay.URL}, accept, "proto-session", statuses)
		for run := range recorded {
			want, got := normalized(recorded[run]), normalized(replayed[run])
			if strings.Join(want, "\n") != strings.Join(got, "\n") {
				t.Errorf("run %d replays differently over %s:\n got %s\nwant %s", run, accept, strings.Join(got, "\n    "), strings.Join(want, "\n    "))
			}
		}
	}
}

func TestSecretsNeverReachAFixture(t *testing.T) {
	out := t.TempDir()
	leaky := "match: {message: leak}\nevents:\n" +
		"  - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n" +
		"  - {type: TEXT_MESSAGE_START, messageId: m, role: assistant}\n" +
		"  - {type: TEXT_MESSAGE_CONTENT, messageId: m, delta: 'your key is sk-abcdefgh'}\n" +
		"  - {type: TEXT_MESSAGE_CONTENT, messageId: m, delta: 'ijklmnopqrstuvwx and the host internal-'}\n" +
		"  - {type: TEXT_MESSAGE_CONTENT, messageId: m, delta: 'db-7 is up'}\n" +
		"  - {type: TEXT_MESSAGE_END, messageId: m}\n" +
		"  - {type: TOOL_CALL_START, toolCallId: c, toolCallName: login, parentMessageId: m}\n" +
		"  - {type: TOOL_CALL_ARGS, toolCallId: c, delta: '{\"user\":\"ada\",\"passw'}\n" +
		"  - {type: TOOL_CALL_ARGS, toolCallId: c, delta: 'ord\":\"hunter2\"}'}\n" +
		"  - {type: TOOL_CALL_END, toolCallId: c}\n" +
		"  - {type: TOOL_CALL_RESULT, messageId: r, toolCallId: c, content: 'token Bearer eyJhbGciOiJIUzI1NiJ9.payload accepted'}\n" +
		"  - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n"
	upstream := serverFor(t, server.DefaultConfig(), scenarios.Source{FS: fstest.MapFS{"s/u.yaml": {Data: []byte(leaky)}}, Root: "s", Label: "upstream"})
	u, _ := url.Parse(upstream.URL)
	rec, _ := recorder.New(recorder.Config{Upstream: u, OutDir: out, Logger: quiet(), Redact: []*regexp.Regexp{regexp.MustCompile(`internal-[a-z]+-\d+`)}})
	cfg := server.DefaultConfig()
	cfg.Recorder, cfg.RecordAll = rec, true
	proxy := serverFor(t, cfg, scenarios.Builtin())
	events, _ := client{t, proxy.URL}.run(`{"threadId":"t","runId":"r","messages":[{"role":"user","content":"leak"}],"forwardedProps":{"apiKey":"sk-fedcba9876543210fedcba"}}`)
	if len(events) != 12 {
		t.Fatalf("the client got %d events", len(events))
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	data, _ := os.ReadFile(files[0])
	for _, secret := range []string{"sk-", "abcdefgh", "ijklmnop", "internal-", "db-7", "hunter2", "eyJhbGci", "sk-live", "0123456789abcdef", "Authorization", "fedcba"} {
		if strings.Contains(string(data), secret) {
			t.Errorf("the fixture contains %q:\n%s", secret, data)
		}
	}
	if n := strings.Count(string(data), "[REDACTED]"); n < 4 {
		t.Errorf("%d redactions:\n%s", n, data)
	}
	// the redacted fixture still loads and replays
	if _, err := scenarios.Load(scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out}); err != nil {
		t.Fatal(err)
	}
}

// TestReplayKeepsTheRecordedTiming records a run through the recording proxy on the
// fake clock, with every part in process and streaming, so the figures are exact: the
// proxy relays each event when the upstream sends it, the fixture keeps the upstream's
// schedule, and the replay sends each event when the original arrived.
func TestReplayKeepsTheRecordedTiming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		quietCfg := server.DefaultConfig()
		quietCfg.Logger = quiet()
		upstream := server.New(quietCfg, load(t, scenarios.Source{FS: fstest.MapFS{"s/u.yaml": {Data: []byte(upstreamScenarios)}}, Root: "s", Label: "upstream"}))
		out := t.TempDir()
		u, _ := url.Parse("http://agent.localhost") // a name the upstream's Host check allows
		rec, err := recorder.New(recorder.Config{Upstream: u, OutDir: out, Dedupe: true, Logger: quiet(), Client: &http.Client{Transport: streaming{upstream.Handler()}}})
		if err != nil {
			t.Fatal(err)
		}
		cfg := quietCfg
		cfg.Recorder, cfg.RecordAll = rec, true
		proxy := server.New(cfg, load(t, scenarios.Builtin()))
		body := `{"threadId":"t","runId":"r1","messages":[{"id":"u1","role":"user","content":"deploy"}]}`

		// played straight on a thread of its own, as the run ends waiting for answers
		_, schedule := timedRun(t, upstream.Handler(), strings.Replace(body, `"t"`, `"direct"`, 1))
		// The upstream's timing: RUN_STARTED after firstEvent, the first step firstToken
		// after it.
		if len(schedule) < 2 || schedule[0] != 20*time.Millisecond || schedule[1] != 80*time.Millisecond {
			t.Fatalf("the upstream sent its first events at %v, want 20ms and 80ms", schedule[:min(2, len(schedule))])
		}
		events, original := timedRun(t, proxy.Handler(), body)
		if !slices.Equal(original, schedule) {
			t.Errorf("the proxy relayed the events at\n%v\nthe upstream sent them at\n%v", original, schedule)
		}

		files, err := filepath.Glob(filepath.Join(out, "*.yaml"))
		if err != nil || len(files) != 1 {
			t.Fatalf("fixtures %v (%v), want one", files, err)
		}
		if recorded := fixtureOffsets(t, files[0]); !withinAMillisecond(recorded, schedule) {
			t.Errorf("the fixture has the events at\n%v\nthe upstream sent them at\n%v", recorded, schedule)
		}

		time.Sleep(time.Hour) // a replay plays its own schedule, whenever it runs
		replay := server.New(quietCfg, load(t, scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out}))
		replayedEvents, replayed := timedRun(t, replay.Handler(), body)
		if want, got := normalized(events), normalized(replayedEvents); !slices.Equal(want, got) {
			t.Errorf("the replay sends other events:\n got %s\nwant %s", strings.Join(got, "\n    "), strings.Join(want, "\n    "))
		}
		if !withinAMillisecond(replayed, original) {
			t.Errorf("the replay sent the events at\n%v\nthe original at\n%v", replayed, original)
		}
	})
}

// load loads a scenario set.
func load(t *testing.T, src scenarios.Source) *scenarios.Set {
	t.Helper()
	set, err := scenarios.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// fixtureOffsets reads the offset from the start of the run at which a one-run
// fixture sends each event: the sum of the delays up to it.
func fixtureOffsets(t *testing.T, file string) []time.Duration {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var fixture struct {
		Events []struct {
			Delay int64 `yaml:"delay"`
		} `yaml:"events"`
	}
	if err := yaml.Unmarshal(data, &fixture); err != nil {
		t.Fatal(err)
	}
	var at time.Duration
	var offsets []time.Duration
	for _, ev := range fixture.Events {
		at += time.Duration(ev.Delay) * time.Millisecond
		offsets = append(offsets, at)
	}
	return offsets
}

// withinAMillisecond reports whether two runs have as many events, each within the
// millisecond to which a fixture rounds its delays.
func withinAMillisecond(got, want []time.Duration) bool {
	return slices.EqualFunc(got, want, func(g, w time.Duration) bool { return (g - w).Abs() <= time.Millisecond })
}

func TestReadersNeverSeeAPartialFixture(t *testing.T) {
	out := t.TempDir()
	fast := server.DefaultConfig()
	fast.Speed = 0 // the mock's own control headers are not forwarded, so the upstream sets its speed
	upstream := serverFor(t, fast, scenarios.Source{FS: fstest.MapFS{"s/u.yaml": {Data: []byte("match: {message: big}\nsteps:\n  - text: '" + strings.Repeat("word ", 1000) + "'\n    chunk: word\n")}}, Root: "s", Label: "s"})
	u, _ := url.Parse(upstream.URL)
	rec, _ := recorder.New(recorder.Config{Upstream: u, OutDir: out, Dedupe: true, Logger: quiet()})
	cfg := server.DefaultConfig()
	cfg.Recorder, cfg.RecordAll = rec, true
	proxy := serverFor(t, cfg, scenarios.Builtin())

	var stop atomic.Bool
	var reads, partial atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for !stop.Load() {
			files, _ := os.ReadDir(out)
			for _, f := range files {
				if f.IsDir() || !scenarios.IsScenarioFile(f.Name()) {
					continue
				}
				data, err := os.ReadFile(filepath.Join(out, f.Name()))
				if err != nil {
					continue // renamed away between listing and reading
				}
				reads.Add(1)
				var doc yaml.Node
				if err := yaml.Unmarshal(data, &doc); err != nil || !strings.Contains(string(data), "RUN_FINISHED") {
					partial.Add(1)
				}
			}
		}
	})
	runs := 15
	if testing.Short() {
		runs = 5 // fewer rewrites of the file for the reader to meet
	}
	for i := range runs {
		req, _ := http.NewRequest("POST", proxy.URL+"/agui/chat", strings.NewReader(fmt.Sprintf(`{"threadId":"t%d","runId":"r","messages":[{"role":"user","content":"big"}]}`, i)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	stop.Store(true)
	wg.Wait()
	if reads.Load() == 0 || partial.Load() != 0 {
		t.Errorf("%d reads, %d saw a partial file", reads.Load(), partial.Load())
	}
}

// TestTheMocksControlHeadersStayWithTheMock records with the mock's control headers
// set: they are not forwarded and do not apply to the recorded run (the client's other
// headers are forwarded), except a status fault, answered before anything is proxied.
func TestTheMocksControlHeadersStayWithTheMock(t *testing.T) {
	out := t.TempDir()
	set, err := scenarios.Load(scenarios.Source{FS: fstest.MapFS{"s/u.yaml": {Data: []byte(upstreamScenarios)}}, Root: "s", Label: "upstream"})
	if err != nil {
		t.Fatal(err)
	}
	agentCfg := server.DefaultConfig()
	agentCfg.Logger = quiet()
	agent := server.New(agentCfg, set).Handler()
	var mu sync.Mutex
	var seen []http.Header
	requests := func() []http.Header {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		agent.ServeHTTP(w, r) // a forwarded fault would strike here
	}))
	t.Cleanup(upstream.Close)
	u, _ := url.Parse(upstream.URL)
	rec, _ := recorder.New(recorder.Config{Upstream: u, OutDir: out, Dedupe: true, Logger: quiet()})
	cfg := server.DefaultConfig()
	cfg.Recorder, cfg.RecordAll = rec, true
	proxy := serverFor(t, cfg, scenarios.Builtin())

	post := func(fault string) *http.Response {
		req, _ := http.NewRequest("POST", proxy.URL+"/agui/chat", strings.NewReader(`{"threadId":"t","runId":"r","messages":[{"role":"user","content":"pick"}]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer token-for-the-agent")
		req.Header.Set("X-Test-Id", "t-1")
		req.Header.Set("X-Agui-Mock-Fault", fault)
		req.Header.Set("X-Agui-Mock-Speed", "0")
		req.Header.Set("X-Agui-Mock-Scenario", "showcase")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	body, _ := io.ReadAll(post("truncate; after=3").Body)
	if !strings.Contains(string(body), `"type":"RUN_FINISHED"`) || strings.Count(string(body), "data: ") < 4 {
		t.Errorf("the recorded run did not play out as the agent sent it:\n%s", body)
	}
	got := requests()
	if len(got) != 1 {
		t.Fatalf("the upstream had %d requests", len(got))
	}
	for name := range got[0] {
		if strings.HasPrefix(strings.ToLower(name), "x-agui-mock-") {
			t.Errorf("the control header %s reached the upstream", name)
		}
	}
	if got[0].Get("Authorization") != "Bearer token-for-the-agent" || got[0].Get("X-Test-Id") != "t-1" {
		t.Errorf("the client's headers were not forwarded: %v", got[0])
	}

	if resp := post("status; status=503"); resp.StatusCode != http.StatusServiceUnavailable || len(requests()) != 1 {
		t.Errorf("a status fault got %d and reached the upstream %d times", resp.StatusCode, len(requests()))
	}
}

// serve runs one request through a handler and returns the status and body.
func serve(t *testing.T, h http.Handler, body string) (int, string) {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), "POST", "http://localhost/agui/chat", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w.Code, w.Body.String()
}

// lastInterrupt reads the interrupt a stream's RUN_FINISHED hands the client.
func lastInterrupt(t *testing.T, stream string) map[string]any {
	t.Helper()
	events := decodeStream(t, stream)
	if len(events) == 0 || events[len(events)-1].Type != protocol.RunFinished {
		t.Fatalf("the run did not end with an interrupt: %s", stream)
	}
	outcome, _ := events[len(events)-1].Get("outcome")
	return outcome.(map[string]any)["interrupts"].([]any)[0].(map[string]any)
}

func TestARecordedInterruptExpiresAsLongAfterItsReplay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		upstreamSet := load(t, scenarios.Source{FS: fstest.MapFS{"s/u.yaml": {Data: []byte(`
match: {message: ^approve$}
timing: {firstEvent: 20ms, stepGap: 30ms, jitter: 0}
steps:
  - interrupt: {message: Go ahead, expiresIn: 10m, on: {resolved: [{text: Went ahead.}]}}
`)}}, Root: "s", Label: "upstream"})
		quietCfg := server.DefaultConfig()
		quietCfg.Logger = quiet()
		upstream := server.New(quietCfg, upstreamSet)
		out := t.TempDir()
		u, _ := url.Parse("http://agent.localhost") // a name the upstream's Host check allows
		rec, err := recorder.New(recorder.Config{Upstream: u, OutDir: out, Dedupe: true, Logger: quiet(), Client: &http.Client{Transport: streaming{upstream.Handler()}}})
		if err != nil {
			t.Fatal(err)
		}
		cfg := server.DefaultConfig()
		cfg.Recorder, cfg.RecordAll, cfg.Logger = rec, true, quiet()
		proxy := server.New(cfg, load(t, scenarios.Builtin()))
		first := `{"threadId":"t","runId":"r1","protocolVersion":"1.1","messages":[{"id":"u1","role":"user","content":"approve"}]}`
		resume := `{"threadId":"t","runId":"r2","protocolVersion":"1.1","messages":[],"resume":[{"interruptId":"%s","status":"resolved"}]}`
		_, stream := serve(t, proxy.Handler(), first)
		_, _ = serve(t, proxy.Handler(), fmt.Sprintf(resume, lastInterrupt(t, stream)["id"]))

		time.Sleep(time.Hour) // long past the recorded interrupt's expiry
		replay := server.New(quietCfg, load(t, scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out}))
		sent := time.Now()
		_, stream = serve(t, replay.Handler(), first)
		interrupt := lastInterrupt(t, stream)
		expires, _ := time.Parse(time.RFC3339Nano, interrupt["expiresAt"].(string))
		if left := expires.Sub(sent); left < 10*time.Minute || left > 10*time.Minute+time.Second {
			t.Errorf("the replayed interrupt expires at %s, %s after the replay began; want 10m after it is sent", interrupt["expiresAt"], left)
		}
		status, body := serve(t, replay.Handler(), fmt.Sprintf(resume, interrupt["id"]))
		if status != 200 || !strings.Contains(body, `"delta":"ahead."`) {
			t.Errorf("the answer to the replayed interrupt: %d %s", status, body)
		}
	})
}

// A run that brings the results of the pending tool calls with a user message after them
// is a new turn, as a replay has it: it is recorded keyed by its whole conversation, the
// results and the new message included, not as the branch the results alone would choose.
func TestToolResultsFollowedByAMessageAreANewTurn(t *testing.T) {
	out, proxy := recordingUpstreamScenarios(t)

	play := func(base string) [][]protocol.Event {
		c := client{t, base}
		pick, _ := c.run(`{"threadId":"t","runId":"r1","protocolVersion":"1.1","messages":[{"id":"u1","role":"user","content":"pick"}]}`)
		picked, _ := c.run(`{"threadId":"t","runId":"r2","protocolVersion":"1.1","messages":[{"id":"t1","role":"tool","toolCallId":"` + toolCallID(pick) + `","content":"b"},{"id":"u2","role":"user","content":"go on"}]}`)
		return [][]protocol.Event{pick, picked}
	}
	original := play(proxy.URL)
	files, _ := filepath.Glob(filepath.Join(out, "go-on-*.yaml"))
	if len(files) != 1 {
		t.Fatalf("recorded files %v, want the second run's own", files)
	}
	fixture, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(fixture), "conversation:\n    - tool: ^b$\n    - user: ^go on$\n") {
		t.Errorf("the second run is not keyed by its conversation:\n%s", fixture)
	}
	replayed := play(serverFor(t, server.DefaultConfig(), scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out}).URL)
	for run := range original {
		if want, got := normalized(original[run]), normalized(replayed[run]); strings.Join(want, "\n") != strings.Join(got, "\n") {
			t.Errorf("run %d replays differently:\n got %s\nwant %s", run, strings.Join(got, "\n    "), strings.Join(want, "\n    "))
		}
	}
}
