package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/testctl"
)

// call sends an admin or API request to the handler and returns the status and body.
// An admin request carries the server's admin token, if it has one, unless header sets
// Authorization.
func call(t *testing.T, s *Server, method, path, body string, header map[string]string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token := ResolveAdminToken(s.cfg.AdminToken, s.cfg.AuthToken); token != "" && isAdminPath(req.URL.Path) {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

func TestRuntimeScenarios(t *testing.T) {
	s := newServer(t, "id: file-one\nmatch: {message: one}\nsteps: [{text: from the file}]\n", func(c *Config) { c.Speed = 0 })
	status, body := call(t, s, "POST", AdminPrefix+"/scenarios", "id: added\nmatch: {message: two}\nsteps: [{text: added at run time}]\n", map[string]string{"Content-Type": "application/yaml"})
	if status != 201 || !strings.Contains(body, `"added":["added"]`) {
		t.Fatalf("add: %d %s", status, body)
	}
	if rec := post(t.Context(), s, "/", `{"messages":[{"role":"user","content":"two"}]}`, nil); !strings.Contains(rec.body(), `"delta":"added "`) {
		t.Errorf("the added scenario is not served:\n%s", rec.body())
	}
	status, body = call(t, s, "POST", AdminPrefix+"/scenarios", `{"id":"bad","steps":[{"txt":"x"}]}`, nil)
	if status != 422 || !strings.Contains(body, `"error":"invalid_scenario"`) || !strings.Contains(body, `"line":1`) || !strings.Contains(body, `unknown key \"txt\"`) {
		t.Errorf("a bad scenario: %d %s", status, body)
	}
	if status, body = call(t, s, "DELETE", AdminPrefix+"/scenarios/file-one", "", nil); status != 409 || !strings.Contains(body, "not_runtime") {
		t.Errorf("removing a file's scenario: %d %s", status, body)
	}
	if status, _ = call(t, s, "DELETE", AdminPrefix+"/scenarios/added", "", nil); status != 204 {
		t.Errorf("removing: %d", status)
	}
	if status, _ = call(t, s, "DELETE", AdminPrefix+"/scenarios/added", "", nil); status != 404 {
		t.Errorf("removing twice: %d", status)
	}
	if status, body = call(t, s, "GET", AdminPrefix+"/readyz", "", nil); status != 200 || !strings.Contains(body, `"scenarios":1`) {
		t.Errorf("readyz: %d %s", status, body)
	}
}

func TestARuntimeScenarioHasTheSizeLimitOfAFile(t *testing.T) {
	t.Parallel()
	s := newServer(t, "", nil) // a run's body may be 10 MiB
	text := strings.Repeat("word ", scenarios.MaxFileBytes/5-20)
	yaml := func(id string) string {
		return "id: " + id + "\nmatch: {message: big}\nsteps: [{text: " + text + ", chunk: none}]\n"
	}
	status, body := call(t, s, "POST", AdminPrefix+"/scenarios", yaml("too-big")+"# "+strings.Repeat("x", 1<<20)+"\n", map[string]string{"Content-Type": "application/yaml"})
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(body, `"error":"body_too_large"`) || !strings.Contains(body, fmt.Sprintf("the limit of %d bytes", scenarios.MaxFileBytes)) {
		t.Errorf("a body larger than a scenario file: %d %.300s", status, body)
	}
	if status, body := call(t, s, "POST", AdminPrefix+"/scenarios", yaml("fits"), map[string]string{"Content-Type": "application/yaml"}); status != http.StatusCreated {
		t.Errorf("a body within the limit: %d %.300s", status, body)
	}
}

func TestForcingAScenario(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.Speed = 0 })
	ask := func(header map[string]string) string {
		rec := post(t.Context(), s, "/agui/chat", `{"messages":[{"role":"user","content":"hello"}]}`, header)
		var text strings.Builder
		for _, ev := range rec.events(t) {
			text.WriteString(ev.Str("delta"))
		}
		return text.String()
	}
	if got := ask(map[string]string{ScenarioHeader: "run-error"}); !strings.HasPrefix(got, "Let me look into that") {
		t.Errorf("forced by header: %q", got)
	}
	if status, body := call(t, s, "POST", AdminPrefix+"/force", `{"scenario":"run-error","times":2}`, map[string]string{TestIDHeader: "t1"}); status != 200 {
		t.Fatalf("force: %d %s", status, body)
	}
	other := ask(map[string]string{TestIDHeader: "t2"})
	first, second, third := ask(map[string]string{TestIDHeader: "t1"}), ask(map[string]string{TestIDHeader: "t1"}), ask(map[string]string{TestIDHeader: "t1"})
	if strings.HasPrefix(other, "Let me") || !strings.HasPrefix(first, "Let me") || !strings.HasPrefix(second, "Let me") || strings.HasPrefix(third, "Let me") {
		t.Errorf("forced twice for t1 only: t2 %q, t1 %q %q %q", other, first, second, third)
	}
	if status, _ := call(t, s, "POST", AdminPrefix+"/force", `{"scenario":"nope"}`, nil); status != 404 {
		t.Errorf("forcing an unknown scenario: %d", status)
	}
	if status, _ := call(t, s, "POST", AdminPrefix+"/force", `{"scenario":"run-error","tims":1}`, nil); status != 400 {
		t.Errorf("a typo in an admin body: %d", status)
	}
}

