package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// adminRequest builds a request to the handler: a body is sent with contentType, and
// every header named is set.
func adminRequest(method, path, body, contentType string, header map[string]string) *http.Request {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return req
}

// serve answers req and decodes the error body, if the answer is one. The journal
// stream, which lasts as long as its client, ends at once: what is asked of it is its
// status.
func serve(s *Server, req *http.Request) (*httptest.ResponseRecorder, errorBody) {
	if req.URL.Path == AdminPrefix+"/journal/stream" {
		ctx, cancel := context.WithCancel(req.Context())
		cancel()
		req = req.WithContext(ctx)
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	var answer errorBody
	_ = json.Unmarshal(rec.Body.Bytes(), &answer) // not every answer is an error
	return rec, answer
}

// adminEndpoints lists every admin route of the router (and /metrics), with the
// parameters of its path filled in, and a path under the admin prefix that no route takes.
func adminEndpoints(t *testing.T, s *Server) [][2]string {
	t.Helper()
	param := regexp.MustCompile(`:[a-z]+`)
	var endpoints [][2]string
	for _, r := range s.echo.Routes() {
		if r.Path != catchAll && isAdminPath(r.Path) {
			endpoints = append(endpoints, [2]string{r.Method, param.ReplaceAllString(r.Path, "x")})
		}
	}
	if len(endpoints) < 18 {
		t.Fatalf("only %d admin routes found: %v", len(endpoints), endpoints)
	}
	return append(endpoints, [2]string{http.MethodGet, AdminPrefix + "/nothing-here"})
}

func TestEveryAdminEndpointRequiresTheAdminToken(t *testing.T) {
	tests := []struct {
		name               string
		adminToken, auth   string
		refused, accepted  []string // Authorization headers
		runRefused, runsOK string   // the same for a run
	}{
		{"an admin token of its own", "adm1n", "s3cret", []string{"", "Bearer s3cret", "Bearer adm1nx", "Basic adm1n", "adm1n"}, []string{"Bearer adm1n", "bearer adm1n"}, "Bearer adm1n", "Bearer s3cret"},
		{"the AG-UI token when it is the only one", "", "s3cret", []string{"", "Bearer nope"}, []string{"Bearer s3cret"}, "", "Bearer s3cret"},
		{"an admin token alone", "adm1n", "", []string{"", "Bearer nope"}, []string{"Bearer adm1n"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, "", func(c *Config) { c.Speed, c.Metrics, c.AdminToken, c.AuthToken = 0, true, tt.adminToken, tt.auth })
			for _, ep := range adminEndpoints(t, s) {
				method, path := ep[0], ep[1]
				if isInspectorPath(path) {
					continue // the page asks for the token itself (TestInspectorPageNeedsNoTokenButItsDataDoes)
				}
				for _, auth := range tt.refused {
					rec, answer := serve(s, adminRequest(method, path, "{}", "application/json", map[string]string{"Authorization": auth}))
					if rec.Code != http.StatusUnauthorized || answer.Error != "unauthorized" || !strings.Contains(answer.Message, "--admin-token") ||
						rec.Header().Get("WWW-Authenticate") != `Bearer realm="agui-mock admin"` || strings.Contains(rec.Body.String(), "adm1n") {
						t.Errorf("%s %s with Authorization %q: %d %v %s, want 401 with a challenge", method, path, auth, rec.Code, rec.Header(), rec.Body)
					}
				}
				for _, auth := range tt.accepted {
					if rec, _ := serve(s, adminRequest(method, path, "{}", "application/json", map[string]string{"Authorization": auth})); rec.Code == http.StatusUnauthorized {
						t.Errorf("%s %s with Authorization %q: refused %s", method, path, auth, rec.Body)
					}
				}
			}
			run := `{"messages":[{"role":"user","content":"hi"}]}`
			if tt.runRefused != "" {
				if rec := post(t.Context(), s, "/agui/chat", run, map[string]string{"Authorization": tt.runRefused}); rec.status != http.StatusUnauthorized {
					t.Errorf("a run with Authorization %q: %d, want 401: each token opens its own endpoints", tt.runRefused, rec.status)
				}
			}
			if rec := post(t.Context(), s, "/agui/chat", run, map[string]string{"Authorization": tt.runsOK}); rec.status != http.StatusOK {
				t.Errorf("a run with Authorization %q: %d %s", tt.runsOK, rec.status, rec.body())
			}
		})
	}
}

