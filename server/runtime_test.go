package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

const runtimeScenarios = `id: hello
match: {message: hello}
steps: [{text: Hello there.}]
---
id: researcher
match: {agent: researcher}
steps: [{text: Researching.}]
---
id: slow
match: {message: slow}
timing: {firstEvent: 0s, firstToken: 1s, stepGap: 0s, tokensPerSecond: 1, jitter: 0}
steps:
  - text: one two three four
  - tool: {name: clarify, args: {q: x}}
---
id: publish
match: {message: publish}
steps:
  - text: Ready.
  - interrupt:
      id: int-publish
      reason: confirm
      on:
        - payload: {approved: true}
          steps: [{text: Published.}]
        - steps: [{text: Kept.}]
---
thread:
  threadId: from-file
  messages:
    - {role: user, content: hello}
    - {role: assistant, content: Hello from yesterday.}
`

// request sends a request with a body (or none) to the handler and returns its answer.
func request(t *testing.T, s *Server, method, path, body string, header map[string]string) *streamRecorder {
	t.Helper()
	var req *http.Request
	if body == "" {
		req = httptest.NewRequestWithContext(t.Context(), method, path, nil)
	} else {
		req = httptest.NewRequestWithContext(t.Context(), method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := newRecorder()
	s.Handler().ServeHTTP(rec, req)
	rec.Flush()
	return rec
}

// jsonOf decodes an answer's JSON body.
func jsonOf(t *testing.T, rec *streamRecorder) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(rec.body()), &out); err != nil {
		t.Fatalf("%d %q is not JSON: %v", rec.status, rec.body(), err)
	}
	return out
}

func TestTheRuntimesInfoListsTheScenariosAgents(t *testing.T) {
	s := newServer(t, runtimeScenarios, nil)
	info := jsonOf(t, request(t, s, http.MethodGet, "/copilotkit/info", "", nil))
	agents := info["agents"].(map[string]any)
	if len(agents) != 2 || agents["default"] == nil || agents["researcher"] == nil || info["version"] != "1.75.0" {
		t.Errorf("info %v", info)
	}
	envelope := jsonOf(t, request(t, s, http.MethodPost, "/copilotkit", `{"method":"info"}`, nil))
	if envelope["singleRoute"] == nil || envelope["threadEndpoints"].(map[string]any)["list"] != false {
		t.Errorf("info through the envelope %v", envelope)
	}
	shaped := request(t, s, http.MethodPost, "/_mock/copilotkit/info", `{"agents": {"writer": {"description": "Writes"}}, "a2uiEnabled": true}`, map[string]string{TestIDHeader: "t1"})
	if shaped.status != http.StatusOK {
		t.Fatalf("shaping %d %s", shaped.status, shaped.body())
	}
	info = jsonOf(t, request(t, s, http.MethodGet, "/copilotkit/info", "", map[string]string{TestIDHeader: "t1"}))
	if agents := info["agents"].(map[string]any); len(agents) != 1 || agents["writer"].(map[string]any)["description"] != "Writes" || info["a2uiEnabled"] != true {
		t.Errorf("shaped info %v", info)
	}
	run := request(t, s, http.MethodPost, "/copilotkit/agent/default/run", `{"threadId":"t","runId":"r","messages":[],"tools":[],"context":[]}`, map[string]string{TestIDHeader: "t1"})
	if body := jsonOf(t, run); run.status != 404 || body["error"] != "Agent not found" || body["message"] != "Agent 'default' does not exist" {
		t.Errorf("a run of an agent the shaping left out: %d %v", run.status, body)
	}
	if info := jsonOf(t, request(t, s, http.MethodGet, "/copilotkit/info", "", nil)); len(info["agents"].(map[string]any)) != 2 {
		t.Error("one test's shaping reached another's")
	}
	request(t, s, http.MethodDelete, "/_mock/copilotkit/info", "", map[string]string{TestIDHeader: "t1"})
	if info := jsonOf(t, request(t, s, http.MethodGet, "/copilotkit/info", "", map[string]string{TestIDHeader: "t1"})); len(info["agents"].(map[string]any)) != 2 {
		t.Error("DELETE kept the shaping")
	}
	for _, body := range []string{`{"agents": "default"}`, `{"agents": [""]}`, `{"agentz": []}`} {
		if rec := request(t, s, http.MethodPost, "/_mock/copilotkit/info", body, nil); rec.status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", body, rec.status, rec.body())
		}
	}
}

