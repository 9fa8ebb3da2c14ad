package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// A fault's parameters follow one set of rules in its three forms: the header, the
// admin body and a scenario's fault step. A parameter the kind does not take, or a
// value out of range, is refused with its name; nothing is silently ignored.
func TestFaultParametersAreCheckedAlikeInEveryForm(t *testing.T) {
	s := newServer(t, "steps: [{text: hi}]\n", nil)
	tests := []struct {
		name   string
		header string // X-Agui-Mock-Fault
		json   string // POST /_mock/faults; "" when the header form has no JSON twin
		yaml   string // a fault step; "" when the kind or parameter has no place in a scenario
		field  string // the member the admin API blames
		want   string
	}{
		{"after on a status fault", "status; status=500; after=3", `{"kind":"status","status":500,"after":3}`, "", "after", "parameter after does not apply to a status fault (status takes status, body, retryAfter)"},
		{"keepAlive on a status fault", "status; status=500; keepAlive", `{"kind":"status","status":500,"keepAlive":true}`, "", "keepAlive", "parameter keepAlive does not apply to a status fault"},
		{"keepAlive=false on a status fault", "status; status=500; keepAlive=false", `{"kind":"status","status":500,"keepAlive":false}`, "", "keepAlive", "parameter keepAlive does not apply to a status fault"},
		{"after on a split", "split; after=3", `{"kind":"split","after":3}`, "", "after", "parameter after does not apply to a split fault (split takes no parameters)"},
		{"after=0 on a split", "split; after=0", `{"kind":"split","after":0}`, "", "after", "parameter after does not apply to a split fault"},
		{"delay on a split", "split; delay=1s", `{"kind":"split","delay":"1s"}`, "", "delay", "parameter delay does not apply to a split fault"},
		{"message on a slowStart", "slowStart; delay=1s; message=x", `{"kind":"slowStart","delay":"1s","message":"x"}`, "", "message", "parameter message does not apply to a slowStart fault (slowStart takes delay)"},
		{"keepAlive on a runError", "runError; keepAlive", `{"kind":"runError","keepAlive":true}`, "fault: {kind: runError, keepAlive: true}", "keepAlive", "parameter keepAlive does not apply to a runError fault (runError takes "},
		{"message on a disconnect", "disconnect; message=hi", `{"kind":"disconnect","message":"hi"}`, "fault: {kind: disconnect, message: hi}", "message", "parameter message does not apply to a disconnect fault (disconnect takes "},
		{"code on a stall", "stall; code=x", `{"kind":"stall","code":"x"}`, "fault: {kind: stall, code: x}", "code", "parameter code does not apply to a stall fault (stall takes "},
		{"body on a malformed", "malformed; body=x", `{"kind":"malformed","body":"x"}`, "", "body", "parameter body does not apply to a malformed fault (malformed takes after)"},
		{"after on a wrongRunId", "wrongRunId; after=1", `{"kind":"wrongRunId","after":1}`, "", "after", "parameter after does not apply to a wrongRunId fault (wrongRunId takes no parameters)"},
		{"message on an unknownEvent", "unknownEvent; message=x", `{"kind":"unknownEvent","message":"x"}`, "fault: {kind: unknownEvent, message: x}", "message", "parameter message does not apply to a unknownEvent fault (unknownEvent takes "},
		{"retryAfter on a truncate", "truncate; retryAfter=3", `{"kind":"truncate","retryAfter":3}`, "", "retryAfter", "parameter retryAfter does not apply to a truncate fault"},
		{"a negative retryAfter", "status; status=429; retryAfter=-1", `{"kind":"status","status":429,"retryAfter":-1}`, "", "retryAfter", "retryAfter must be a number of seconds from 1 up, not -1"},
		{"a retryAfter of 0", "status; status=429; retryAfter=0", `{"kind":"status","status":429,"retryAfter":0}`, "", "retryAfter", "retryAfter must be a number of seconds from 1 up, not 0"},
		{"a status below 400", "status; status=399", `{"kind":"status","status":399}`, "", "status", "a status fault needs a status from 400 to 599, not 399"},
		{"a status above 599", "status; status=600", `{"kind":"status","status":600}`, "", "status", "a status fault needs a status from 400 to 599, not 600"},
		{"a status fault without a status", "status", `{"kind":"status"}`, "", "status", "a status fault needs a status from 400 to 599, not 0"},
		{"a negative after", "disconnect; after=-1", `{"kind":"disconnect","after":-1}`, "", "after", "after must not be negative, not -1"},
		{"a slowStart without a delay", "slowStart", `{"kind":"slowStart"}`, "", "delay", "a slowStart fault needs a delay greater than 0 (e.g. 2s), not 0s"},
		{"a negative delay", "slowStart; delay=-1s", `{"kind":"slowStart","delay":"-1s"}`, "", "delay", "a slowStart fault needs a delay greater than 0 (e.g. 2s), not -1s"},
		{"an unknown kind; a request-wide kind in a scenario", "explode", `{"kind":"explode"}`, "fault: {kind: split}", "kind", ""},
		{"a parameter given twice", "disconnect; after=1; after=2", "", "", "", "fault parameter after is given twice"},
		{"a keepAlive that is no boolean", "stall; keepAlive=maybe", "", "", "", `fault parameter keepAlive="maybe": invalid syntax`},
		{"an unknown parameter", "runError; colour=red", "", "", "", `unknown fault parameter "colour"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := call(t, s, "POST", "/agui/chat", `{"messages":[]}`, map[string]string{FaultHeader: tt.header})
			var answer errorBody
			if err := json.Unmarshal([]byte(body), &answer); err != nil || status != 400 || answer.Error != "invalid_header" || !strings.Contains(answer.Message, FaultHeader+": "+tt.want) {
				t.Errorf("header %q: %d %s; want 400 invalid_header %q", tt.header, status, body, tt.want)
			}
			if tt.json != "" {
				status, body := call(t, s, "POST", AdminPrefix+"/faults", tt.json, map[string]string{TestIDHeader: "refused"})
				var answer errorBody
				if err := json.Unmarshal([]byte(body), &answer); err != nil || status != 400 || answer.Error != "invalid_input" || answer.Field != tt.field || !strings.Contains(answer.Message, tt.want) {
					t.Errorf("admin %s: %d %s; want 400 invalid_input, field %q, %q", tt.json, status, body, tt.field, tt.want)
				}
			}
			if tt.yaml != "" {
				step := "  - " + tt.yaml
				_, diags := scenarios.Parse("f.yaml", []byte("broken: on purpose\nsteps:\n"+step+"\n"))
				at := strings.Index(step, tt.field+": ") + len(tt.field+": ") + 1 // the value of the parameter to blame
				if len(diags) != 1 || diags[0].Line != 3 || diags[0].Column != at || !strings.Contains(diags[0].Message, tt.want) {
					t.Errorf("step %q: %v; want 3:%d %q", tt.yaml, diags, at, tt.want)
				}
			}
		})
	}
}

// What a fault's parameters are read as is the same in the header and the admin body.
func TestAcceptedFaultsReadTheSameInTheHeaderAndTheAdminBody(t *testing.T) {
	s := newServer(t, "steps: [{text: hi}]\n", nil)
	for _, tt := range []struct{ header, json string }{
		{"status; status=429; retryAfter=3; body=slow down", `{"kind":"status","status":429,"retryAfter":3,"body":"slow down"}`},
		{"slowStart; delay=2s", `{"kind":"slowStart","delay":"2s"}`},
		{"split", `{"kind":"split"}`},
		{"runError; after=4; message=overloaded; code=busy", `{"kind":"runError","after":4,"message":"overloaded","code":"busy"}`},
		{"disconnect; after=0", `{"kind":"disconnect","after":0}`},
		{"stall; after=3; keepAlive", `{"kind":"stall","after":3,"keepAlive":true}`},
		{"stall; keepAlive=false", `{"kind":"stall","keepAlive":false}`},
		{"malformed; after=1", `{"kind":"malformed","after":1}`},
		{"truncate", `{"kind":"truncate"}`},
	} {
		t.Run(tt.header, func(t *testing.T) {
			f, err := scenarios.ParseFault(tt.header)
			if err != nil {
				t.Fatal(err)
			}
			status, body := call(t, s, "POST", AdminPrefix+"/faults", tt.json, map[string]string{TestIDHeader: "accepted"})
			var reply struct{ Fault json.RawMessage }
			if status != 201 || json.Unmarshal([]byte(body), &reply) != nil {
				t.Fatalf("admin: %d %s", status, body)
			}
			if want, _ := json.Marshal(f); string(reply.Fault) != string(want) {
				t.Errorf("the admin API queued %s, the header asks for %s", reply.Fault, want)
			}
		})
	}
}

// A status fault's body goes out as given, in the header form as in the admin API:
// application/json when it is JSON, text/plain otherwise.
func TestAHeaderStatusFaultSendsItsBodyWithItsContentType(t *testing.T) {
	s := newServer(t, "steps: [{text: hi}]\n", nil)
	ts := startHTTP(t, s)
	for _, tt := range []struct{ header, want, contentType string }{
		{"status; status=503; body=notjson", "notjson", "text/plain; charset=utf-8"},
		{`status; status=503; body={"detail":"boom"}`, `{"detail":"boom"}`, "application/json"},
		{"status; status=503; body=42", "42", "application/json"},
		{"status; status=503", `"error":"injected_fault"`, "application/json"},
	} {
		t.Run(tt.header, func(t *testing.T) {
			req, _ := http.NewRequest("POST", ts.URL+"/agui/chat", strings.NewReader(`{"messages":[]}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(FaultHeader, tt.header)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 503 || !strings.Contains(string(got), tt.want) || !strings.HasPrefix(resp.Header.Get("Content-Type"), tt.contentType) {
				t.Errorf("got %d %q %q, want 503 %q %q", resp.StatusCode, got, resp.Header.Get("Content-Type"), tt.want, tt.contentType)
			}
		})
	}
}