func TestWithoutATokenTheAdminAPIIsOpenToToolsThatAreNoBrowser(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.Metrics = true })
	for _, ep := range adminEndpoints(t, s) {
		if rec, _ := serve(s, adminRequest(ep[0], ep[1], "{}", "application/json", nil)); rec.Code == http.StatusUnauthorized || rec.Code == http.StatusForbidden {
			t.Errorf("%s %s: %d %s", ep[0], ep[1], rec.Code, rec.Body)
		}
	}
}

func TestTheAdminAPIRefusesWebPagesItDoesNotList(t *testing.T) {
	t.Parallel()
	const (
		listed = "http://localhost:3000"
		evil   = "http://evil.test"
		// a catch-all that would echo the next client's Authorization header
		catchAll = "id: evil\npriority: 1000\nsteps: [{text: '{{ index .headers \"authorization\" }}'}]\n"
	)
	tests := []struct {
		name        string
		origins     []string // --cors-origins
		method      string
		path, body  string
		contentType string
		header      map[string]string
		status      int
		code        string // the error of a refusal
	}{
		// tools that are no browser
		{"curl adds a scenario", nil, "POST", "/scenarios", catchAll, "application/yaml", nil, 201, ""},
		{"curl adds a scenario as JSON", nil, "POST", "/scenarios", `{"id":"evil","steps":[{"text":"x"}]}`, "application/json", nil, 201, ""},
		{"curl resets", nil, "POST", "/reset", "", "", nil, 204, ""},
		{"curl reads the journal", nil, "GET", "/journal", "", "", nil, 200, ""},
		// pages on other origins
		{"a simple text/plain POST from another origin", nil, "POST", "/scenarios", catchAll, "text/plain", map[string]string{"Origin": evil}, 403, "forbidden_origin"},
		{"a simple POST with a JSON type from another origin", nil, "POST", "/scenarios", catchAll, "application/json", map[string]string{"Origin": evil}, 403, "forbidden_origin"},
		{"a reset from another origin", nil, "POST", "/reset", "", "", map[string]string{"Origin": evil}, 403, "forbidden_origin"},
		{"a DELETE from another origin", nil, "DELETE", "/journal", "", "", map[string]string{"Origin": evil}, 403, "forbidden_origin"},
		{"a read of the journal from another origin", nil, "GET", "/journal", "", "", map[string]string{"Origin": evil}, 403, "forbidden_origin"},
		{"a read of the metrics from another origin", nil, "GET", "/../metrics", "", "", map[string]string{"Origin": evil}, 403, "forbidden_origin"},
		{"a page with an opaque origin", nil, "POST", "/reset", "", "", map[string]string{"Origin": "null"}, 403, "forbidden_origin"},
		{"an origin the list does not name", []string{listed}, "POST", "/reset", "", "", map[string]string{"Origin": "http://localhost:3001"}, 403, "forbidden_origin"},
		{"another site without an Origin", nil, "POST", "/reset", "", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "forbidden_origin"},
		{"the same site without an Origin", nil, "POST", "/reset", "", "", map[string]string{"Sec-Fetch-Site": "same-site"}, 403, "forbidden_origin"},
		{"a form posted from another site", nil, "POST", "/reset", "", "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}, 403, "forbidden_origin"},
		{"an image of another site", nil, "GET", "/journal", "", "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}, 403, "forbidden_origin"},
		// pages the mock allows
		{"a listed origin adds a scenario", []string{listed}, "POST", "/scenarios", catchAll, "application/yaml", map[string]string{"Origin": listed}, 201, ""},
		{"an origin a pattern lists", []string{"http://localhost:*"}, "POST", "/reset", "", "", map[string]string{"Origin": listed}, 204, ""},
		{"a listed origin reads the journal", []string{listed}, "GET", "/journal", "", "", map[string]string{"Origin": listed}, 200, ""},
		{"the server's own origin", nil, "POST", "/reset", "", "", map[string]string{"Origin": "http://example.com", "Sec-Fetch-Site": "same-origin"}, 204, ""},
		{"the same origin without an Origin", nil, "POST", "/reset", "", "", map[string]string{"Sec-Fetch-Site": "same-origin"}, 204, ""},
		{"an address the user types", nil, "GET", "/scenarios", "", "", map[string]string{"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate"}, 200, ""},
		{"a link the user follows from another site", nil, "GET", "/scenarios", "", "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}, 200, ""},
		// bodies only a preflighted request can carry
		{"a text/plain body from a listed origin", []string{listed}, "POST", "/scenarios", catchAll, "text/plain", map[string]string{"Origin": listed}, 415, "unsupported_media_type"},
		{"a text/plain body from a tool", nil, "POST", "/scenarios", catchAll, "text/plain", nil, 415, "unsupported_media_type"},
		{"a form body", nil, "POST", "/scenarios", catchAll, "application/x-www-form-urlencoded", nil, 415, "unsupported_media_type"},
		{"a multipart body", nil, "POST", "/scenarios", catchAll, "multipart/form-data; boundary=x", nil, 415, "unsupported_media_type"},
		{"a body of no type", nil, "POST", "/scenarios", catchAll, "", nil, 415, "unsupported_media_type"},
		{"a JSON body of another type", nil, "POST", "/force", `{"scenario":"x"}`, "text/plain;charset=UTF-8", nil, 415, "unsupported_media_type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log strings.Builder
			s := newServer(t, "", func(c *Config) {
				c.Metrics, c.Logger = true, slog.New(slog.NewTextHandler(&log, nil))
				if tt.origins != nil {
					c.CORSOrigins = tt.origins
				}
			})
			path := AdminPrefix + tt.path
			rec, answer := serve(s, adminRequest(tt.method, path, tt.body, tt.contentType, tt.header))
			if rec.Code != tt.status || answer.Error != tt.code {
				t.Fatalf("answered %d %s, want %d %s", rec.Code, rec.Body, tt.status, tt.code)
			}
			if tt.code == "" {
				return
			}
			if origin := tt.header["Origin"]; tt.code == "forbidden_origin" && origin != "" && !strings.Contains(answer.Message, "--cors-origins "+origin) {
				t.Errorf("the refusal does not say how to allow %s: %s", origin, answer.Message)
			}
			if tt.code == "forbidden_origin" && rec.Header().Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("a refusal of a page allows the page to read it: %v", rec.Header())
			}
			if !strings.Contains(log.String(), `level=WARN msg="refused a request" method=`+tt.method) {
				t.Errorf("the refusal is not logged:\n%s", log.String())
			}
			// the request did not run: the mock is unchanged
			if _, body := call(t, s, http.MethodGet, AdminPrefix+"/scenarios", "", nil); strings.Contains(body, `"id":"evil"`) {
				t.Errorf("the refused request added its scenario: %s", body)
			}
		})
	}
}

func TestAWildcardLetsAnyPageRunButNotReadOrChangeOtherClientsData(t *testing.T) {
	const (
		page = "http://127.0.0.1:5173" // another port of the mock's own host: another origin
		app  = "http://localhost:3000"
		run  = `{"threadId":"t1","runId":"r","messages":[{"id":"m","role":"user","content":"hello"}]}`
	)
	asTest := map[string]string{TestIDHeader: "victim"}
	tests := []struct {
		name, path, body, origin string
		header                   map[string]string
		status                   int
		allowOrigin              string
	}{
		{"a run from any page", "/agui/chat", run, page, nil, 200, "*"},
		{"a run as a test from another page", "/agui/chat", run, page, asTest, 403, "*"},
		{"a thread's history from another page", HistoryPath, `{"threadId":"t1"}`, page, nil, 403, ""},
		{"a test's thread's history from another page", HistoryPath, `{"threadId":"t1"}`, page, asTest, 403, ""},
		{"a cancel from another page", CancelPath, `{"threadId":"t1"}`, page, nil, 403, ""},
		{"a cancel from another page, with a trailing slash", CancelPath + "/", `{"threadId":"t1"}`, page, nil, 403, ""},
		{"a run as a test from the listed origin", "/agui/chat", run, app, asTest, 200, app},
		{"a history from the listed origin", HistoryPath, `{"threadId":"t1"}`, app, nil, 404, app},
		{"a cancel from the mock's own origin", CancelPath, `{"threadId":"t1"}`, "http://example.com", nil, 404, ""},
		{"a history from a tool, which sends no Origin", HistoryPath, `{"threadId":"t1"}`, "", asTest, 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, "", func(c *Config) { c.CORSOrigins = []string{"*", app}; c.Speed = 0 })
			header := map[string]string{}
			for k, v := range tt.header {
				header[k] = v
			}
			if tt.origin != "" {
				header["Origin"] = tt.origin
			}
			rec, answer := serve(s, adminRequest(http.MethodPost, tt.path, tt.body, "application/json", header))
			if rec.Code != tt.status || rec.Header().Get("Access-Control-Allow-Origin") != tt.allowOrigin {
				t.Fatalf("got %d %s, Access-Control-Allow-Origin %q; want %d and %q", rec.Code, rec.Body, rec.Header().Get("Access-Control-Allow-Origin"), tt.status, tt.allowOrigin)
			}
			if tt.status == 403 && (answer.Error != "forbidden_origin" || !strings.Contains(answer.Message, "--cors-origins "+tt.origin)) {
				t.Errorf("the refusal says %+v", answer)
			}
		})
	}
}