func TestTheRuntimesRoutesAnswerWhatTheRuntimeAnswers(t *testing.T) {
	s := newServer(t, runtimeScenarios, nil)
	for _, tt := range []struct {
		method, path, body string
		status             int
		answer             string
	}{
		{http.MethodPost, "/copilotkit/agent/nope/run", `{"threadId":"t","runId":"r","messages":[],"tools":[],"context":[]}`, 404, `{"error":"Agent not found","message":"Agent 'nope' does not exist"}`},
		{http.MethodPost, "/copilotkit/agent/nope/connect", `{"threadId":"t","runId":"r","messages":[],"tools":[],"context":[]}`, 404, `{"error":"Agent not found","message":"Agent 'nope' does not exist"}`},
		{http.MethodPost, "/copilotkit/agent/nope/stop/t", ``, 404, `{"error":"Agent not found","message":"Agent 'nope' does not exist"}`},
		{http.MethodPost, "/copilotkit/agent/default/stop/t", ``, 200, `{"message":"No active run for thread 't'.","stopped":false}`},
		{http.MethodPost, "/copilotkit/agent/default/stop/t", `{"runId":"r9"}`, 200, `{"message":"Run 'r9' is not the active run for thread 't'.","stopped":false}`},
		{http.MethodPost, "/copilotkit/agent/default/stop/t", `{"other":1}`, 400, `{"error":"Invalid stop request"}`},
		{http.MethodPost, "/copilotkit/agent/default/stop/t", `{"runId":" "}`, 400, `{"error":"Invalid runId"}`},
		{http.MethodPost, "/copilotkit/info", `{}`, 405, `{"error":"Method not allowed"}`},
		{http.MethodGet, "/copilotkit/nothing/here", ``, 404, `{"error":"Not found"}`},
		{http.MethodGet, "/copilotkit/memories", ``, 404, `{"error":"Not found"}`},
		{http.MethodGet, "/copilotkit", ``, 405, `{"error":"Method not allowed"}`},
		{http.MethodPost, "/copilotkit", `{"method":"agent/dance"}`, 400, `{"error":"invalid_request","message":"Unsupported method 'agent/dance'"}`},
		{http.MethodPost, "/copilotkit/threads/t/archive", `{}`, 422, `{"error":"Missing CopilotKitIntelligence configuration. Thread operations require a CopilotKitIntelligence instance to be provided in CopilotRuntime options."}`},
		{http.MethodGet, "/copilotkit/threads/unknown/messages", ``, 200, `{"messages":[]}`},
		{http.MethodGet, "/copilotkit/threads/unknown/events", ``, 200, `{"events":[]}`},
		{http.MethodGet, "/copilotkit/threads/unknown/state", ``, 200, `{"state":null}`},
		{http.MethodPost, "/copilotkit/agent/default/run", `{"threadId":5,"runId":"r","messages":[],"tools":[],"context":[]}`, 400, `{"details":"threadId: expected a string (RunAgentInput.threadId is required)","error":"Invalid request body"}`},
		{http.MethodPost, "/copilotkit/agent/default/connect", `{"threadId":"x"}`, 400, `{"details":"runId: expected a string (RunAgentInput.runId is required)","error":"Invalid request body"}`},
		{http.MethodPost, "/copilotkit", `{"method":"transcribe"}`, 400, `{"error":"invalid_request","message":"Missing request body for JSON handler"}`},
		{http.MethodPost, "/copilotkit/transcribe", `{}`, 503, `{"error":"service_not_configured","message":"Transcription service is not configured","retryable":false}`},
	} {
		rec := request(t, s, tt.method, tt.path, tt.body, nil)
		if got := strings.TrimSpace(rec.body()); rec.status != tt.status || got != tt.answer {
			t.Errorf("%s %s: %d %s\nwant %d %s", tt.method, tt.path, rec.status, got, tt.status, tt.answer)
		}
	}
	if rec := request(t, s, http.MethodPost, "/copilotkit/agent/default/connect", `{"threadId":"unknown","runId":"r","messages":[],"tools":[],"context":[]}`, nil); rec.status != 200 || rec.body() != "" || !strings.HasPrefix(rec.header.Get("Content-Type"), "text/event-stream") {
		t.Errorf("connect to an unknown thread: %d %q %v", rec.status, rec.body(), rec.header)
	}
	if rec := request(t, s, http.MethodGet, "/copilotkit/info", "", nil); rec.header.Get("Allow") != "" {
		t.Error("an answer that is no 405 says Allow")
	}
}

