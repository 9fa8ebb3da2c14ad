package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/testctl"
)

// journalScenarios answer "hello", ask for approval on "ask", and echo a message that
// starts with "echo"; anything else matches none of them.
const journalScenarios = `
id: hello
match: {message: ^hello$}
steps: [{text: hi}]
---
id: ask
match: {message: ^ask$}
steps:
  - interrupt: {id: approve}
  - text: approved
---
id: echo
match: {message: '(?s)^echo'}
steps: [{text: '{{ .message }}'}]
`

// journaledEntries returns the journal's entries as the admin API lists them.
func journaledEntries(t *testing.T, s *Server) []JournalEntry {
	t.Helper()
	status, body := call(t, s, http.MethodGet, AdminPrefix+"/journal", "", nil)
	var j struct{ Entries []JournalEntry }
	if err := json.Unmarshal([]byte(body), &j); err != nil || status != http.StatusOK {
		t.Fatalf("journal: %d %s %v", status, body, err)
	}
	return j.Entries
}

// holdStream opens a run on thread "busy" that pauses before its first event, until
// the test ends.
func holdStream(t *testing.T, s *Server) {
	t.Helper()
	status, body := call(t, s, http.MethodPost, AdminPrefix+"/breakpoints", `{"event":0}`, nil)
	var bp testctl.Breakpoint
	if err := json.Unmarshal([]byte(body), &bp); err != nil || status != http.StatusCreated {
		t.Fatalf("breakpoint: %d %s", status, body)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		post(t.Context(), s, "/agui/chat", `{"threadId":"busy","messages":[{"role":"user","content":"hello"}]}`, authorized)
	}()
	t.Cleanup(func() {
		call(t, s, http.MethodPost, AdminPrefix+"/reset", "", nil) // releases the stream
		<-done
	})
	if status, body := call(t, s, http.MethodGet, AdminPrefix+"/breakpoints/"+bp.ID+"?wait=5s", "", nil); status != http.StatusOK {
		t.Fatalf("the stream did not reach the breakpoint: %d %s", status, body)
	}
}

// authorized carries the token of the servers of TestEveryAnswerIsJournaled.
var authorized = map[string]string{"Authorization": "Bearer s3cret"}

func TestEveryAnswerIsJournaled(t *testing.T) {
	t.Parallel() // its 409 waits a second for the busy thread
	run := func(message string) string {
		return `{"threadId":"t1","messages":[{"role":"user","content":"` + message + `"}]}`
	}
	tests := []struct {
		name               string
		setup              func(t *testing.T, s *Server)
		method, path, body string
		header             map[string]string // besides Content-Type: application/json
		status             int
		code, reason       string // the entry's error and the start of its reason
	}{
		{"a run", nil, "POST", "/agui/chat", run("hello"), authorized, 200, "", ""},
		{"401: no token", nil, "POST", "/agui/chat", run("hello"), nil, 401, "unauthorized", "missing Authorization header: send Authorization: Bearer <token>"},
		{"401: a wrong token", nil, "POST", HistoryPath, `{"threadId":"t1"}`, map[string]string{"Authorization": "Bearer guess"}, 401, "unauthorized", "the bearer token is not valid"},
		{"401: the token without its scheme", nil, "POST", CancelPath, `{"threadId":"t1"}`, map[string]string{"Authorization": "s3cret"}, 401, "unauthorized", "the Authorization header names no scheme"},
		{"401: the token before another word", nil, "POST", "/agui/chat", run("hello"), map[string]string{"Authorization": "s3cret more"}, 401, "unauthorized", "the Authorization header does not start with a known scheme"},
		{"400: a broken body", nil, "POST", "/agui/chat", `{"messages":`, authorized, 400, "invalid_input", "invalid RunAgentInput: "},
		{"403: an injected fault", nil, "POST", "/agui/chat", run("hello"), plus(authorized, FaultHeader, "status; status=403"), 403, "injected_fault", "an injected 403 answer"},
		{"404: no endpoint", nil, "POST", "/nowhere", `{}`, authorized, 404, "not_found", "no endpoint at /nowhere"},
		{"404: no scenario", nil, "POST", "/agui/chat", run("something else"), authorized, 404, "no_scenario", "no scenario matches this request"},
		{"404: an unknown thread", nil, "POST", HistoryPath, `{"threadId":"nope"}`, authorized, 404, "unknown_thread", "no thread nope"},
		{"405: a method the endpoint does not take", nil, "GET", HistoryPath, "", authorized, 405, "method_not_allowed", "/agui/history takes POST, not GET"},
		{"405: a method no route takes", nil, "PURGE", "/agui/chat", "", authorized, 405, "method_not_allowed", "/agui/chat takes POST, not PURGE"},
		{"409: interrupts pending", func(t *testing.T, s *Server) {
			if rec := post(t.Context(), s, "/agui/chat", run("ask"), authorized); rec.status != http.StatusOK {
				t.Fatalf("first run: %d %s", rec.status, rec.body())
			}
		}, "POST", "/agui/chat", run("hello"), authorized, 409, "interrupts_pending", "the thread waits for answers to 1 interrupt(s)"},
		{"409: a run in progress", holdStream, "POST", "/agui/chat", `{"threadId":"busy","messages":[]}`, authorized, 409, "run_in_progress", "run run-"},
		{"413: a body over --max-body", func(t *testing.T, s *Server) { s.cfg.MaxBodyBytes = 1024 }, "POST", "/agui/chat", run(strings.Repeat("x", 2048)), authorized, 413, "body_too_large", "the body exceeds the limit of 1024 bytes"},
		{"415: not JSON", nil, "POST", "/agui/chat", run("hello"), plus(authorized, "Content-Type", "text/plain"), 415, "unsupported_media_type", "the body must be JSON"},
		{"429: an injected fault", nil, "POST", "/agui/chat", run("hello"), plus(authorized, FaultHeader, "status; status=429; retryAfter=3"), 429, "injected_fault", "an injected 429 answer"},
		{"429: an injected fault with a body of its own", nil, "POST", "/agui/chat", run("hello"), plus(authorized, FaultHeader, `status; status=429; body={"error":"rate"}`), 429, "injected_fault", "an injected 429 answer"},
		{"500: a scenario that fails", nil, "POST", "/agui/chat", run("echo " + strings.Repeat("w ", scenarios.MaxRunEvents)), authorized, 500, "scenario_failed", "scenario echo: "},
		{"500: a panic", func(t *testing.T, s *Server) {
			s.echo.POST("/panics", func(echo.Context) error { panic("boom") })
		}, "POST", "/panics", `{}`, authorized, 500, "internal_error", "panic: boom"},
		{"503: too many streams", func(t *testing.T, s *Server) {
			s.cfg.MaxStreams = 1
			holdStream(t, s)
		}, "POST", "/agui/chat", run("hello"), authorized, 503, "too_many_streams", "1 streams are open"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, journalScenarios, func(c *Config) { c.Speed, c.AuthToken = 0, "s3cret" })
			if tt.setup != nil {
				tt.setup(t, s)
			}
			before := len(journaledEntries(t, s))
			req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Errorf("answered %d %s, want %d", rec.Code, rec.Body, tt.status)
			}
			entries := journaledEntries(t, s)
			if len(entries) != before+1 {
				t.Fatalf("the journal has %d new entries, want 1: %+v", len(entries)-before, entries)
			}
			e := entries[len(entries)-1]
			if e.Method != tt.method || e.Path != tt.path || e.Status != tt.status || e.Error != tt.code || !strings.HasPrefix(e.Reason, tt.reason) || (tt.reason == "") != (e.Reason == "") {
				t.Errorf("journaled %s %s %d error %q reason %q, want %s %s %d error %q reason %q…",
					e.Method, e.Path, e.Status, e.Error, e.Reason, tt.method, tt.path, tt.status, tt.code, tt.reason)
			}
			if _, body := call(t, s, http.MethodGet, AdminPrefix+"/journal", "", nil); strings.Contains(body, "s3cret") || strings.Contains(body, "guess") {
				t.Errorf("the journal shows a token: %s", body)
			}
		})
	}
}

