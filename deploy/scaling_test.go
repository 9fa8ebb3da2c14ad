package deploy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/internal/cmd"
	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/server"
)

// nginxTest skips a test of the real nginx under -short: go test -short runs none.
func nginxTest(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real nginx: not run with -short")
	}
}

// nginxBinary returns Debian's nginx, or skips the test where it is not installed; in
// CI (CI set) a missing nginx fails it: .ci/with-nginx installs it.
func nginxBinary(t *testing.T) string {
	t.Helper()
	for _, candidate := range []string{"nginx", "/usr/sbin/nginx"} {
		if path, err := exec.LookPath(candidate); err == nil {
			return path
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI is set but nginx is not installed (apt-get install nginx, or run under .ci/with-nginx)")
	}
	t.Skip("SKIPPED LOUDLY: nginx is not installed (apt-get install nginx); the two-replica test needs it")
	return ""
}

// freePort returns a loopback port nobody listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startNginx runs nginx with the shipped config (deploy/nginx/agui-mock.conf), its
// replicas and listener replaced by the given ones, until the test ends, and returns
// its base URL. A request's clientAddressHeader stands for the address it comes from,
// as the realip module does behind a proxy, so that a test on loopback can be a client
// anywhere.
func startNginx(t *testing.T, replicas []string) string {
	t.Helper()
	bin := nginxBinary(t)
	shipped, err := os.ReadFile("nginx/agui-mock.conf")
	if err != nil {
		t.Fatal(err)
	}
	servers := regexp.MustCompile(`(?m)^(\s*)server \S+:\d+;\n`)
	first := true
	site := servers.ReplaceAllStringFunc(string(shipped), func(line string) string {
		if !first {
			return ""
		}
		first = false
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		var b strings.Builder
		for _, r := range replicas {
			fmt.Fprintf(&b, "%sserver %s;\n", indent, strings.TrimPrefix(r, "http://"))
		}
		return b.String()
	})
	port := freePort(t)
	site = regexp.MustCompile(`(?m)^(\s*)listen \d+;`).ReplaceAllString(site, fmt.Sprintf("${1}listen 127.0.0.1:%d;", port))

	prefix := t.TempDir()
	if err := os.Chmod(prefix, 0o755); err != nil { // workers may run as another user
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
worker_processes 1;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path %[1]s/client_body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    set_real_ip_from 127.0.0.1;
    real_ip_header %[2]s;
    include %[1]s/agui-mock.conf;
}
`, prefix, clientAddressHeader)
	for name, content := range map[string]string{"nginx.conf": conf, "agui-mock.conf": site} {
		if err := os.WriteFile(filepath.Join(prefix, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "-p", prefix, "-c", filepath.Join(prefix, "nginx.conf"), "-e", filepath.Join(prefix, "error.log"), "-g", "daemon off;")
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGQUIT) // graceful: ends the worker, then the master
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(10 * time.Second); ; {
		select {
		case err := <-exited:
			log, _ := os.ReadFile(filepath.Join(prefix, "error.log"))
			t.Fatalf("nginx exited: %v\n%s%s", err, stderr.String(), log)
		default:
		}
		if conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			conn.Close()
			return url
		}
		if time.Now().After(deadline) {
			t.Fatal("nginx did not listen within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// replicaOf returns which of the two replicas nginx sends a test's requests to: the
// second serves one scenario more.
func replicaOf(t *testing.T, proxy, testID string) int {
	t.Helper()
	status, body := call(t, http.MethodGet, proxy+server.AdminPrefix+"/readyz", testID, "")
	var ready struct{ Scenarios int }
	if err := json.Unmarshal([]byte(body), &ready); status != http.StatusOK || err != nil {
		t.Fatalf("readyz through nginx: %d %s", status, body)
	}
	return ready.Scenarios - 3
}

// call sends a request with a test's id, and any header given as name, value, and
// returns the answer's status and body.
func call(t *testing.T, method, url, testID, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(server.TestIDHeader, testID)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return resp.StatusCode, string(b)
}

// journalOf returns the runs a replica journaled for a test: scenario and outcome each.
func journalOf(t *testing.T, base, testID string) []string {
	t.Helper()
	status, body := call(t, http.MethodGet, base+server.AdminPrefix+"/journal?route=/agui/chat", testID, "")
	if status != http.StatusOK {
		t.Fatalf("journal: %d %s", status, body)
	}
	var j struct{ Entries []server.JournalEntry }
	if err := json.Unmarshal([]byte(body), &j); err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, e := range j.Entries {
		runs = append(runs, e.Scenario+"/"+string(e.Outcome))
	}
	return runs
}

// Two replicas behind a real nginx with the shipped config: tests running at once, each
// under its own X-Test-Id, force scenarios, queue faults and read their journals through
// nginx, and each finds what it set up, because all its requests reach one replica.
func TestTwoReplicasBehindNginxKeepEachTestOnOneReplica(t *testing.T) {
	nginxTest(t)
	dir, extra := t.TempDir(), t.TempDir()
	for name, content := range map[string]string{
		"plain.yaml": "id: plain\nmatch: {message: ^hello$}\nsteps: [{text: plain reply}]\n",
		"left.yaml":  "id: left\nmatch: {message: ^never$}\nsteps: [{text: left side}]\n",
		"right.yaml": "id: right\nmatch: {message: ^never$}\nsteps: [{text: right side}]\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The second replica serves one scenario more, so that its readiness answer tells
	// which replica a request reached.
	if err := os.WriteFile(filepath.Join(extra, "extra.yaml"), []byte("id: extra\nmatch: {message: ^extra$}\nsteps: [{text: extra}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"AGUI_MOCK_SPEED": "0", "AGUI_MOCK_NO_BUILTIN": "true", "AGUI_MOCK_WATCH": "off"}
	var replicas []string
	for _, scenarios := range []string{dir, dir + "," + extra} {
		vars["AGUI_MOCK_SCENARIOS"] = scenarios
		replicas = append(replicas, testkit.Start(t, cmd.Run, []string{"--addr", "127.0.0.1:0"}, vars, io.Discard))
	}
	proxy := startNginx(t, replicas)

	// Test ids until each replica has four: the hash, not the test, decides where each goes.
	const perReplica = 4
	landed := map[string]int{} // test id → the replica nginx sends it to
	count := make([]int, len(replicas))
	for i := 0; count[0] < perReplica || count[1] < perReplica; i++ {
		if i == 1000 {
			t.Fatalf("1,000 test ids spread as %v: the hash does not spread tests", count)
		}
		testID := fmt.Sprintf("shard-%d", i)
		r := replicaOf(t, proxy, testID)
		for range 3 { // every request of a test lands on the same replica
			if again := replicaOf(t, proxy, testID); again != r {
				t.Fatalf("%s reached replica %d, then %d", testID, r, again)
			}
		}
		if count[r] < perReplica {
			landed[testID] = r
			count[r]++
		}
	}

	t.Run("tests", func(t *testing.T) {
		i := 0
		for testID := range landed {
			forced := []string{"left", "right"}[i%2]
			i++
			t.Run(testID, func(t *testing.T) {
				t.Parallel()
				admin := proxy + server.AdminPrefix
				if status, body := call(t, http.MethodPost, admin+"/force", testID, `{"scenario":"`+forced+`"}`); status != http.StatusOK {
					t.Fatalf("force: %d %s", status, body)
				}
				// after RUN_STARTED, TEXT_MESSAGE_START and the first delta
				if status, body := call(t, http.MethodPost, admin+"/faults", testID, `{"kind":"runError","after":3,"message":"broken for `+testID+`"}`); status != http.StatusCreated {
					t.Fatalf("fault: %d %s", status, body)
				}
				hello := `{"messages":[{"role":"user","content":"hello"}]}`
				// the first run plays the forced scenario and meets the queued fault
				_, stream := call(t, http.MethodPost, proxy+"/agui/chat", testID, hello)
				if !strings.Contains(stream, `"delta":"`+forced) || !strings.Contains(stream, "broken for "+testID) {
					t.Errorf("first run: want %s broken by the fault, got\n%s", forced, stream)
				}
				// the next plays what it matches, whole: force and fault were used up. It plays
				// with its delays, so that its stream, taken over from net/http at its first
				// wait, reaches the client in chunks through nginx.
				if _, stream := call(t, http.MethodPost, proxy+"/agui/chat", testID, hello, server.SpeedHeader, "0.05"); !strings.Contains(stream, `"delta":"plain`) || !strings.Contains(stream, "RUN_FINISHED") {
					t.Errorf("second run: want plain, finished, got\n%s", stream)
				}
				want := fmt.Sprint([]string{forced + "/error", "plain/success"})
				if got := fmt.Sprint(journalOf(t, proxy, testID)); got != want {
					t.Errorf("journal through nginx: %s, want %s", got, want)
				}
			})
		}
	})
	// Each test's runs are in the journal of the replica it hashed to, and only there.
	for testID, want := range landed {
		for r, base := range replicas {
			if runs := journalOf(t, base, testID); (len(runs) > 0) != (r == want) {
				t.Errorf("%s hashes to replica %d, and replica %d journaled its runs %v", testID, want, r, runs)
			}
		}
	}
}