func TestARuntimeRunIsKeptAndReplayedOnConnect(t *testing.T) {
	s := newServer(t, runtimeScenarios, func(c *Config) { c.Speed = 0 })
	run := request(t, s, http.MethodPost, "/copilotkit/agent/researcher/run", `{"threadId":"t","runId":"r1","messages":[{"id":"u1","role":"user","content":"hi"}],"tools":[],"context":[]}`, nil)
	if strings.Contains(run.body(), "\nid: ") || strings.HasPrefix(run.body(), "id: ") {
		t.Errorf("the runtime's stream has id lines: %s", run.body())
	}
	events := run.events(t)
	input, _ := events[0].Get("input")
	if msgs, _ := input.(map[string]any)["messages"].([]any); len(msgs) != 1 || !strings.Contains(run.body(), "Researching") {
		t.Errorf("the run %v", types(events))
	}
	second := request(t, s, http.MethodPost, "/copilotkit/agent/researcher/run", `{"threadId":"t","runId":"r2","messages":[{"id":"u1","role":"user","content":"hi"},{"id":"u2","role":"user","content":"more"}],"tools":[],"context":[]}`, nil)
	input, _ = second.events(t)[0].Get("input")
	if msgs := input.(map[string]any)["messages"].([]any); len(msgs) != 1 || msgs[0].(map[string]any)["id"] != "u2" {
		t.Errorf("the second run's RUN_STARTED input holds %v, want the new message only", msgs)
	}
	connect := request(t, s, http.MethodPost, "/copilotkit/agent/researcher/connect", `{"threadId":"t","runId":"x","messages":[],"tools":[],"context":[]}`, nil)
	replay := connect.events(t)
	want := []string{protocol.RunStarted, protocol.TextMessageStart, protocol.TextMessageContent, protocol.TextMessageEnd, protocol.RunFinished,
		protocol.RunStarted, protocol.TextMessageStart, protocol.TextMessageContent, protocol.TextMessageEnd, protocol.RunFinished}
	if got := types(replay); !slices.Equal(got, want) {
		t.Errorf("replay %v, want %v", got, want)
	}
	var seq float64
	for _, e := range jsonOf(t, request(t, s, http.MethodGet, "/_mock/journal?route=/copilotkit/agent/researcher/run", "", nil))["entries"].([]any) {
		seq = e.(map[string]any)["seq"].(float64)
	}
	detail := jsonOf(t, request(t, s, http.MethodGet, "/_mock/journal/"+strconv.Itoa(int(seq)), "", nil))
	if checks, _ := json.Marshal(detail["match"]); !strings.Contains(string(checks), `"agent"`) || !strings.Contains(string(checks), `"held":true`) || strings.Contains(string(checks), `"held":false`) {
		t.Errorf("the inspector's match of a runtime run: %s", checks)
	}
	list := jsonOf(t, request(t, s, http.MethodGet, "/copilotkit/threads?agentId=researcher", "", nil))
	if threads := list["threads"].([]any); len(threads) != 1 || threads[0].(map[string]any)["id"] != "t" || list["nextCursor"] != nil {
		t.Errorf("list %v", list)
	}
	if list := jsonOf(t, request(t, s, http.MethodGet, "/copilotkit/threads?agentId=default", "", nil)); len(list["threads"].([]any)) != 1 || list["threads"].([]any)[0].(map[string]any)["id"] != "from-file" {
		t.Errorf("the default agent's threads: %v", list)
	}
	msgs := jsonOf(t, request(t, s, http.MethodGet, "/copilotkit/threads/t/messages", "", nil))["messages"].([]any)
	if len(msgs) != 4 {
		t.Errorf("messages %v", msgs)
	}
	resource := jsonOf(t, request(t, s, http.MethodPost, "/copilotkit", `{"method":"resource/request","params":{"path":"/threads/t/messages","httpMethod":"GET"}}`, nil))
	if len(resource["messages"].([]any)) != 4 {
		t.Errorf("through the envelope: %v", resource)
	}
	if rec := request(t, s, http.MethodPost, "/copilotkit/threads/clear", `{}`, nil); rec.status != http.StatusNoContent {
		t.Errorf("clear %d", rec.status)
	}
	if rec := request(t, s, http.MethodPost, "/copilotkit/agent/researcher/connect", `{"threadId":"t","runId":"x","messages":[],"tools":[],"context":[]}`, nil); rec.body() != "" {
		t.Errorf("a cleared thread replays %q", rec.body())
	}
}

