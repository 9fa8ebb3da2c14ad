package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/recorder"
)

// TestHostileInputCatalogue sends malformed and hostile requests to every endpoint:
// each must get a 4xx with a JSON error that names the problem — no panic, no 5xx, no
// half-written stream — and the server must go on serving normal runs.
func TestHostileInputCatalogue(t *testing.T) {
	t.Parallel()
	s := newServer(t, "", func(c *Config) { c.Speed = 0; c.MaxBodyBytes = 1 << 20; c.MaxMessages = 100; c.AuthToken = "" })
	ts := startHTTP(t, s)

	// a recording proxy in front of a real upstream, for the record mode's share
	out := t.TempDir()
	upstream := startHTTP(t, newServer(t, "", func(c *Config) { c.Speed = 0 }))
	u, _ := url.Parse(upstream.URL)
	rec, err := recorder.New(recorder.Config{Upstream: u, OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	proxy := startHTTP(t, newServer(t, "", func(c *Config) { c.Speed = 0; c.Recorder = rec; c.RecordAll = true }))
	secured := startHTTP(t, newServer(t, "", func(c *Config) { c.AuthToken = "s3cret" }))

	deep := strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000)
	huge := `{"messages":[{"role":"user","content":"` + strings.Repeat("x", 2<<20) + `"}]}`
	many := `{"messages":[` + strings.TrimSuffix(strings.Repeat(`{"role":"user","content":"x"},`, 101), ",") + `]}`
	const js = "application/json"
	tests := []struct {
		name, base, method, path, contentType, body string
		header                                      map[string]string
		status                                      int
		mention                                     string // the error message must say this
	}{
		// the run endpoint: the body
		{"empty body", "", "POST", "/agui/chat", js, ``, nil, 400, "empty"},
		{"truncated JSON", "", "POST", "/agui/chat", js, `{"threadId":"t","messages":[{"role":"us`, nil, 400, "malformed JSON"},
		{"trailing garbage", "", "POST", "/agui/chat", js, `{} x`, nil, 400, "after the top-level value"},
		{"a string body", "", "POST", "/agui/chat", js, `"hello"`, nil, 400, "must be a JSON object"},
		{"null body", "", "POST", "/", js, `null`, nil, 400, "must be a JSON object"},
		{"deeply nested JSON", "", "POST", "/agui/chat", js, deep, nil, 400, "malformed JSON"},
		{"invalid UTF-8", "", "POST", "/agui/chat", js, "{\"messages\":[{\"role\":\"user\",\"content\":\"fail \xff\xfe\"}]}", nil, 400, "invalid UTF-8 at byte 44 (0xff)"},
		{"invalid UTF-8: a cut-off character", "", "POST", "/agui/chat", js, "{\"messages\":[{\"role\":\"user\",\"content\":\"\xc3\x28\"}]}", nil, 400, "invalid UTF-8 at byte 39 (0xc3)"},
		{"a huge string", "", "POST", "/agui/chat", js, huge, nil, 413, "exceeds the limit"},
		{"too many messages", "", "POST", "/agui/chat", js, many, nil, 400, "exceed the limit of 100"},
		{"wrong type: threadId", "", "POST", "/agui/chat", js, `{"threadId":["t"]}`, nil, 400, `threadId`},
		{"wrong type: runId", "", "POST", "/agui/chat", js, `{"runId":{}}`, nil, 400, `runId`},
		{"wrong type: messages", "", "POST", "/agui/chat", js, `{"messages":"hi"}`, nil, 400, `messages`},
		{"wrong type: message", "", "POST", "/agui/chat", js, `{"messages":[7]}`, nil, 400, `messages[0]`},
		{"wrong type: role", "", "POST", "/agui/chat", js, `{"messages":[{"role":1,"content":"x"}]}`, nil, 400, `messages[0].role`},
		{"unknown role", "", "POST", "/agui/chat", js, `{"messages":[{"role":"root","content":"x"}]}`, nil, 400, `unknown role`},
		{"wrong type: content", "", "POST", "/agui/chat", js, `{"messages":[{"role":"user","content":{"a":1}}]}`, nil, 400, `messages[0].content`},
		{"wrong type: part", "", "POST", "/agui/chat", js, `{"messages":[{"role":"user","content":["x"]}]}`, nil, 400, `messages[0].content[0]`},
		{"part without type", "", "POST", "/agui/chat", js, `{"messages":[{"role":"user","content":[{"text":"x"}]}]}`, nil, 400, `content[0].type`},
		{"wrong type: tool call", "", "POST", "/agui/chat", js, `{"messages":[{"role":"assistant","toolCalls":[{"id":"c","function":"f"}]}]}`, nil, 400, `toolCalls[0].function`},
		{"wrong type: tools", "", "POST", "/agui/chat", js, `{"tools":{"name":"x"}}`, nil, 400, `tools`},
		{"wrong type: context", "", "POST", "/agui/chat", js, `{"context":[{"description":1,"value":"v"}]}`, nil, 400, `context[0].description`},
		{"resume: not a list", "", "POST", "/agui/chat", js, `{"resume":{"interruptId":"i"}}`, nil, 400, `resume`},
		{"resume: no id", "", "POST", "/agui/chat", js, `{"resume":[{"status":"resolved"}]}`, nil, 400, `resume[0].interruptId`},
		{"resume: bad status", "", "POST", "/agui/chat", js, `{"resume":[{"interruptId":"i","status":"ok"}]}`, nil, 400, `resume[0].status`},
		{"resume: nothing pending", "", "POST", "/agui/chat", js, `{"threadId":"fresh","messages":[],"resume":[{"interruptId":"i","status":"resolved"}]}`, nil, 400, "none is pending"},
		{"bad protocol version", "", "POST", "/agui/chat", js, `{"protocolVersion":"one"}`, nil, 400, "MAJOR.MINOR"},
		// the run endpoint: the request itself
		{"wrong content type", "", "POST", "/agui/chat", "text/plain", `{}`, nil, 415, "Content-Type"},
		{"form content type", "", "POST", "/agui/chat", "application/x-www-form-urlencoded", `a=b`, nil, 415, "Content-Type"},
		{"GET on a run route", "", "GET", "/agui/chat", "", ``, nil, 405, "takes POST"},
		{"unknown route", "", "POST", "/agui/nope", js, `{}`, nil, 404, "/agui/nope"},
		{"path traversal in a route", "", "POST", "/../../etc/passwd", js, `{}`, nil, 404, "no endpoint"},
		{"bad speed header", "", "POST", "/agui/chat", js, `{"messages":[]}`, map[string]string{SpeedHeader: "-1"}, 400, SpeedHeader},
		{"bad fault header", "", "POST", "/agui/chat", js, `{"messages":[]}`, map[string]string{FaultHeader: "status; status=200"}, 400, "400 to 599"},
		{"forced scenario that does not exist", "", "POST", "/agui/chat", js, `{"messages":[]}`, map[string]string{ScenarioHeader: "../../x"}, 404, "does not exist"},
		// history and cancel
		{"history: no body", "", "POST", HistoryPath, js, ``, nil, 400, "empty"},
		{"history: threadId a number", "", "POST", HistoryPath, js, `{"threadId":42}`, nil, 400, "threadId"},
		{"history: unknown thread", "", "POST", HistoryPath, js, `{"threadId":"../../etc"}`, nil, 404, "no thread"},
		{"cancel: array body", "", "POST", CancelPath, js, `[]`, nil, 400, "JSON object"},
		{"history: invalid UTF-8", "", "POST", HistoryPath, js, "{\"threadId\":\"t\xff\"}", nil, 400, "invalid UTF-8 at byte 14"},
		{"cancel: invalid UTF-8", "", "POST", CancelPath, js, "{\"threadId\":\"\xfe\"}", nil, 400, "invalid UTF-8 at byte 13"},
		{"cancel: wrong content type", "", "POST", CancelPath, "text/plain", `{"threadId":"t"}`, nil, 415, "Content-Type"},
		// auth
		{"missing token", "secured", "POST", "/agui/chat", js, `{}`, nil, 401, "Authorization"},
		{"wrong token", "secured", "POST", HistoryPath, js, `{"threadId":"t"}`, map[string]string{"Authorization": "Bearer guess"}, 401, "not valid"},
		// admin
		{"admin: scenario YAML broken", "", "POST", AdminPrefix + "/scenarios", "application/yaml", "steps: [", nil, 422, "YAML syntax"},
		{"admin: scenario empty", "", "POST", AdminPrefix + "/scenarios", "application/yaml", "", nil, 422, "no scenario"},
		{"admin: remove with traversal", "", "DELETE", AdminPrefix + "/scenarios/..%2F..%2Fetc%2Fpasswd", "", ``, nil, 404, "no scenario"},
		{"admin: force malformed", "", "POST", AdminPrefix + "/force", js, `{"scenario":`, nil, 400, "invalid admin request"},
		{"admin: force invalid UTF-8", "", "POST", AdminPrefix + "/force", js, "{\"scenario\":\"catch\xffall\"}", nil, 400, "invalid UTF-8 at byte 18"},
		{"admin: force negative times", "", "POST", AdminPrefix + "/force", js, `{"scenario":"catch-all","times":-1}`, nil, 400, "times"},
		{"admin: fault unknown kind", "", "POST", AdminPrefix + "/faults", js, `{"kind":"meltdown"}`, nil, 400, "unknown fault"},
		{"admin: fault bad delay", "", "POST", AdminPrefix + "/faults", js, `{"kind":"slowStart","delay":"soon"}`, nil, 400, "delay"},
		{"admin: fault delay on a status fault", "", "POST", AdminPrefix + "/faults", js, `{"kind":"status","status":500,"delay":"1s"}`, nil, 400, "parameter delay does not apply to a status fault"},
		{"fault header delay on a split", "", "POST", "/agui/chat", js, `{}`, map[string]string{FaultHeader: "split; delay=1s"}, 400, "parameter delay does not apply to a split fault (split takes no parameters)"},
		{"admin: breakpoint without a place", "", "POST", AdminPrefix + "/breakpoints", js, `{}`, nil, 400, "step"},
		{"admin: breakpoint wait malformed", "", "GET", AdminPrefix + "/breakpoints/bp-1?wait=forever", "", ``, nil, 404, "no breakpoint"},
		{"admin: unknown endpoint", "", "POST", AdminPrefix + "/explode", js, `{}`, nil, 404, "no endpoint"},
		// the record proxy
		{"record: malformed input", "proxy", "POST", "/agui/chat", js, `{"messages":`, nil, 400, "malformed JSON"},
		{"record: invalid UTF-8", "proxy", "POST", "/agui/chat", js, "{\"messages\":[{\"role\":\"user\",\"content\":\"\xff\"}]}", nil, 400, "invalid UTF-8"},
		{"record: wrong type", "proxy", "POST", "/agui/chat", js, `{"messages":[{"role":"user","content":5}]}`, nil, 400, "content"},
		{"record: history of nothing upstream", "proxy", "POST", HistoryPath, js, `{"threadId":"nope"}`, nil, 404, "no thread"},
	}
	if len(tests) < 40 {
		t.Fatalf("the catalogue has %d requests; it must cover at least 40", len(tests))
	}
	bases := map[string]string{"": ts.URL, "proxy": proxy.URL, "secured": secured.URL}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, bases[tt.base]+tt.path, strings.NewReader(tt.body))
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			var body errorBody
			if err := json.Unmarshal(raw, &body); err != nil || body.Error == "" {
				t.Fatalf("status %d, not a JSON error: %q", resp.StatusCode, raw)
			}
			if resp.StatusCode != tt.status || !strings.Contains(body.Message+body.Field, tt.mention) {
				t.Errorf("got %d %+v; want %d mentioning %q", resp.StatusCode, body, tt.status, tt.mention)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("the error's content type is %q", ct)
			}
		})
	}
	// the server still serves, and nothing escaped the record directory
	events := runHTTP(t, ts.URL+"/agui/chat", `{"messages":[{"role":"user","content":"showcase"}]}`)
	if events[len(events)-1].Type != protocol.RunFinished {
		t.Errorf("a normal run after the catalogue ended with %s", events[len(events)-1].Type)
	}
	runHTTP(t, proxy.URL+"/agui/chat", `{"messages":[{"role":"user","content":"../../../etc/passwd"}]}`)
	files, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	if len(files) != 1 || !strings.HasPrefix(filepath.Base(files[0]), "etc-passwd-") {
		t.Errorf("recordings %v", files)
	}
	if _, err := os.Stat(filepath.Join(out, "..", "etc")); err == nil {
		t.Error("a recording escaped its directory")
	}
}