func TestRequestFaults(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.Speed = 0; c.KeepAlive = 50 * time.Millisecond })
	ts := startHTTP(t, s)
	run := func(fault string) (*http.Response, string, error) {
		req, _ := http.NewRequest("POST", ts.URL+"/agui/chat", strings.NewReader(`{"messages":[{"role":"user","content":"showcase"}]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(FaultHeader, fault)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp, string(body), err
	}
	tests := []struct {
		fault, want string
		status      int
		check       func(t *testing.T, resp *http.Response, body string, err error)
	}{
		{"status; status=429; retryAfter=3", `"error":"injected_fault"`, 429, func(t *testing.T, resp *http.Response, _ string, _ error) {
			if resp.Header.Get("Retry-After") != "3" {
				t.Errorf("Retry-After %q", resp.Header.Get("Retry-After"))
			}
		}},
		{`status; status=500; body={"detail":"boom"}`, `{"detail":"boom"}`, 500, nil},
		{"runError; after=3; code=overloaded", `"code":"overloaded"`, 200, func(t *testing.T, _ *http.Response, body string, _ error) {
			events, _ := protocol.ReadEvents(strings.NewReader(body), 1<<20)
			if len(events) != 4 || events[3].Type != protocol.RunError {
				t.Errorf("events %v", types(events))
			}
		}},
		{"truncate; after=2", "", 200, func(t *testing.T, _ *http.Response, body string, _ error) {
			if events, _ := protocol.ReadEvents(strings.NewReader(body), 1<<20); len(events) != 2 {
				t.Errorf("%d events", len(events))
			}
		}},
		{"malformed; after=1", `"delta":` + "\n\n", 200, nil},
		{"disconnect; after=2", "", 200, func(t *testing.T, _ *http.Response, body string, err error) {
			if err == nil {
				t.Error("the body ended cleanly; a disconnect must break it")
			}
			if events, _ := protocol.ReadEvents(strings.NewReader(body), 1<<20); len(events) != 2 {
				t.Errorf("%d events reached the client before the disconnect, want 2", len(events))
			}
		}},
		{"split", `"type":"RUN_FINISHED"`, 200, func(t *testing.T, _ *http.Response, body string, _ error) {
			events, err := protocol.ReadEvents(strings.NewReader(body), 1<<20)
			if err != nil || len(events) < 30 {
				t.Errorf("split frames do not reassemble: %v, %d events", err, len(events))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			resp, body, err := run(tt.fault)
			if resp == nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("got %d %q", resp.StatusCode, body)
			}
			if tt.check != nil {
				tt.check(t, resp, body, err)
			}
		})
	}
	if status, body := call(t, s, "POST", "/agui/chat", `{"messages":[]}`, map[string]string{FaultHeader: "explode"}); status != 400 || !strings.Contains(body, `unknown fault \"explode\"`) {
		t.Errorf("an unknown fault: %d %s", status, body)
	}
	status, body := call(t, s, "GET", AdminPrefix+"/journal", "", nil)
	if status != 200 || !strings.Contains(body, `"outcome":"fault"`) {
		t.Errorf("the journal lacks the faulted runs: %s", body)
	}
}

func TestARejectedRequestLeavesTheQueuedFault(t *testing.T) {
	s := newServer(t, "steps: [{text: hi}]\n", func(c *Config) { c.Speed = 0 })
	tagged := map[string]string{TestIDHeader: "t1"}
	status, body := call(t, s, "POST", AdminPrefix+"/faults", `{"kind":"status","status":503}`, tagged)
	if status != 201 {
		t.Fatal(status, body)
	}
	if status, body = call(t, s, "POST", "/agui/chat", `{"messages":[{"id":"m","role":"wizard","content":"x"}]}`, tagged); status != 400 {
		t.Fatalf("a bad role: %d %s", status, body)
	}
	if status, body = call(t, s, "POST", "/agui/chat", `{"messages":[]}`, tagged); status != 503 {
		t.Errorf("the valid run after a rejected one: %d %s, want the queued 503", status, body)
	}
}

func TestStallsAndSlowStarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, timedScenario, func(c *Config) { c.KeepAlive = 5 * time.Second })
		// queued through the admin API for the next request of test t1
		if status, body := call(t, s, "POST", AdminPrefix+"/faults", `{"kind":"slowStart","delay":"3s"}`, map[string]string{TestIDHeader: "t1"}); status != 201 {
			t.Fatal(status, body)
		}
		rec := post(t.Context(), s, "/", `{"messages":[]}`, map[string]string{TestIDHeader: "t1"})
		if rec.writes[0].at != 3100*time.Millisecond { // the delay, then the scenario's own 100 ms
			t.Errorf("first event at %v, want 3.1s", rec.writes[0].at)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		rec = post(ctx, s, "/", `{"messages":[]}`, map[string]string{FaultHeader: "stall; after=2; keepAlive"})
		comments := 0
		for _, w := range rec.writes {
			if strings.HasPrefix(w.data, ": keep-alive") {
				comments++
			}
		}
		if events := rec.events(t); len(events) != 2 || comments != 3 {
			t.Errorf("a stall with keep-alives: %d events, %d keep-alives in 20 s", len(events), comments)
		}
	})
}