func TestASecondRunOfABusyThreadGetsTheRuntimesEmptyStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, runtimeScenarios, nil)
		done := make(chan *streamRecorder)
		go func() {
			done <- post(t.Context(), s, "/copilotkit/agent/default/run", `{"threadId":"t","runId":"r1","messages":[{"id":"u","role":"user","content":"slow"}],"tools":[],"context":[]}`, nil)
		}()
		time.Sleep(time.Second)
		second := request(t, s, http.MethodPost, "/copilotkit/agent/default/run", `{"threadId":"t","runId":"r2","messages":[{"id":"v","role":"user","content":"hello"}],"tools":[],"context":[]}`, nil)
		if second.status != http.StatusOK || second.body() != "" || !strings.HasPrefix(second.header.Get("Content-Type"), "text/event-stream") {
			t.Errorf("the second run got %d %q %v", second.status, second.body(), second.header)
		}
		<-done
		entries := s.tests.Journal.List("", JournalFilter{Path: "/copilotkit/agent/default/run"}.matches)
		if len(entries) != 2 || entries[0].Error != "run_in_progress" || !strings.Contains(entries[0].Reason, "run r1 is still streaming") {
			t.Errorf("the journal does not say why: %+v", entries)
		}
	})
}

func TestTheStopRouteEndsTheStreamAsTheRuntimeDoes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, runtimeScenarios, nil)
		done := make(chan *streamRecorder)
		go func() {
			done <- post(t.Context(), s, "/copilotkit/agent/default/run", `{"threadId":"t","runId":"r1","messages":[{"id":"u","role":"user","content":"slow"}],"tools":[],"context":[]}`, nil)
		}()
		time.Sleep(2500 * time.Millisecond) // inside the text
		connected := make(chan *streamRecorder)
		go func() {
			connected <- post(t.Context(), s, "/copilotkit/agent/default/connect", `{"threadId":"t","runId":"x","messages":[],"tools":[],"context":[]}`, nil)
		}()
		time.Sleep(100 * time.Millisecond)
		answer := jsonOf(t, request(t, s, http.MethodPost, "/copilotkit/agent/default/stop/t", `{"runId":"r1"}`, nil))
		if answer["stopped"] != true || answer["interrupt"].(map[string]any)["code"] != "STOPPED" {
			t.Errorf("stop answered %v", answer)
		}
		events := (<-done).events(t)
		if last := events[len(events)-1]; last.Type != protocol.RunError || last.Str("code") != "abort" || events[len(events)-2].Type != protocol.TextMessageContent {
			t.Errorf("the stopped stream ends with %v %+v", types(events[len(events)-2:]), last)
		}
		followed := (<-connected).events(t)
		if !slices.Equal(types(followed), types(events)) {
			t.Errorf("the client that connected during the run followed %v, the run sent %v", types(followed), types(events))
		}
		entries := s.tests.Journal.List("", JournalFilter{Path: "/copilotkit/agent/default/run"}.matches)
		if len(entries) != 1 || entries[0].Outcome != protocol.OutcomeCancelled {
			t.Errorf("journal %+v", entries)
		}
	})
}