func TestTestIDsIsolateThreadsAndTheJournal(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.Speed = 0 })
	body := `{"threadId":"shared","runId":"r1","messages":[{"role":"user","content":"Search for ocean wave videos and trim the first 10 seconds"}],"forwardedProps":{"scenario_name":"media_management"}}`
	for _, test := range []string{"a", "b"} {
		if rec := post(t.Context(), s, "/agui/chat", body, map[string]string{TestIDHeader: test}); rec.status != 200 {
			t.Fatalf("test %s: %d %s", test, rec.status, rec.body())
		}
	}
	// each test's thread waits for its own answers; a third test has no such thread
	if status, _ := call(t, s, "POST", HistoryPath, `{"threadId":"shared"}`, map[string]string{TestIDHeader: "c"}); status != 404 {
		t.Errorf("another test's thread is visible: %d", status)
	}
	status, body := call(t, s, "GET", AdminPrefix+"/journal?route=/agui/chat", "", map[string]string{TestIDHeader: "a"})
	var j struct{ Entries []JournalEntry }
	if err := json.Unmarshal([]byte(body), &j); err != nil || status != 200 {
		t.Fatal(status, body, err)
	}
	if len(j.Entries) != 1 || j.Entries[0].TestID != "a" || j.Entries[0].ThreadID != "shared" || j.Entries[0].Scenario != "media-management" ||
		j.Entries[0].Outcome != "interrupt" || j.Entries[0].Status != 200 || j.Entries[0].Request.(map[string]any)["runId"] != "r1" {
		t.Errorf("journal of test a: %+v", j.Entries)
	}
	if status, _ := call(t, s, "POST", AdminPrefix+"/reset", "", map[string]string{TestIDHeader: "a"}); status != 204 {
		t.Fatal(status)
	}
	if status, _ := call(t, s, "POST", HistoryPath, `{"threadId":"shared"}`, map[string]string{TestIDHeader: "a"}); status != 404 {
		t.Errorf("reset left test a's thread: %d", status)
	}
	if status, _ := call(t, s, "POST", HistoryPath, `{"threadId":"shared"}`, map[string]string{TestIDHeader: "b"}); status != 200 {
		t.Errorf("resetting test a removed test b's thread: %d", status)
	}
}