func TestScenarioFaultSteps(t *testing.T) {
	s := newServer(t, "broken: tests the frontend's handling of a stalled stream\nsteps:\n  - text: partial\n  - fault: truncate\n", func(c *Config) { c.Speed = 0 })
	rec := post(t.Context(), s, "/", `{"messages":[]}`, nil)
	events := rec.events(t)
	if last := events[len(events)-1]; last.Type != protocol.TextMessageEnd {
		t.Errorf("the stream should end right after the text, without a terminal event: %v", types(events))
	}
	if _, err := newServerErr("steps:\n  - fault: disconnect\n"); err == nil || !strings.Contains(err.Error(), "faults are deliberate: add broken") {
		t.Errorf("a fault without broken: %v", err)
	}
}

func TestAStreamWithoutATerminalEventIsNotASuccess(t *testing.T) {
	yaml := "id: unfinished\nbroken: ends without a terminal event\nevents:\n  - {type: RUN_STARTED, threadId: t, runId: r}\n  - {type: TEXT_MESSAGE_START, messageId: m, role: assistant}\n"
	s := newServer(t, yaml, func(c *Config) { c.Speed = 0; c.Metrics = true })
	if rec := post(t.Context(), s, "/", `{"messages":[]}`, nil); len(rec.events(t)) != 2 {
		t.Fatalf("stream %s", rec.body())
	}
	if _, body := call(t, s, "GET", AdminPrefix+"/journal", "", nil); !strings.Contains(body, `"outcome":"fault"`) {
		t.Errorf("journal: %s", body)
	}
	if _, body := call(t, s, "GET", "/metrics", "", nil); !strings.Contains(body, `agui_mock_runs_total{scenario="unfinished",outcome="fault"} 1`) {
		t.Errorf("metrics:\n%s", body)
	}
}

