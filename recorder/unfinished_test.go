package recorder_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/recorder"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
)

func TestUpstreamFailuresReachTheClient(t *testing.T) {
	broken := testkit.Agent(t, func(w *testkit.Stream, run *testkit.Run) {
		switch run.Request.URL.Path {
		case "/refuse":
			w.Fail(http.StatusForbidden, `{"error":"no"}`)
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{}`)
		case "/cut":
			fmt.Fprint(w, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}\n\n")
		case "/garbage":
			fmt.Fprint(w, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {not json\n\n")
		case "/proto-cut", "/proto-garbage":
			w.Header().Set("Content-Type", protocol.ProtoContentType)
			var enc protocol.ProtoEncoder
			frames, _ := enc.AppendFrame(nil, protocol.NewEvent(protocol.RunStarted, "threadId", "t", "runId", "r"), 1)
			if run.Request.URL.Path == "/proto-cut" {
				frames, _ = enc.AppendFrame(frames, protocol.NewEvent(protocol.TextMessageStart, "messageId", "m", "role", "assistant"), 2)
				frames = frames[:len(frames)-3]
			} else {
				frames = append(frames, enc.MalformedFrame()...)
			}
			_, _ = w.Write(frames)
		}
	}).String()
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL
	gone.Close()
	tests := []struct {
		name, upstream, path string
		status               int
		code                 string
	}{
		{"refused connection", goneURL, "/", 502, "upstream_unreachable"},
		{"non-2xx", broken, "/refuse", 403, "upstream_error"},
		{"not a stream", broken, "/json", 502, "upstream_protocol_error"},
		{"stream cut short", broken, "/cut", 200, "upstream_stream_broken"},
		{"invalid event", broken, "/garbage", 200, "upstream_protocol_error"},
		{"protobuf frame cut short", broken, "/proto-cut", 200, "upstream_stream_broken"},
		{"invalid protobuf frame", broken, "/proto-garbage", 200, "upstream_protocol_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			u, _ := url.Parse(tt.upstream)
			rec, _ := recorder.New(recorder.Config{Upstream: u, OutDir: out, Logger: quiet()})
			cfg := server.DefaultConfig()
			cfg.Recorder, cfg.RecordAll = rec, true
			routes := fstest.MapFS{"s/r.yaml": {Data: []byte("match: {route: [/refuse, /json, /cut, /garbage, /proto-cut, /proto-garbage]}\nsteps: [{text: x}]\n")}}
			proxy := serverFor(t, cfg, scenarios.Source{FS: routes, Root: "s", Label: "s"})
			resp, err := http.Post(proxy.URL+tt.path, "application/json", strings.NewReader(`{"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status || !strings.Contains(string(body), tt.code) {
				t.Errorf("got %d %s", resp.StatusCode, body)
			}
			if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(tt.path, "/proto") && ct != protocol.ProtoContentType {
				t.Errorf("a protobuf upstream relayed as %q", ct)
			}
			if files, _ := filepath.Glob(filepath.Join(out, "*.yaml")); len(files) != 0 {
				t.Errorf("a failed recording was saved as a scenario: %v", files)
			}
			if tt.status == 200 {
				kept, _ := filepath.Glob(filepath.Join(out, ".incomplete", "*.yaml"))
				if len(kept) != 1 {
					t.Fatalf("the incomplete recording was not kept apart: %v", kept)
				}
				data, _ := os.ReadFile(kept[0])
				if !strings.Contains(string(data), "broken: 'incomplete recording:") && !strings.Contains(string(data), "broken: \"incomplete recording:") {
					t.Errorf("the incomplete recording is not marked:\n%s", data)
				}
			}
		})
	}
}

// lines collects what is written to it, line by line.
type lines chan string

func (l lines) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimSuffix(string(p), "\n"), "\n") {
		l <- line
	}
	return len(p), nil
}