func TestTheJournalShowsABodyWithInvalidUTF8AsValidJSON(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.Speed = 0 })
	sent := "{\"messages\":[{\"role\":\"user\",\"content\":\"fail \xff\xfe\"}]}"
	if rec := post(t.Context(), s, "/agui/chat", sent, map[string]string{TestIDHeader: "utf8"}); rec.status != 400 {
		t.Fatalf("%d %s", rec.status, rec.body())
	}
	status, body := call(t, s, "GET", AdminPrefix+"/journal", "", map[string]string{TestIDHeader: "utf8"})
	if status != 200 || !utf8.ValidString(body) || !json.Valid([]byte(body)) {
		t.Fatalf("the journal is not valid UTF-8 JSON: %d %q", status, body)
	}
	var j struct{ Entries []JournalEntry }
	if err := json.Unmarshal([]byte(body), &j); err != nil || len(j.Entries) != 1 {
		t.Fatal(body, err)
	}
	if got, _ := j.Entries[0].Request.(string); got != "{\"messages\":[{\"role\":\"user\",\"content\":\"fail \uFFFD\uFFFD\"}]}" {
		t.Errorf("a body that is not UTF-8 is kept as text, its bad bytes replaced; got %#v", j.Entries[0].Request)
	}
}

// TestAThreadIDNeverReachesAnotherTestsThreads: a thread id that holds the test id of
// another test and any separator a joined key could use names a thread of its own.
// Without a test id it reads nothing of the test's thread; resetting the test forgets
// the test's thread and leaves it alone.
func TestAThreadIDNeverReachesAnotherTestsThreads(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.Speed = 0 })
	ofTestA := map[string]string{TestIDHeader: "A"}
	if rec := post(t.Context(), s, "/agui/chat", `{"threadId":"X","messages":[{"role":"user","content":"the secret of test A"}]}`, ofTestA); rec.status != 200 {
		t.Fatalf("%d %s", rec.status, rec.body())
	}
	for _, sep := range []string{"\x1f", "\x00", "/", ":", ""} {
		thread := `A` + sep + `X`
		threadJSON, _ := json.Marshal(thread)
		status, body := postJSON(t, s, "/agui/history", `{"threadId":`+string(threadJSON)+`}`, nil)
		if status != http.StatusNotFound {
			t.Errorf("thread %q without a test id reads test A's thread X: %d %v", thread, status, body)
		}
	}
	if rec := post(t.Context(), s, "/agui/chat", `{"threadId":"A\u001fX","messages":[{"role":"user","content":"hello"}]}`, nil); rec.status != 200 {
		t.Fatalf("%d %s", rec.status, rec.body())
	}
	if status, body := call(t, s, "POST", AdminPrefix+"/reset", "", ofTestA); status != http.StatusNoContent {
		t.Fatalf("reset: %d %s", status, body)
	}
	if status, _ := postJSON(t, s, "/agui/history", `{"threadId":"X"}`, ofTestA); status != http.StatusNotFound {
		t.Errorf("resetting test A kept its thread X: %d", status)
	}
	if status, body := postJSON(t, s, "/agui/history", `{"threadId":"A\u001fX"}`, nil); status != http.StatusOK {
		t.Errorf("resetting test A forgot the thread \"A\\x1fX\" of the requests without a test id: %d %v", status, body)
	}
}
