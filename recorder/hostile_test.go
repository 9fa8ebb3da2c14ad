package recorder_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