// slowlyRecording starts an upstream agent playing the scenario, five words a second,
// and a server that records every run through it; it returns the server's URL, the
// record directory, and the recorder's progress lines.
func slowlyRecording(t *testing.T, scenario string) (proxy, out string, progress lines) {
	t.Helper()
	upstream := serverFor(t, server.DefaultConfig(), scenarios.Source{FS: fstest.MapFS{"s/u.yaml": {Data: []byte(
		"timing: {firstEvent: 0, tokensPerSecond: 5, jitter: 0}\n" + scenario)}}, Root: "s", Label: "upstream"})
	out = t.TempDir()
	u, _ := url.Parse(upstream.URL)
	progress = make(lines, 4)
	rec, err := recorder.New(recorder.Config{Upstream: u, OutDir: out, Dedupe: true, Logger: quiet(), Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.Recorder, cfg.RecordAll = rec, true
	return serverFor(t, cfg, scenarios.Builtin()).URL, out, progress
}

// stoppedRun starts recording a long run, waits for its first event, stops it with
// stop, and returns the recorder's line about it and the record directory.
func stoppedRun(t *testing.T, stop func(proxy string, abort context.CancelFunc)) (string, string) {
	t.Helper()
	proxy, out, progress := slowlyRecording(t, "match: {message: ^long$}\nsteps: [{text: '"+strings.Repeat("word ", 100)+"'}]\n")
	ctx, abort := context.WithCancel(t.Context())
	defer abort()
	req, _ := http.NewRequestWithContext(ctx, "POST", proxy+"/agui/chat", strings.NewReader(`{"threadId":"t","runId":"r","protocolVersion":"1.1","messages":[{"id":"u1","role":"user","content":"long"}]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := protocol.NewFrameReader(resp.Body, 1<<20).Next(); err != nil {
		t.Fatalf("no first event: %v", err)
	}
	stop(proxy, abort)
	_, _ = io.Copy(io.Discard, resp.Body)
	return <-progress, out
}

// keptApart checks that a run was written only to .incomplete/, marked with why.
func keptApart(t *testing.T, out, why string) {
	t.Helper()
	if files, _ := filepath.Glob(filepath.Join(out, "*.yaml")); len(files) != 0 {
		t.Errorf("the run was saved as a scenario to replay: %v", files)
	}
	kept, _ := filepath.Glob(filepath.Join(out, ".incomplete", "*.yaml"))
	if len(kept) != 1 {
		t.Fatalf("the run was not kept apart: %v", kept)
	}
	data, _ := os.ReadFile(kept[0])
	if !strings.Contains(string(data), "broken: 'incomplete recording: "+why) {
		t.Errorf("the kept recording is not marked %q:\n%s", why, data)
	}
}

func TestACancelledRunIsKeptApart(t *testing.T) {
	line, out := stoppedRun(t, func(proxy string, _ context.CancelFunc) {
		resp, err := http.Post(proxy+server.CancelPath, "application/json", strings.NewReader(`{"threadId":"t"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("cancel answered %d", resp.StatusCode)
		}
	})
	if !strings.Contains(line, "INCOMPLETE: the run was cancelled before it ended") {
		t.Errorf("recorder line: %s", line)
	}
	keptApart(t, out, "the run was cancelled before it ended")
}

// A run the client stopped (a Stop button) is written where its session's fixture goes,
// as a stopped scenario: it replays the events the agent sent until then, then holds the
// stream open without a terminal event until the client goes away.
func TestARunTheClientStoppedReplaysThenHoldsTheStreamOpen(t *testing.T) {
	line, out := stoppedRun(t, func(_ string, abort context.CancelFunc) { abort() })
	if !strings.Contains(line, "stopped by the client: it replays its events, then holds the stream open") || strings.Contains(line, "upstream") {
		t.Errorf("recorder line: %s", line)
	}
	if kept, _ := filepath.Glob(filepath.Join(out, ".incomplete", "*.yaml")); len(kept) != 0 {
		t.Errorf("the stopped run was kept apart too: %v", kept)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	if len(files) != 1 {
		t.Fatalf("recorded files %v, want the stopped run's", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	fixture := string(data)
	recorded := strings.Count(fixture, "type: ")
	for _, want := range []string{
		fmt.Sprintf("stopped: the client stopped the run while it was recorded, after %d events\n", recorded),
		"description: 'Recorded from ", "stopped by the client while recording",
		"examples:\n  - {message: long}",
	} {
		if !strings.Contains(fixture, want) {
			t.Errorf("the fixture lacks %q:\n%s", want, fixture)
		}
	}
	if recorded == 0 || strings.Contains(fixture, "broken:") || strings.Contains(fixture, "RUN_FINISHED") || strings.Contains(fixture, "RUN_ERROR") {
		t.Errorf("the fixture is not the stopped run's %d events alone:\n%s", recorded, fixture)
	}

	cfg := server.DefaultConfig()
	cfg.Speed = 0
	replay := serverFor(t, cfg, scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
	ctx, leave := context.WithCancel(t.Context())
	defer leave()
	req, _ := http.NewRequestWithContext(ctx, "POST", replay.URL+"/agui/chat", strings.NewReader(`{"threadId":"t2","runId":"r2","protocolVersion":"1.1","messages":[{"id":"u1","role":"user","content":"long"}]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	frames := protocol.NewFrameReader(resp.Body, 1<<20)
	for i := range recorded {
		f, err := frames.Next()
		if err != nil {
			t.Fatalf("event %d of %d: %v", i+1, recorded, err)
		}
		if strings.Contains(f.Data, `"RUN_FINISHED"`) || strings.Contains(f.Data, `"RUN_ERROR"`) {
			t.Fatalf("event %d of the replay is a terminal event: %s", i+1, f.Data)
		}
	}
	// At speed 0 a terminal event would already be written: the stream is held open
	// instead, until the client leaves.
	if err := endOnceLeft(frames, leave); !errors.Is(err, context.Canceled) {
		t.Errorf("after the recorded events the stream ended by itself (%v), not by the client leaving", err)
	}
}

// endOnceLeft is what ends a stream after the events read so far once its client leaves
// (leave): the client's leaving for a stream held open, else the event that came.
func endOnceLeft(frames *protocol.FrameReader, leave context.CancelFunc) error {
	next := make(chan error, 1)
	go func() {
		f, err := frames.Next()
		if err == nil {
			err = fmt.Errorf("the replay sent %s after the recorded events", f.Data)
		}
		next <- err
	}()
	leave()
	return <-next
}

// A run that answers the session's interrupt and that the client stopped is placed in
// the session's fixture, as a stopped continuation of the run it answers: a replay of
// the session plays its events after the same answer, then holds the stream open.
func TestAStoppedContinuationIsPlacedInItsSession(t *testing.T) {
	t.Parallel()
	proxy, out, progress := slowlyRecording(t,
		"match: {message: ^ship$}\nsteps: [{interrupt: {message: Ship it, on: {resolved: [{text: '"+strings.Repeat("word ", 100)+"'}]}}}]\n")
	const ask = `{"threadId":"t","runId":"r1","protocolVersion":"1.1","messages":[{"id":"u1","role":"user","content":"ship"}]}`
	// resumeAndStop answers the interrupt, reads n events and leaves; it returns the
	// events read, and what ended the stream after them once the client left (nil when
	// it is not waited for).
	resumeAndStop := func(base, interrupt string, n int, wait bool) ([]string, error) {
		ctx, leave := context.WithCancel(t.Context())
		defer leave()
		body := `{"threadId":"t","runId":"r2","protocolVersion":"1.1","messages":[{"id":"u1","role":"user","content":"ship"}],"resume":[{"interruptId":"` + interrupt + `","status":"resolved"}]}`
		req, _ := http.NewRequestWithContext(ctx, "POST", base+"/agui/chat", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		frames := protocol.NewFrameReader(resp.Body, 1<<20)
		var read []string
		for range n {
			f, err := frames.Next()
			if err != nil {
				t.Fatalf("event %d: %v", len(read)+1, err)
			}
			read = append(read, f.Data)
		}
		if !wait {
			return read, nil
		}
		return read, endOnceLeft(frames, leave)
	}
	first, _ := client{t, proxy}.run(ask)
	<-progress
	resumeAndStop(proxy, interruptIDs(first)[0], 3, false)
	if line := <-progress; !strings.Contains(line, "stopped by the client: it replays its events, then holds the stream open") {
		t.Errorf("recorder line: %s", line)
	}
	if kept, _ := filepath.Glob(filepath.Join(out, ".incomplete", "*.yaml")); len(kept) != 0 {
		t.Errorf("the stopped continuation was kept apart: %v", kept)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	if len(files) != 1 {
		t.Fatalf("recorded files %v, want the session's one", files)
	}
	fixture := readFile(t, files[0])
	branch := fixture[strings.Index(fixture, "next:"):]
	recorded := strings.Count(branch, "type: ")
	if want := fmt.Sprintf("next:\n  - when: {resume: [{status: resolved}]}\n    stopped: the client stopped the run while it was recorded, after %d events\n    events:\n", recorded); !strings.HasPrefix(branch, want) || strings.Contains(branch, "RUN_FINISHED") {
		t.Errorf("the continuation is not placed as stopped after the interrupt (want %q):\n%s", want, fixture)
	}

	replayCfg := server.DefaultConfig()
	replayCfg.Speed = 0 // a terminal event would be written at once: the stream is held open instead
	replay := serverFor(t, replayCfg, scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
	paused, _ := client{t, replay.URL}.run(ask)
	events, ended := resumeAndStop(replay.URL, interruptIDs(paused)[0], recorded, true)
	if !errors.Is(ended, context.Canceled) {
		t.Errorf("after the recorded events the stream ended by itself (%v), not by the client leaving", ended)
	}
	for i, data := range events {
		if strings.Contains(data, `"RUN_FINISHED"`) || strings.Contains(data, `"RUN_ERROR"`) {
			t.Errorf("event %d of the replayed continuation is a terminal event: %s", i+1, data)
		}
	}
}