func TestAStatusFaultSendsItsBodyAsGiven(t *testing.T) {
	s := newServer(t, "steps: [{text: hi}]\n", func(c *Config) { c.Speed = 0 })
	ts := startHTTP(t, s)
	for _, tt := range []struct{ body, want, contentType string }{
		{`{"error":"rate","retry":[1, 2]}`, `{"error":"rate","retry":[1,2]}`, "application/json"},
		{`[1,2]`, `[1,2]`, "application/json"},
		{`"slow down"`, `slow down`, "text/plain; charset=utf-8"},
		{`"{\"detail\":\"boom\"}"`, `{"detail":"boom"}`, "application/json"},
	} {
		t.Run(tt.body, func(t *testing.T) {
			tagged := map[string]string{TestIDHeader: "t-" + tt.body}
			if status, body := call(t, s, "POST", AdminPrefix+"/faults", `{"kind":"status","status":429,"body":`+tt.body+`}`, tagged); status != 201 {
				t.Fatal(status, body)
			}
			req, _ := http.NewRequest("POST", ts.URL+"/agui/chat", strings.NewReader(`{"messages":[]}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(TestIDHeader, tagged[TestIDHeader])
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 429 || string(got) != tt.want || resp.Header.Get("Content-Type") != tt.contentType {
				t.Errorf("got %d %q %q, want 429 %q %q", resp.StatusCode, got, resp.Header.Get("Content-Type"), tt.want, tt.contentType)
			}
		})
	}
}

// The admin body decodes every fault parameter through its row of the parameters'
// table: each is refused, by name, when given a value of another JSON type than its own,
// and an unknown member is refused as before.
func TestTheAdminBodyDecodesEveryFaultParameterByItsType(t *testing.T) {
	s := newServer(t, "steps: [{text: hi}]\n", nil)
	wrong := map[string]struct{ value, want string }{ // a value of another type, by the parameter's type
		"number":  {`"1"`, "must be an integer, got a string"},
		"boolean": {`"yes"`, "must be true or false, got a string"},
		"string":  {`1`, "must be a string, got a number"},
	}
	seen := map[string]bool{}
	for _, kind := range scenarios.FaultKindTable() {
		for _, param := range kind.Params {
			if seen[param] {
				continue
			}
			seen[param] = true
			typ, _ := scenarios.FaultParamType(param)
			w, ok := wrong[typ]
			if !ok {
				continue // any JSON value
			}
			status, body := call(t, s, "POST", AdminPrefix+"/faults", `{"kind":"`+kind.Name+`","`+param+`":`+w.value+`}`, nil)
			var answer errorBody
			if err := json.Unmarshal([]byte(body), &answer); err != nil || status != 400 {
				t.Fatal(param, status, body)
			}
			if answer.Field != param || answer.Message != "invalid admin request: "+param+" "+w.want {
				t.Errorf("%s given %s: %+v", param, w.value, answer)
			}
		}
	}
	status, body := call(t, s, "POST", AdminPrefix+"/faults", `{"kind":"split","kepAlive":true}`, nil)
	if status != 400 || !strings.Contains(body, `unknown member \"kepAlive\"`) {
		t.Errorf("an unknown member: %d %s", status, body)
	}
}