func TestAPageFromAnotherOriginConsumesNothingATestSetUp(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.Speed = 0 })
	asTest := map[string]string{TestIDHeader: "victim"}
	if rec, _ := serve(s, adminRequest(http.MethodPost, AdminPrefix+"/faults", `{"kind":"status","status":418}`, "application/json", asTest)); rec.Code != 201 && rec.Code != 200 && rec.Code != 204 {
		t.Fatalf("queueing a fault: %d %s", rec.Code, rec.Body)
	}
	run := `{"threadId":"t1","runId":"r","messages":[{"id":"m","role":"user","content":"hello"}]}`
	page := map[string]string{TestIDHeader: "victim", "Origin": "http://127.0.0.2:8000"}
	if rec, _ := serve(s, adminRequest(http.MethodPost, "/agui/chat", run, "application/json", page)); rec.Code != 403 {
		t.Fatalf("the page's run as the test: %d %s", rec.Code, rec.Body)
	}
	if rec, _ := serve(s, adminRequest(http.MethodPost, "/agui/chat", run, "application/json", asTest)); rec.Code != 418 {
		t.Errorf("the test's own run: %d %s, want the fault it queued", rec.Code, rec.Body)
	}
}

func TestTheHostHeaderMustNameTheServer(t *testing.T) {
	tests := []struct {
		allowed []string // --allowed-hosts
		host    string
		ok      bool
	}{
		{nil, "127.0.0.1:8000", true},
		{nil, "10.1.2.3", true},
		{nil, "[::1]:8000", true},
		{nil, "[fe80::1]", true},
		{nil, "localhost:8000", true},
		{nil, "LocalHost", true},
		{nil, "localhost.", true},
		{nil, "app.localhost:5173", true},
		{nil, "agui-mock:8000", true}, // a compose service
		{nil, "host.docker.internal:8000", true},
		{nil, "", true}, // HTTP/1.0, which no browser sends
		{nil, "evil.test:8000", false},
		{nil, "localhost.evil.test", false},
		{nil, "evil-localhost.test", false},
		{nil, "agui-mock.default.svc.cluster.local:8000", false},
		{[]string{"mock.example.com"}, "mock.example.com:8000", true},
		{[]string{"mock.example.com"}, "MOCK.Example.com", true},
		{[]string{"mock.example.com"}, "other.example.com", false},
		{[]string{"*.svc.cluster.local"}, "agui-mock.default.svc.cluster.local:8000", true},
		{[]string{"*.svc.cluster.local"}, "svc.cluster.local", false},
		{[]string{"*.svc.cluster.local"}, "evilsvc.cluster.local", false},
		{[]string{"mock.example.com."}, "mock.example.com", true},
		{[]string{"*"}, "anything.test", true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.allowed, ",")+" "+tt.host, func(t *testing.T) {
			s := newServer(t, "", func(c *Config) { c.Speed, c.AllowedHosts = 0, tt.allowed })
			for _, req := range []*http.Request{
				adminRequest(http.MethodGet, AdminPrefix+"/healthz", "", "", nil),
				adminRequest(http.MethodPost, "/agui/chat", `{"messages":[{"role":"user","content":"hi"}]}`, "application/json", nil),
			} {
				req.Host = tt.host
				rec, answer := serve(s, req)
				if ok := rec.Code == http.StatusOK; ok != tt.ok {
					t.Fatalf("%s: answered %d %s, want allowed %v", req.URL.Path, rec.Code, rec.Body, tt.ok)
				}
				if tt.ok {
					continue
				}
				name, _, _ := strings.Cut(tt.host, ":")
				if rec.Code != http.StatusForbidden || answer.Error != "forbidden_host" || !strings.Contains(answer.Message, `"`+tt.host+`"`) ||
					!strings.Contains(answer.Message, "--allowed-hosts "+name) {
					t.Errorf("%s: refused with %d %+v, want 403 forbidden_host naming the host and the flag", req.URL.Path, rec.Code, answer)
				}
			}
			if tt.ok {
				return
			}
			// the refused run is journaled; the refused admin call is not
			req := adminRequest(http.MethodGet, AdminPrefix+"/journal", "", "", nil)
			req.Host = "127.0.0.1:8000"
			rec, _ := serve(s, req)
			var j struct{ Entries []JournalEntry }
			if err := json.Unmarshal(rec.Body.Bytes(), &j); err != nil {
				t.Fatalf("journal: %d %s", rec.Code, rec.Body)
			}
			if entries := j.Entries; len(entries) != 1 || entries[0].Path != "/agui/chat" || entries[0].Status != http.StatusForbidden || entries[0].Error != "forbidden_host" ||
				!strings.Contains(entries[0].Reason, "--allowed-hosts") {
				t.Errorf("journal: %+v", j.Entries)
			}
		})
	}
}

func TestValidHostPattern(t *testing.T) {
	for s, want := range map[string]bool{
		"mock.example.com": true, "agui-mock": true, "*.svc.cluster.local": true, "*": true, "mock.test.": true, "under_score.test": true,
		"": false, "http://mock.test": false, "mock.test:8000": false, "mock.test/path": false, "*.": false, "a..b": false,
		"*mock.test": false, "mock.*.test": false, "mock test": false, "[::1]": false,
	} {
		if got := ValidHostPattern(s); got != want {
			t.Errorf("ValidHostPattern(%q) = %v, want %v", s, got, want)
		}
	}
}
