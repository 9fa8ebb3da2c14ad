package server

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// boomScenario loops for good on the message "boom" only, so it passes its dry run.
const boomScenario = "id: boom\nsteps:\n  - text: '{{ if eq .message \"boom\" }}{{ range 1000000000000000000 }}{{ end }}{{ end }}fine'\n"

func TestARunPastATemplateLimitEndsWithARunErrorNamingIt(t *testing.T) {
	s := newServer(t, boomScenario, func(c *Config) { c.Speed = 0; c.TemplateLimits = scenarios.Limits{Iterations: 1000} })
	rec := post(t.Context(), s, "/agui/chat", `{"threadId":"t","runId":"r1","messages":[{"role":"user","content":"boom"}]}`, nil)
	events := rec.events(t)
	if rec.status != http.StatusOK || strings.Join(types(events), " ") != "RUN_STARTED RUN_ERROR" {
		t.Fatalf("%d %s", rec.status, rec.body())
	}
	if msg := events[1].Str("message"); events[1].Str("code") != "template_limit" || !strings.Contains(msg, "the limit of 1000 iterations (-template-iterations)") {
		t.Errorf("RUN_ERROR %v", events[1])
	}
	if _, err := protocol.CheckStream(events, "t"); err != nil {
		t.Errorf("the stream breaks the event rules: %v", err)
	}
	rec = post(t.Context(), s, "/agui/chat", `{"threadId":"t","runId":"r2","messages":[{"role":"user","content":"hello"}]}`, nil)
	if !strings.Contains(rec.body(), `"delta":"fine"`) {
		t.Errorf("the next run on the thread:\n%s", rec.body())
	}
}

func TestTemplatesStopWhenTheClientLeaves(t *testing.T) {
	s := newServer(t, boomScenario, func(c *Config) {
		c.Speed = 0
		c.TemplateLimits = scenarios.Limits{Iterations: math.MaxInt, Time: time.Hour}
	})
	ts := startHTTP(t, s)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/agui/chat", strings.NewReader(`{"messages":[{"role":"user","content":"boom"}]}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	testkit.Eventually(t, "the run is being planned", func() bool { return s.streams.Load() == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the request ended with %v", err)
	}
	testkit.Eventually(t, "the run's templates stop", func() bool { return s.streams.Load() == 0 })
}

// blockingFS holds the first Open of its slow file until released, so a test can act
// while a load is under way.
type blockingFS struct {
	fstest.MapFS
	opened, release chan struct{}
	once            sync.Once
}

func (b *blockingFS) Open(name string) (fs.File, error) {
	if strings.HasSuffix(name, "slow.yaml") {
		b.once.Do(func() {
			close(b.opened)
			<-b.release
		})
	}
	return b.MapFS.Open(name)
}

func TestTheAdminAPIAnswersWhileAReloadRuns(t *testing.T) {
	files := &blockingFS{MapFS: fstest.MapFS{"d/slow.yaml": {Data: []byte("id: slow\nsteps: [{text: hi}]\n")}},
		opened: make(chan struct{}), release: make(chan struct{})}
	s := newServer(t, "", func(c *Config) { c.Sources = []scenarios.Source{{FS: files, Root: "d", Label: "d"}} })
	reloaded := make(chan error)
	go func() { reloaded <- s.Reload(t.Context()) }()
	<-files.opened
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		for _, path := range []string{"/status", "/scenarios"} {
			if status, body := call(t, s, "GET", AdminPrefix+path, "", nil); status != http.StatusOK {
				t.Errorf("GET %s: %d %s", path, status, body)
			}
		}
	}()
	select {
	case <-answered:
	case <-time.After(10 * time.Second):
		t.Error("the admin API waits for the reload")
	}
	close(files.release)
	if err := <-reloaded; err != nil {
		t.Fatal(err)
	}
	<-answered
	if st := s.Status(); st.Reloads != 1 || st.Scenarios != 1 {
		t.Errorf("status %+v", st)
	}
}

func TestAReloadStopsWhenTheServerShutsDown(t *testing.T) {
	files := fstest.MapFS{"d/loop.yaml": {Data: []byte("id: loop\nsteps:\n  - text: '{{ range 1000000000000000000 }}{{ end }}'\n")}}
	s := newServer(t, "", func(c *Config) {
		c.Sources = []scenarios.Source{{FS: files, Root: "d", Label: "d"}}
		c.TemplateLimits = scenarios.Limits{Iterations: math.MaxInt, Time: time.Hour}
	})
	if err := s.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := s.Reload(t.Context()); !errors.Is(err, errShutdown) {
		t.Errorf("Reload returned %v, want the shutdown", err)
	}
	if st := s.Status(); st.Failed {
		t.Errorf("a stopped reload is no rejected one: %+v", st)
	}
}

func TestAScenarioThatNeverFinishesIsRefusedByTheAdminAPI(t *testing.T) {
	s := newServer(t, "", nil)
	status, body := call(t, s, "POST", AdminPrefix+"/scenarios", "id: loop\nsteps:\n  - text: 'x{{ range 1000000000000000000 }}{{ end }}'\n", nil)
	if status != http.StatusUnprocessableEntity || !strings.Contains(body, `"error":"invalid_scenario"`) ||
		!strings.Contains(body, "runtime-1.yaml:3:11: template runtime-1.yaml:3:11: the run's templates went past the limit of ") {
		t.Errorf("%d %s", status, body)
	}
	if status, body := call(t, s, "GET", AdminPrefix+"/status", "", nil); status != http.StatusOK || !strings.Contains(body, `"failed":true`) {
		t.Errorf("status: %d %s", status, body)
	}
}