// plus returns header with one more header.
func plus(header map[string]string, name, value string) map[string]string {
	merged := map[string]string{name: value}
	for k, v := range header {
		merged[k] = v
	}
	return merged
}

func TestTheAdminAPIMetricsAndPreflightsAreNotJournaled(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.Metrics = true })
	for _, req := range []*http.Request{
		httptest.NewRequest(http.MethodGet, AdminPrefix+"/status", nil),
		httptest.NewRequest(http.MethodGet, AdminPrefix+"/nothing-here", nil),
		httptest.NewRequest(http.MethodGet, metricsPath, nil),
		httptest.NewRequest(http.MethodOptions, "/agui/chat", nil),
	} {
		req.Header.Set("Origin", "http://localhost:3000")
		s.Handler().ServeHTTP(httptest.NewRecorder(), req)
	}
	if entries := journaledEntries(t, s); len(entries) != 0 {
		t.Errorf("journaled %+v", entries)
	}
}

func TestTheJournalFilterTakesARouteWithOrWithoutItsTrailingSlash(t *testing.T) {
	f := JournalFilter{Path: "/agui/chat"}
	if !f.matches(JournalEntry{Path: "/agui/chat/"}) || !f.matches(JournalEntry{Path: "/agui/chat"}) || f.matches(JournalEntry{Path: "/agui/chats"}) {
		t.Error("the route filter does not compare paths as the router does")
	}
}

func TestTheJournalKeepsBodiesAsSent(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.Speed = 0 })
	long := `{"threadId":"t","messages":[{"role":"user","content":"` + strings.Repeat("x", maxJournaledBody) + `"}]}`
	for _, body := range []string{`{"threadId":"t","messages":[`, long} {
		if rec := post(t.Context(), s, "/agui/chat", body, map[string]string{TestIDHeader: "bodies"}); rec.status != 400 && rec.status != 200 {
			t.Fatalf("%d %s", rec.status, rec.body())
		}
	}
	status, body := call(t, s, "GET", AdminPrefix+"/journal", "", map[string]string{TestIDHeader: "bodies"})
	var j struct{ Entries []JournalEntry }
	if err := json.Unmarshal([]byte(body), &j); err != nil || status != 200 || len(j.Entries) != 2 {
		t.Fatal(status, body, err)
	}
	if got := j.Entries[0].Request; got != `{"threadId":"t","messages":[` {
		t.Errorf("a body that is not JSON is kept as text; got %#v", got)
	}
	if got, _ := j.Entries[1].Request.(string); got != long[:maxJournaledBody] {
		t.Errorf("a body over the limit keeps its first %d bytes, as text; got %d bytes", maxJournaledBody, len(got))
	}
}
