package deploy_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/internal/cmd"
	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/server"
)

// clientAddressHeader is the header whose address the nginx of startNginx takes as a
// request's client's.
const clientAddressHeader = "X-Test-Client-Address"

// The admin API's paths and /metrics, as clients may spell them: nginx decodes and
// normalises a path before it picks a location, and passes it to the replica as sent.
var adminPaths = []string{
	server.AdminPrefix + "/readyz",
	server.AdminPrefix + "/status",
	server.AdminPrefix + "/journal?route=/agui/chat",
	server.AdminPrefix + "/ui",
	server.AdminPrefix,
	"/metrics",
	"/%5Fmock/readyz",
	"/agui/../_mock/readyz",
	"//_mock/readyz",
}

// The shipped nginx config passes the admin API and /metrics to clients on loopback and
// private networks alone; any other client is refused by nginx, with a message naming
// its address, and still reaches the AG-UI endpoints.
func TestNginxServesTheAdminAPIToLoopbackAndPrivateAddressesOnly(t *testing.T) {
	nginxTest(t)
	replica := testkit.Start(t, cmd.Run, []string{"--addr", "127.0.0.1:0"},
		map[string]string{"AGUI_MOCK_SPEED": "0", "AGUI_MOCK_METRICS": "true", "AGUI_MOCK_WATCH": "off"}, io.Discard)
	proxy := startNginx(t, []string{replica})

	t.Run("allowed", func(t *testing.T) {
		// "" is the test's own address, 127.0.0.1
		for _, from := range []string{"", "127.0.0.9", "::1", "10.1.2.3", "172.16.0.9", "172.31.255.254", "192.168.1.20", "fd12:3456::7", "::ffff:10.0.0.5"} {
			for _, path := range adminPaths {
				want, _ := call(t, http.MethodGet, replica+path, "t-admin", "")
				if got, body := call(t, http.MethodGet, proxy+path, "t-admin", "", clientAddressHeader, from); got != want {
					t.Errorf("GET %s from %q through nginx: %d %s, want the replica's %d", path, from, got, body, want)
				}
			}
		}
	})

	t.Run("refused", func(t *testing.T) {
		for _, from := range []string{"203.0.113.7", "8.8.8.8", "11.0.0.1", "172.32.0.1", "172.15.255.255", "192.169.0.1", "2001:db8::1", "::ffff:203.0.113.7"} {
			for _, path := range adminPaths {
				status, body := call(t, http.MethodGet, proxy+path, "t-admin", "", clientAddressHeader, from)
				var refusal struct{ Error, Message string }
				if err := json.Unmarshal([]byte(body), &refusal); status != http.StatusForbidden || err != nil || refusal.Error != "forbidden_address" {
					t.Errorf("GET %s from %s through nginx: %d %s, want 403 forbidden_address", path, from, status, body)
					continue
				}
				if addr := strings.TrimPrefix(from, "::ffff:"); !strings.Contains(refusal.Message, addr) || !strings.Contains(refusal.Message, "geo block of agui-mock.conf") {
					t.Errorf("the refusal of %s says %q: want its address and how to open the admin API", from, refusal.Message)
				}
			}
			// a change is refused as a read is
			if status, body := call(t, http.MethodPost, proxy+server.AdminPrefix+"/reset", "t-admin", "", clientAddressHeader, from); status != http.StatusForbidden {
				t.Errorf("POST /_mock/reset from %s through nginx: %d %s, want 403", from, status, body)
			}
			// the AG-UI endpoints answer everyone
			run := `{"threadId":"t-1","runId":"r-1","messages":[{"id":"u-1","role":"user","content":"hello"}]}`
			if status, stream := call(t, http.MethodPost, proxy+"/agui/chat", "t-run", run, clientAddressHeader, from); status != http.StatusOK || !strings.Contains(stream, "RUN_FINISHED") {
				t.Errorf("a run from %s through nginx: %d\n%s", from, status, stream)
			}
		}
	})
}

// Without nginx at hand, the config still says it: the geo block refuses by default, and
// the location that checks it is the one of the admin API's paths and /metrics.
func TestTheNginxConfigRefusesTheAdminAPIByDefault(t *testing.T) {
	data, err := os.ReadFile("nginx/agui-mock.conf")
	if err != nil {
		t.Fatal(err)
	}
	conf := string(data)
	geo := regexp.MustCompile(`(?ms)^geo \$agui_mock_admin_client \{\n(.*?)^\}`).FindStringSubmatch(conf)
	if geo == nil || !regexp.MustCompile(`(?m)^\s*default\s+refused;`).MatchString(geo[1]) {
		t.Fatalf("deploy/nginx/agui-mock.conf has no geo block $agui_mock_admin_client whose default is refused")
	}
	location := regexp.MustCompile(`(?m)^\s*location ~ (\S+) \{\n\s*default_type application/json;\n\s*if \(\$agui_mock_admin_client = refused\) \{\n\s*return 403 `).FindStringSubmatch(conf)
	if location == nil {
		t.Fatal("deploy/nginx/agui-mock.conf has no regex location that refuses the clients the geo block refuses")
	}
	paths := regexp.MustCompile(location[1])
	for _, path := range []string{server.AdminPrefix, server.AdminPrefix + "/", server.AdminPrefix + "/reset", server.AdminPrefix + "/ui", "/metrics"} {
		if !paths.MatchString(path) {
			t.Errorf("the refusing location %s does not cover %s", location[1], path)
		}
	}
	for _, path := range []string{"/agui/chat", "/agui/history", "/copilotkit", "/", "/_mockup", "/metricsx"} {
		if paths.MatchString(path) {
			t.Errorf("the refusing location %s covers %s, which everyone may call", location[1], path)
		}
	}
}