func TestSeededThreadsAreATestsOwnAndRestoreOnConnect(t *testing.T) {
	s := newServer(t, runtimeScenarios, func(c *Config) { c.Speed = 0 })
	alice := map[string]string{TestIDHeader: "alice"}
	seed := `{"threadId": "t", "scenario": "publish", "messages": [{"role": "user", "content": "publish"}, {"role": "assistant", "content": "Ready."}],
		"interrupts": [{"id": "my-int", "reason": "confirm"}], "state": {"draft": 7}}`
	rec := request(t, s, http.MethodPost, "/_mock/threads", seed, alice)
	answer := jsonOf(t, rec)
	if rec.status != http.StatusCreated || answer["agent"] != "default" || answer["awaiting"].(map[string]any)["interrupts"].([]any)[0] != "my-int" {
		t.Fatalf("seed %d %v", rec.status, answer)
	}
	replay := request(t, s, http.MethodPost, "/copilotkit/agent/default/connect", `{"threadId":"t","runId":"x","messages":[],"tools":[],"context":[]}`, alice).events(t)
	last := replay[len(replay)-1]
	if last.Type != protocol.RunFinished || last.Outcome()["type"] != "interrupt" || replay[len(replay)-2].Type != protocol.StateSnapshot {
		t.Errorf("replay %v, last %+v", types(replay), last)
	}
	if rec := request(t, s, http.MethodPost, "/copilotkit/agent/default/connect", `{"threadId":"t","runId":"x","messages":[],"tools":[],"context":[]}`, map[string]string{TestIDHeader: "bob"}); rec.body() != "" {
		t.Errorf("another test restores alice's thread: %q", rec.body())
	}
	resumed := request(t, s, http.MethodPost, "/copilotkit/agent/default/run", `{"threadId":"t","runId":"r2","messages":[],"resume":[{"interruptId":"my-int","status":"resolved","payload":{"approved":true}}],"tools":[],"context":[]}`, alice)
	if !strings.Contains(resumed.body(), "Published.") {
		t.Errorf("the answer to the seeded interrupt does not continue its scenario: %d %s", resumed.status, resumed.body())
	}
	for _, tt := range []struct{ body, field string }{
		{`{"threadId": "t", "messages": [{"role": "tool", "toolCallId": "x", "content": "r"}]}`, "messages[0].toolCallId"},
		{`{"threadId": "t", "scenario": "hello", "messages": [{"role": "user", "content": "hello"}], "interrupts": [{"id": "i", "reason": "r"}]}`, "scenario"},
		{`[]`, ""},
	} {
		rec := request(t, s, http.MethodPost, "/_mock/threads", tt.body, alice)
		if body := jsonOf(t, rec); rec.status != http.StatusBadRequest || body["error"] != "invalid_input" || (body["field"] != nil && body["field"] != tt.field) {
			t.Errorf("%s: %d %v, want the field %q", tt.body, rec.status, body, tt.field)
		}
	}
	// a thread document is every test's, until a test makes it its own
	for _, test := range []string{"alice", "bob"} {
		replay := request(t, s, http.MethodPost, "/copilotkit/agent/default/connect", `{"threadId":"from-file","runId":"x","messages":[],"tools":[],"context":[]}`, map[string]string{TestIDHeader: test})
		if !strings.Contains(replay.body(), "Hello from yesterday.") {
			t.Errorf("test %s: the thread document does not restore: %q", test, replay.body())
		}
	}
	request(t, s, http.MethodPost, "/copilotkit/agent/default/run", `{"threadId":"from-file","runId":"r","messages":[{"id":"n","role":"user","content":"hello"}],"tools":[],"context":[]}`, alice)
	if h := jsonOf(t, request(t, s, http.MethodPost, HistoryPath, `{"threadId":"from-file"}`, map[string]string{TestIDHeader: "bob"})); len(h["runs"].([]any)) != 1 {
		t.Errorf("alice's run reached bob's copy of the thread document: %v", h["runs"])
	}
	request(t, s, http.MethodPost, "/_mock/reset", "", alice)
	if h := jsonOf(t, request(t, s, http.MethodPost, HistoryPath, `{"threadId":"from-file"}`, alice)); len(h["runs"].([]any)) != 1 {
		t.Errorf("after a reset the thread document is not as it was: %v", h["runs"])
	}
}

