package server

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

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
