package server

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// inspectorBudget is the most the inspector's assets may weigh together: it is served
// from the binary and must load at once, offline.
const inspectorBudget = 300 << 10

func TestInspectorSize(t *testing.T) {
	total := 0
	err := fs.WalkDir(inspectorAssets, "inspector", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := inspectorAssets.ReadFile(path)
		total += len(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if total == 0 || total > inspectorBudget {
		t.Errorf("the inspector's assets weigh %d bytes; the budget is %d", total, inspectorBudget)
	}
}

// Every asset the page and its modules name is embedded, and nothing comes from
// elsewhere: the page works offline.
func TestInspectorAssetsAreAllEmbedded(t *testing.T) {
	ref := regexp.MustCompile(`(?:src|href)="([^"#]+)"|from '([^']+)'`)
	for _, name := range []string{"index.html", "app.js", "timeline.js"} {
		b, err := inspectorAssets.ReadFile("inspector/" + name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ref.FindAllStringSubmatch(string(b), -1) {
			target := m[1] + m[2]
			if strings.HasPrefix(target, "http") || strings.HasPrefix(target, "//") {
				t.Errorf("%s loads %s from elsewhere", name, target)
				continue
			}
			asset := strings.TrimPrefix(strings.TrimPrefix(target, inspectorPath+"/"), "./")
			if _, err := inspectorAssets.ReadFile("inspector/" + asset); err != nil {
				t.Errorf("%s names %s, which is not embedded", name, target)
			}
		}
	}
}

func TestInspectorIsServedWithItsPolicy(t *testing.T) {
	s := newServer(t, "", nil)
	for path, ctype := range map[string]string{inspectorPath: "text/html", inspectorPath + "/app.js": "text/javascript", inspectorPath + "/inspector.css": "text/css"} {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), ctype) {
			t.Errorf("%s: %d %s", path, rec.Code, rec.Header().Get("Content-Type"))
		}
		if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: policy %q", path, csp)
		}
	}
	for _, path := range []string{inspectorPath + "/nope.js", inspectorPath + "/index.txt"} {
		if status, _ := call(t, s, http.MethodGet, path, "", nil); status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, status)
		}
	}
}

// With a token, the page (which holds no data) opens without it and asks for it; the
// admin API behind it still requires it, and pages of other sites are still refused.
func TestInspectorPageNeedsNoTokenButItsDataDoes(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.AdminToken = "secret" })
	get := func(path string, header map[string]string) int {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		return rec.Code
	}
	if got := get(inspectorPath, nil); got != 200 {
		t.Errorf("the page without a token: %d", got)
	}
	for _, path := range []string{AdminPrefix + "/journal", AdminPrefix + "/journal/stream", AdminPrefix + "/journal/1"} {
		if got := get(path, nil); got != http.StatusUnauthorized {
			t.Errorf("%s without a token: %d", path, got)
		}
	}
	if got := get(inspectorPath+"/app.js", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}); got != http.StatusForbidden {
		t.Errorf("another site's page loading the script: %d", got)
	}
}