func TestPagesOfOtherOriginsMayNotReadThreadsThroughTheRuntime(t *testing.T) {
	t.Parallel()
	s := newServer(t, runtimeScenarios, func(c *Config) { c.CORSOrigins = []string{"*", "http://app.test"} })
	for _, tt := range []struct {
		method, path, body string
	}{
		{http.MethodPost, "/copilotkit/agent/default/connect", `{"threadId":"from-file","runId":"x","messages":[],"tools":[],"context":[]}`},
		{http.MethodGet, "/copilotkit/threads", ``},
		{http.MethodGet, "/copilotkit/threads/from-file/messages", ``},
		{http.MethodPost, "/copilotkit/agent/default/stop/from-file", `{}`},
		{http.MethodPost, "/copilotkit", `{"method":"info"}`},
	} {
		if rec := request(t, s, tt.method, tt.path, tt.body, map[string]string{"Origin": "http://evil.test"}); rec.status != http.StatusForbidden || !strings.Contains(rec.body(), "--cors-origins http://evil.test") {
			t.Errorf("%s %s from another origin: %d %s", tt.method, tt.path, rec.status, rec.body())
		}
		if rec := request(t, s, tt.method, tt.path, tt.body, map[string]string{"Origin": "http://app.test"}); rec.status >= 400 {
			t.Errorf("%s %s from a listed origin: %d %s", tt.method, tt.path, rec.status, rec.body())
		}
	}
	preflight := request(t, s, http.MethodOptions, "/copilotkit/agent/default/connect", "", map[string]string{"Origin": "http://evil.test", "Access-Control-Request-Method": "POST"})
	if got := preflight.header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Errorf("a preflight of connect from another origin is allowed by %q", got)
	}
	preflight = request(t, s, http.MethodOptions, "/copilotkit/agent/default/run", "", map[string]string{"Origin": "http://evil.test", "Access-Control-Request-Method": "POST"})
	if got := preflight.header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("a preflight of a run from any page gets %q, as /agui/chat gets *", got)
	}
	for _, path := range []string{"/copilotkit/info", "/copilotkit/agent/default/run"} {
		method, body := http.MethodGet, ""
		if strings.HasSuffix(path, "run") {
			method, body = http.MethodPost, `{"threadId":"mine","runId":"r","messages":[{"role":"user","content":"hello"}],"tools":[],"context":[]}`
		}
		if rec := request(t, s, method, path, body, map[string]string{"Origin": "http://evil.test"}); rec.status != http.StatusOK {
			t.Errorf("%s from any page, as /agui/chat: %d %s", path, rec.status, rec.body())
		}
	}
}