func TestBreakpointsPauseAStreamUntilReleased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		yaml := "timing: {firstEvent: 0, firstToken: 0, stepGap: 100ms, tokensPerSecond: 10, jitter: 0}\nsteps:\n  - text: before\n  - text: after the breakpoint\n    id: answer\n"
		s := newServer(t, yaml, nil)
		status, body := call(t, s, "POST", AdminPrefix+"/breakpoints", `{"step":"answer"}`, map[string]string{TestIDHeader: "t1"})
		var bp testctl.Breakpoint
		if err := json.Unmarshal([]byte(body), &bp); err != nil || status != 201 {
			t.Fatal(status, body)
		}
		done := make(chan *streamRecorder)
		go func() {
			done <- post(t.Context(), s, "/", `{"threadId":"th","messages":[]}`, map[string]string{TestIDHeader: "t1"})
		}()
		status, body = call(t, s, "GET", AdminPrefix+"/breakpoints/"+bp.ID+"?wait=10s", "", nil)
		if status != 200 || !strings.Contains(body, `"reached":true`) || !strings.Contains(body, `"threadId":"th"`) {
			t.Fatalf("wait: %d %s", status, body)
		}
		time.Sleep(time.Minute) // the stream stays paused as long as the test looks
		call(t, s, "POST", AdminPrefix+"/breakpoints/"+bp.ID+"/release", "", nil)
		rec := <-done
		got := eventTimes(rec)
		// paused at 100 ms, before the answer's first event, for the minute the test looked
		if got[3] != "0s TEXT_MESSAGE_END" || got[4] != "1m0.1s TEXT_MESSAGE_START" || got[len(got)-1] != "1m0.4s RUN_FINISHED" {
			t.Errorf("timeline %q", got)
		}
		// a breakpoint of another test does not stop this one
		call(t, s, "POST", AdminPrefix+"/breakpoints", `{"event":0}`, map[string]string{TestIDHeader: "t2"})
		if rec := post(t.Context(), s, "/", `{"messages":[]}`, map[string]string{TestIDHeader: "t3"}); len(rec.events(t)) != len(got) {
			t.Error("another test's breakpoint paused the stream")
		}
		if status, _ := call(t, s, "GET", AdminPrefix+"/breakpoints/nope", "", nil); status != 404 {
			t.Errorf("unknown breakpoint: %d", status)
		}
	})
}

func TestMetrics(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.Speed = 0; c.Metrics = true })
	post(t.Context(), s, "/agui/chat", `{"messages":[{"role":"user","content":"fail please"}]}`, nil)
	status, body := call(t, s, "GET", "/metrics", "", nil)
	for _, want := range []string{`agui_mock_runs_total{scenario="run-error",outcome="error"} 1`, "agui_mock_active_streams 0", "agui_mock_events_total ", `agui_mock_reloads_total{result="ok"} 0`, "agui_mock_threads 1", "agui_mock_thread_bytes ", "agui_mock_threads_shed_total 0"} {
		if status != 200 || !strings.Contains(body, want) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}
}

