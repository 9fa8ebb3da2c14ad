package cmd

import (
	"encoding/json"
	"encoding/xml"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/protocol"
)

// verifyFixtures copies built-in scenarios into a directory of fixtures, the way a
// team keeps recordings of its agent: clarify (a frontend tool, two turns) and
// media-management (two interrupts, a turn per way of answering them).
func verifyFixtures(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"clarify.yaml", "media-management.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "builtin", name))
		if err != nil {
			t.Fatal(err)
		}
		testkit.WriteFile(t, filepath.Join(dir, name), string(data))
	}
	return dir
}

// tokenAgent is a real AG-UI agent, agui-mock serving its built-in scenarios, that
// wants a bearer token; it returns its run endpoint.
func tokenAgent(t *testing.T, token string) string {
	t.Helper()
	agent := builtinAgent(t, 0)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		agent.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/agui/chat"
}

func verifyCmd(t *testing.T, args []string, vars map[string]string) (int, string, string) {
	t.Helper()
	var out, errOut strings.Builder
	code := run(t.Context(), append([]string{"verify"}, args...), env(vars), &out, &errOut)
	return code, out.String(), errOut.String()
}

// The command against a real agent: a clean pass, a drift with its file and line, the
// JSON and JUnit reports, an update and the clean verify after it; the token the agent
// wants, from the flag or the environment, is in none of what it writes.
func TestVerifyCommand(t *testing.T) {
	const token = "tok-3b1f9c-never-written"
	url := tokenAgent(t, token)
	dir := verifyFixtures(t)
	auth := []string{"--upstream", url, "--header", "Authorization: Bearer " + token}

	code, out, stderr := verifyCmd(t, append(auth, dir), nil)
	if code != 0 || !strings.HasSuffix(out, "2 scenario(s) verified: 2 pass, 0 drift, 0 error\n") {
		t.Fatalf("clean: exit %d\n%s%s", code, out, stderr)
	}

	// the fixture now says the agent asks a question where it asks for a clarification
	clarify := filepath.Join(dir, "clarify.yaml")
	data, _ := os.ReadFile(clarify)
	testkit.WriteFile(t, clarify, strings.Replace(string(data), "name: clarify", "name: ask_user", 1))
	junit := filepath.Join(t.TempDir(), "verify.xml")
	code, out, stderr = verifyCmd(t, []string{dir, "--junit", junit, "--format", "json"},
		map[string]string{"AGUI_MOCK_UPSTREAM": url, "AGUI_MOCK_HEADER": "Authorization: Bearer " + token})
	if code != 1 {
		t.Fatalf("drift: exit %d\n%s%s", code, out, stderr)
	}
	var rep struct {
		Results []struct {
			Scenario, File, Status, Difference string
			Line                               int
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	drift := rep.Results[0]
	if drift.Scenario != "clarify" || drift.Status != "drift" || drift.File != clarify || drift.Line != 5 ||
		drift.Difference != "example 1, turn 1: the agent now sends TOOL_CALL_START clarify where the fixture has TOOL_CALL_START ask_user" {
		t.Errorf("the drift: %+v", drift)
	}
	xmlData, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests  int `xml:"tests,attr"`
		Suites []struct {
			Cases []struct {
				Name string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(xmlData, &suites); err != nil || len(suites.Suites) != 2 || len(suites.Suites[1].Cases) < 2 {
		t.Errorf("the JUnit report (%v):\n%s", err, xmlData)
	}

	code, out, stderr = verifyCmd(t, append(auth, "--update", dir), nil)
	if code != 0 || !strings.Contains(out, clarify+":5: updated: scenario clarify re-recorded from the agent; what changed: example 1, turn 1: the agent now sends TOOL_CALL_START clarify") {
		t.Fatalf("update: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = verifyCmd(t, append(auth, dir), nil)
	if code != 0 {
		t.Fatalf("after the update: exit %d\n%s%s", code, out, stderr)
	}
	updated, _ := os.ReadFile(clarify)
	for what, text := range map[string]string{"the fixture": string(updated), "the JUnit report": string(xmlData), "the report": out} {
		if strings.Contains(text, token) {
			t.Errorf("%s holds the token:\n%s", what, text)
		}
	}

	code, out, _ = verifyCmd(t, []string{"--upstream", url, dir}, nil)
	if code != 2 || !strings.Contains(out, "error: scenario clarify: example 1, turn 1: the agent refused the run: 401 Unauthorized") {
		t.Errorf("without the token: exit %d\n%s", code, out)
	}
}

func TestVerifyCommandErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	dir := verifyFixtures(t)
	code, out, _ := verifyCmd(t, []string{"--upstream", closed, "--timeout", "5s", dir}, nil)
	if code != 2 || !strings.Contains(out, "the agent is unreachable") || !strings.Contains(out, "0 pass, 0 drift, 2 error") {
		t.Errorf("an unreachable agent: exit %d\n%s", code, out)
	}
	bad := filepath.Join(dir, "bad.yaml")
	testkit.WriteFile(t, bad, "steps: [{txt: hi}]\n")
	code, _, stderr := verifyCmd(t, []string{"--upstream", closed, dir}, nil)
	if code != 2 || !strings.Contains(stderr, bad+":1:10: unknown key \"txt\"") || !strings.Contains(stderr, "nothing was verified") {
		t.Errorf("a scenario that does not load: exit %d\n%s", code, stderr)
	}
}

// With --transport proto the agent is asked for AG-UI protobuf frames, and its answer in
// them is read and compared as an SSE one is; a bad transport is refused by name.
func TestVerifyCommandOverProtobuf(t *testing.T) {
	agent := builtinAgent(t, 0)
	var accepts, answered []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		accepts = append(accepts, r.Header.Get("Accept"))
		mu.Unlock()
		agent.ServeHTTP(w, r)
		mu.Lock()
		answered = append(answered, w.Header().Get("Content-Type"))
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	dir := verifyFixtures(t)

	code, out, stderr := verifyCmd(t, []string{"--upstream", srv.URL + "/agui/chat", "--transport", "proto", dir}, nil)
	if code != 0 || !strings.HasSuffix(out, "2 scenario(s) verified: 2 pass, 0 drift, 0 error\n") {
		t.Fatalf("over protobuf: exit %d\n%s%s", code, out, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(answered) == 0 {
		t.Fatal("the agent was not asked")
	}
	for i := range answered {
		if accepts[i] != protocol.ProtoContentType || answered[i] != protocol.ProtoContentType {
			t.Errorf("run %d: asked with Accept %q, answered in %q; want protobuf both ways", i+1, accepts[i], answered[i])
		}
	}

	code, _, stderr = verifyCmd(t, []string{"--upstream", srv.URL, "--transport", "grpc", dir}, nil)
	if code != 2 || !strings.Contains(stderr, "transport") || !strings.Contains(stderr, "sse or proto") {
		t.Errorf("a bad transport: exit %d\n%s", code, stderr)
	}
}