func TestFaultsShapeTheRuntimesHandshake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, runtimeScenarios, nil)
		test := map[string]string{TestIDHeader: "t1"}
		for _, body := range []string{`{"kind": "status", "status": 404, "on": "info", "after": 1}`, `{"kind": "slowStart", "delay": "3s", "on": "connect"}`, `{"kind": "status", "status": 500, "on": "stop", "times": 2}`} {
			if rec := request(t, s, http.MethodPost, "/_mock/faults", body, test); rec.status != http.StatusCreated {
				t.Fatalf("%s: %d %s", body, rec.status, rec.body())
			}
		}
		if rec := request(t, s, http.MethodGet, "/copilotkit/info", "", test); rec.status != 200 {
			t.Errorf("the info request the fault lets pass first: %d", rec.status)
		}
		if rec := request(t, s, http.MethodGet, "/copilotkit/info", "", test); rec.status != 404 {
			t.Errorf("the info fault: %d", rec.status)
		}
		if rec := request(t, s, http.MethodGet, "/copilotkit/info", "", test); rec.status != 200 {
			t.Errorf("a fault for one request hit two: %d", rec.status)
		}
		start := time.Now()
		request(t, s, http.MethodPost, "/copilotkit/agent/default/connect", `{"threadId":"x","runId":"x","messages":[],"tools":[],"context":[]}`, test)
		if waited := time.Since(start); waited != 3*time.Second {
			t.Errorf("the connect waited %v", waited)
		}
		for range 2 {
			if rec := request(t, s, http.MethodPost, "/copilotkit/agent/default/stop/x", ``, test); rec.status != 500 {
				t.Errorf("the stop fault: %d", rec.status)
			}
		}
		for _, tt := range []struct{ body, field string }{
			{`{"kind": "runError", "on": "info"}`, "kind"},
			{`{"kind": "status", "status": 500, "on": "threads"}`, "on"},
			{`{"kind": "disconnect", "after": -1, "on": "stop"}`, "after"},
		} {
			rec := request(t, s, http.MethodPost, "/_mock/faults", tt.body, test)
			if body := jsonOf(t, rec); rec.status != http.StatusBadRequest || body["field"] != tt.field {
				t.Errorf("%s: %d %v", tt.body, rec.status, body)
			}
		}
	})
}

func TestTheRuntimesRoutesMoveWithTheirPath(t *testing.T) {
	s := newServer(t, runtimeScenarios, func(c *Config) { c.RuntimePath = "/api/copilotkit" })
	if rec := request(t, s, http.MethodGet, "/api/copilotkit/info", "", nil); rec.status != 200 {
		t.Errorf("moved: %d", rec.status)
	}
	if rec := request(t, s, http.MethodGet, "/copilotkit/info", "", nil); rec.status != 404 || !strings.Contains(rec.body(), "not_found") {
		t.Errorf("the default path after a move: %d %s", rec.status, rec.body())
	}
	off := newServer(t, runtimeScenarios, func(c *Config) { c.RuntimePath = "" })
	if rec := request(t, off, http.MethodGet, "/copilotkit/info", "", nil); rec.status != 404 || !strings.Contains(rec.body(), "not_found") {
		t.Errorf("off: %d %s", rec.status, rec.body())
	}
}

func TestARuntimeRunOutlivesItsClientForTheNextConnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, runtimeScenarios, nil)
		ctx, leave := context.WithCancel(t.Context())
		done := make(chan *streamRecorder)
		go func() {
			done <- post(ctx, s, "/copilotkit/agent/default/run", `{"threadId":"t","runId":"r1","messages":[{"id":"u","role":"user","content":"slow"}],"tools":[],"context":[]}`, nil)
		}()
		time.Sleep(1500 * time.Millisecond) // inside the text
		leave()                             // the page reloads
		time.Sleep(100 * time.Millisecond)
		replay := request(t, s, http.MethodPost, "/copilotkit/agent/default/connect", `{"threadId":"t","runId":"x","messages":[],"tools":[],"context":[]}`, nil).events(t)
		if last := replay[len(replay)-1]; last.Type != protocol.RunFinished || !slices.Contains(types(replay), protocol.ToolCallEnd) {
			t.Errorf("the connect after the reload did not follow the run to its end: %v", types(replay))
		}
		<-done
		entries := s.tests.Journal.List("", JournalFilter{Path: "/copilotkit/agent/default/run"}.matches)
		if len(entries) != 1 || entries[0].Outcome != protocol.OutcomeSuccess || !strings.Contains(entries[0].Reason, "played on without it") {
			t.Errorf("journal %+v", entries)
		}
	})
}