func TestAStreamPausedBeforeItsFirstEventHasSentItsHeaders(t *testing.T) {
	s := newServer(t, "steps: [{text: hi}]\n", func(c *Config) { c.Speed = 0 })
	ts := startHTTP(t, s)
	t.Cleanup(func() { call(t, s, "POST", AdminPrefix+"/reset", "", nil) }) // a paused stream would hold the server open
	tagged := map[string]string{TestIDHeader: "t1"}
	status, body := call(t, s, "POST", AdminPrefix+"/breakpoints", `{"event":0}`, tagged)
	var bp testctl.Breakpoint
	if err := json.Unmarshal([]byte(body), &bp); err != nil || status != 201 {
		t.Fatal(status, body)
	}
	req, _ := http.NewRequest("POST", ts.URL+"/agui/chat", strings.NewReader(`{"messages":[]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(TestIDHeader, "t1")
	got := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
		}
		got <- resp
	}()
	if status, body := call(t, s, "GET", AdminPrefix+"/breakpoints/"+bp.ID+"?wait=10s", "", nil); status != 200 {
		t.Fatalf("wait: %d %s", status, body)
	}
	var resp *http.Response
	select {
	case resp = <-got: // the stream is still paused: only its headers have come
	case <-time.After(10 * time.Second):
		t.Fatal("a stream paused before its first event has sent no headers")
	}
	if resp == nil {
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
		t.Errorf("paused stream's head: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	call(t, s, "POST", AdminPrefix+"/breakpoints/"+bp.ID+"/release", "", nil)
	rest, err := io.ReadAll(resp.Body)
	if events, _ := protocol.ReadEvents(strings.NewReader(string(rest)), 1<<20); err != nil || len(events) == 0 || events[0].Type != protocol.RunStarted {
		t.Errorf("after the release: %v %v", err, types(events))
	}
}

func TestAdminBodiesOfTheWrongTypeNameTheMember(t *testing.T) {
	s := newServer(t, "", nil)
	for _, tt := range []struct{ path, body, field, want string }{
		{"/faults", `{"kind":"status","status":"429"}`, "status", "status must be an integer, got a string"},
		{"/faults", `{"kind":"stall","keepAlive":"yes"}`, "keepAlive", "keepAlive must be true or false, got a string"},
		{"/faults", `{"kind":"status","status":429,"times":1.5}`, "times", "times must be an integer, got the number 1.5"},
		{"/force", `{"scenario":["showcase"]}`, "scenario", "scenario must be a string, got an array"},
		{"/breakpoints", `{"event":"0"}`, "event", "event must be an integer, got a string"},
		{"/breakpoints", `[]`, "", "the body must be an object, got an array"},
		{"/force", `{"scenario":"showcase","tims":1}`, "tims", `unknown member "tims"`},
	} {
		t.Run(tt.path+" "+tt.body, func(t *testing.T) {
			status, body := call(t, s, "POST", AdminPrefix+tt.path, tt.body, nil)
			var answer errorBody
			if err := json.Unmarshal([]byte(body), &answer); err != nil || status != 400 {
				t.Fatal(status, body)
			}
			if answer.Error != "invalid_input" || answer.Field != tt.field || !strings.Contains(answer.Message, tt.want) || strings.Contains(answer.Message, "Go ") {
				t.Errorf("got %+v, want field %q and %q", answer, tt.field, tt.want)
			}
		})
	}
}

func TestABreakpointOnAStepTheScenarioLacksIsRefused(t *testing.T) {
	s := newServer(t, "id: nested\nsteps:\n  - step:\n      name: outer\n      steps:\n        - text: inside\n          id: inner\n  - text: after\n    id: last\n", nil)
	if status, body := call(t, s, "POST", AdminPrefix+"/breakpoints", `{"scenario":"nested","step":"inner"}`, nil); status != 201 {
		t.Errorf("a nested step: %d %s", status, body)
	}
	status, body := call(t, s, "POST", AdminPrefix+"/breakpoints", `{"scenario":"nested","step":"nope"}`, nil)
	var answer errorBody
	if err := json.Unmarshal([]byte(body), &answer); err != nil || status != 404 {
		t.Fatal(status, body)
	}
	if answer.Error != "unknown_step" || answer.Field != "step" || !strings.Contains(answer.Message, `scenario "nested" has no step "nope"`) || !strings.Contains(answer.Message, "its step ids: inner, last") {
		t.Errorf("got %+v", answer)
	}
}

func TestAdminBodiesAreExactlyOneObject(t *testing.T) {
	s := newServer(t, "", nil)
	js := map[string]string{"Content-Type": "application/json"}
	for _, tt := range []struct{ path, body, want string }{
		{"/faults", `{"kind":"runError"} x`, "unexpected data after the JSON value"},
		{"/force", `{"scenario":"run-error"} garbage`, "unexpected data after the JSON value"},
		{"/breakpoints", `{"event":0}{"event":1}`, "unexpected data after the JSON value"},
		{"/force", `{"scenario":"run-error"} null`, "unexpected data after the JSON value"},
		{"/force", ``, "the body is empty"},
		{"/faults", `  `, "the body is empty"},
		{"/force", `null`, "the body must be an object, got null"},
		{"/faults", `"runError"`, "the body must be an object, got a string"},
		{"/breakpoints", `7`, "the body must be an object, got a number"},
	} {
		t.Run(tt.path+" "+tt.body, func(t *testing.T) {
			status, body := call(t, s, "POST", AdminPrefix+tt.path, tt.body, js)
			var answer errorBody
			if err := json.Unmarshal([]byte(body), &answer); err != nil || status != 400 {
				t.Fatal(status, body)
			}
			if answer.Error != "invalid_input" || answer.Field != "" || !strings.Contains(answer.Message, tt.want) {
				t.Errorf("got %+v, want %q", answer, tt.want)
			}
		})
	}
	// one object, and the white space after it, is fine
	if status, body := call(t, s, "POST", AdminPrefix+"/force", "{\"scenario\":\"run-error\"}\n\t ", js); status != 200 {
		t.Errorf("an object and white space: %d %s", status, body)
	}
}

func TestAdminBodiesHaveTheBodySizeLimit(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.MaxBodyBytes = 64 })
	big := `{"scenario":"run-error","times":1` + strings.Repeat(" ", 64) + `}`
	for _, path := range []string{"/force", "/faults", "/breakpoints"} {
		status, body := call(t, s, "POST", AdminPrefix+path, big, map[string]string{"Content-Type": "application/json"})
		if status != http.StatusRequestEntityTooLarge || !strings.Contains(body, `"body_too_large"`) {
			t.Errorf("%s: %d %s", path, status, body)
		}
	}
}

func TestAdminBodiesNeedTheirRequiredMembers(t *testing.T) {
	s := newServer(t, "", nil)
	for _, tt := range []struct{ path, body, field, want string }{
		{"/force", `{}`, "scenario", "scenario is required"},
		{"/force", `{"scenario":"","times":2}`, "scenario", "scenario is required"},
		{"/faults", `{}`, "kind", "kind is required: one of"},
		{"/faults", `{"times":3}`, "kind", "kind is required: one of"},
	} {
		t.Run(tt.path+" "+tt.body, func(t *testing.T) {
			status, body := call(t, s, "POST", AdminPrefix+tt.path, tt.body, nil)
			var answer errorBody
			if err := json.Unmarshal([]byte(body), &answer); err != nil || status != 400 {
				t.Fatal(status, body)
			}
			if answer.Error != "invalid_input" || answer.Field != tt.field || !strings.Contains(answer.Message, tt.want) {
				t.Errorf("got %+v, want field %q and %q", answer, tt.field, tt.want)
			}
		})
	}
}

func TestABreakpointOnANegativeEventIsRefused(t *testing.T) {
	s := newServer(t, "", nil)
	for _, body := range []string{`{"event":-1}`, `{"scenario":"showcase","event":-5}`} {
		status, answerBody := call(t, s, "POST", AdminPrefix+"/breakpoints", body, nil)
		var answer errorBody
		if err := json.Unmarshal([]byte(answerBody), &answer); err != nil || status != 400 {
			t.Fatal(body, status, answerBody)
		}
		if answer.Error != "invalid_input" || answer.Field != "event" || !strings.Contains(answer.Message, "event must be 0 (the run's first event) or more") ||
			!strings.Contains(answer.Message, "could never be reached") {
			t.Errorf("%s: got %+v", body, answer)
		}
	}
	if status, body := call(t, s, "POST", AdminPrefix+"/breakpoints", `{"scenario":"showcase","event":0}`, nil); status != 201 {
		t.Errorf("a breakpoint on the first event: %d %s", status, body)
	}
}

// A long poll of a breakpoint ends when the server shuts down, so that it does not hold
// the shutdown up for the rest of its wait.
func TestABreakpointLongPollEndsOnShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, "", nil)
		_, body := call(t, s, "POST", AdminPrefix+"/breakpoints", `{"event":0}`, map[string]string{TestIDHeader: "t1"})
		var bp testctl.Breakpoint
		if err := json.Unmarshal([]byte(body), &bp); err != nil {
			t.Fatal(err)
		}
		answered := make(chan string, 1)
		go func() {
			status, body := call(t, s, "GET", AdminPrefix+"/breakpoints/"+bp.ID+"?wait=5m", "", nil)
			answered <- fmt.Sprint(status, " ", body)
		}()
		synctest.Wait()
		if err := s.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		select {
		case got := <-answered:
			if !strings.HasPrefix(got, "503 ") || !strings.Contains(got, `"server_shutdown"`) {
				t.Errorf("the poll answered %s", got)
			}
		default:
			t.Fatal("the long poll still waits after the shutdown")
		}
	})
}
