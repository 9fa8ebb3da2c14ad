package server

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

func TestCORS(t *testing.T) {
	const (
		app   = "http://localhost:3000"
		asked = "content-type,authorization,x-user-role,x-test-id"
	)
	// want lists the CORS headers of the answer; every one not listed must be absent.
	type want map[string]string
	preflight := func(origin string) *http.Request {
		req := httptest.NewRequest(http.MethodOptions, "/agui/chat", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", asked)
		return req
	}
	get := func(origin string) *http.Request { // answered 405, with the CORS headers of any answer
		req := httptest.NewRequest(http.MethodGet, "/agui/chat", nil)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		return req
	}
	adminPreflight := func(origin string) *http.Request {
		req := preflight(origin)
		req.URL.Path = AdminPrefix + "/scenarios"
		return req
	}
	allowedPreflight := func(origin, credentials string) want {
		return want{"Access-Control-Allow-Origin": origin, "Access-Control-Allow-Credentials": credentials,
			"Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS", "Access-Control-Allow-Headers": asked, "Access-Control-Max-Age": "600"}
	}
	allowedCall := func(origin, credentials string) want {
		return want{"Access-Control-Allow-Origin": origin, "Access-Control-Allow-Credentials": credentials,
			"Access-Control-Expose-Headers": "X-Request-Id, Retry-After, WWW-Authenticate, Allow"}
	}
	tests := []struct {
		name    string
		origins []string
		req     *http.Request
		status  int
		want    want
	}{
		{"any origin: a preflight allows every header asked for, without credentials", []string{"*"}, preflight("http://anywhere.test"), 204,
			allowedPreflight("*", "")},
		{"any origin: a call may read the mock's headers", []string{"*"}, get("http://anywhere.test"), 405, allowedCall("*", "")},
		{"any origin: a call without Origin is no browser's", []string{"*"}, get(""), 405, want{}},
		{"a listed origin: its preflight allows credentials", []string{app}, preflight(app), 204, allowedPreflight(app, "true")},
		{"a listed origin: its calls allow credentials", []string{app}, get(app), 405, allowedCall(app, "true")},
		{"an unlisted origin: its preflight is answered without CORS headers", []string{app}, preflight("http://evil.test"), 204, want{}},
		{"an unlisted origin: its call is answered without CORS headers", []string{app}, get("http://evil.test"), 405, want{}},
		{"another port is another origin", []string{app}, get("http://localhost:3001"), 405, want{}},
		{"* matches any characters", []string{"http://localhost:*"}, preflight("http://localhost:5173"), 204, allowedPreflight("http://localhost:5173", "true")},
		{"* matches nothing else around it", []string{"http://localhost:*"}, preflight("http://127.0.0.1:5173"), 204, want{}},
		{"? matches one character", []string{"http://app?.test"}, get("http://app2.test"), 405, allowedCall("http://app2.test", "true")},
		{"a dot is a dot", []string{"http://app.test"}, get("http://appxtest"), 405, want{}},
		{"scheme and host match in any case", []string{"HTTP://LocalHost:3000"}, get(app), 405, allowedCall(app, "true")},
		{"with * as well, a listed origin still gets credentials", []string{"*", app}, preflight(app), 204, allowedPreflight(app, "true")},
		{"with * as well, another origin gets no credentials", []string{"*", app}, preflight("http://other.test"), 204, allowedPreflight("*", "")},
		{"any origin: the admin API allows no wildcard", []string{"*"}, adminPreflight("http://anywhere.test"), 204, want{}},
		{"a listed origin: the admin API allows it", []string{"*", app}, adminPreflight(app), 204, allowedPreflight(app, "true")},
	}
	cors := []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials", "Access-Control-Allow-Methods",
		"Access-Control-Allow-Headers", "Access-Control-Expose-Headers", "Access-Control-Max-Age"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, "", func(c *Config) { c.CORSOrigins = tt.origins })
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, tt.req)
			if rec.Code != tt.status {
				t.Errorf("status %d, want %d", rec.Code, tt.status)
			}
			for _, name := range cors {
				if got := rec.Header().Get(name); got != tt.want[name] {
					t.Errorf("%s: %q, want %q", name, got, tt.want[name])
				}
			}
			if vary := rec.Header().Values("Vary"); !slices.Contains(vary, "Origin") {
				t.Errorf("Vary %q lacks Origin: the answer depends on it", vary)
			}
		})
	}
}

func TestWithoutCORSAPreflightIsAnOrdinaryRequest(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.CORSOrigins = nil })
	req := httptest.NewRequest(http.MethodOptions, "/agui/chat", nil)
	req.Header.Set("Origin", "http://localhost:3000")
	req.Header.Set("Access-Control-Request-Method", "POST")
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("got %d %v, want 405 without CORS headers", rec.Code, rec.Header())
	}
}