func TestARuntimeRunCutShortIsKeptAsTheRuntimeKeepsIt(t *testing.T) {
	s := newServer(t, runtimeScenarios, func(c *Config) { c.Speed = 0 })
	request(t, s, http.MethodPost, "/copilotkit/agent/default/run", `{"threadId":"t","runId":"r1","messages":[{"id":"u","role":"user","content":"slow"}],"tools":[],"context":[]}`,
		map[string]string{FaultHeader: "truncate; after=3"})
	replay := request(t, s, http.MethodPost, "/copilotkit/agent/default/connect", `{"threadId":"t","runId":"x","messages":[],"tools":[],"context":[]}`, nil).events(t)
	want := []string{protocol.RunStarted, protocol.TextMessageStart, protocol.TextMessageContent, protocol.TextMessageEnd, protocol.RunError}
	if got := types(replay); !slices.Equal(got, want) || replay[len(replay)-1].Str("code") != "INCOMPLETE_STREAM" {
		t.Errorf("the replay of a run truncated by a fault: %v, want %v", got, want)
	}
}

// TestTheThreadsByteBudgetHoldsForTheRuntimesRunsAndSeeds: runtime runs with large
// messages on new threads leave the threads within --threads-max-bytes, the oldest
// forgotten (connect then restores nothing); a seed that alone would pass it is 413.
func TestTheThreadsByteBudgetHoldsForTheRuntimesRunsAndSeeds(t *testing.T) {
	const budget = 4 << 20
	s := newServer(t, runtimeScenarios, func(c *Config) { c.Speed = 0; c.Threads.MaxBytes = budget })
	big := strings.Repeat("x", 1<<20)
	for i := range 6 {
		body := fmt.Sprintf(`{"threadId":"t%d","runId":"r","messages":[{"id":"u","role":"user","content":"hello %s"}],"tools":[],"context":[]}`, i, big)
		if rec := request(t, s, http.MethodPost, "/copilotkit/agent/default/run", body, nil); rec.status != http.StatusOK {
			t.Fatalf("run %d: %d %s", i, rec.status, rec.body())
		}
	}
	if u := s.threads.Usage(); u.Bytes > budget || u.Shed == 0 {
		t.Errorf("the threads keep %d bytes past a budget of %d, or none was shed: %+v", u.Bytes, budget, u)
	}
	connect := func(thread string) string {
		return request(t, s, http.MethodPost, "/copilotkit/agent/default/connect", `{"threadId":"`+thread+`","runId":"x","messages":[],"tools":[],"context":[]}`, nil).body()
	}
	if connect("t0") != "" || !strings.Contains(connect("t5"), "RUN_FINISHED") {
		t.Error("the oldest thread is restored past the budget, or the newest is not")
	}
	seed := `{"threadId": "huge", "messages": [{"role": "user", "content": "` + strings.Repeat("x", 5<<20) + `"}]}`
	rec := request(t, s, http.MethodPost, "/_mock/threads", seed, nil)
	if body := jsonOf(t, rec); rec.status != http.StatusRequestEntityTooLarge || body["error"] != "thread_too_large" || !strings.Contains(body["message"].(string), "--threads-max-bytes") {
		t.Errorf("a seed past the budget: %d %v", rec.status, body)
	}
}
