package docs_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/internal/cmd"
	"github.com/agui-mock/agui-mock/internal/testkit"
)

// curlCall is a curl command of a document: where it posts, its headers and its body.
type curlCall struct {
	path    string
	headers map[string]string
	body    string
}

// curlCalls reads the curl commands of a document's sh blocks that post to the mock at
// http://127.0.0.1:8000, with a -d body in single quotes.
func curlCalls(t *testing.T, doc string) []curlCall {
	t.Helper()
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	var calls []curlCall
	for _, block := range fencedBlocks(string(data), "sh") {
		text := strings.ReplaceAll(block.text, "\\\n", " ")
		for _, m := range regexp.MustCompile(`(?s)curl -X POST http://127\.0\.0\.1:8000(\S+)(.*?) -d '(.*?)'`).FindAllStringSubmatch(text, -1) {
			call := curlCall{path: m[1], headers: map[string]string{}, body: m[3]}
			for _, h := range regexp.MustCompile(`-H '([^:]+): ([^']*)'`).FindAllStringSubmatch(m[2], -1) {
				call.headers[h[1]] = h[2]
			}
			calls = append(calls, call)
		}
	}
	return calls
}

// TestCopilotKitSeedingIsTrue does what docs/copilotkit.md shows of seeded conversations
// and the handshake, as written: it serves the page's scenario and thread document, posts
// its curl commands, and checks that the seeded thread restores through connect and that
// answering it plays the scenario's branch.
func TestCopilotKitSeedingIsTrue(t *testing.T) {
	const doc = "docs/copilotkit.md"
	dir := t.TempDir()
	blocks := yamlBlocks(t, doc)
	var scenario, thread string
	for _, b := range blocks {
		switch {
		case strings.HasPrefix(b.text, "id: publish\n"):
			scenario = b.text
		case strings.HasPrefix(b.text, "thread:\n"):
			thread = b.text
		}
	}
	if scenario == "" || thread == "" {
		t.Fatalf("%s lost its publish scenario or its thread document", doc)
	}
	for name, content := range map[string]string{"publish.yaml": scenario, "yesterday.yaml": thread} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	url := testkit.Start(t, cmd.Run, []string{"--addr", "127.0.0.1:0", "--scenarios", dir, "--speed", "0"}, nil, io.Discard)
	post := func(path, body string, headers map[string]string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out)
	}
	calls := curlCalls(t, doc)
	paths := map[string]bool{}
	for _, call := range calls {
		paths[call.path] = true
		if status, out := post(call.path, call.body, call.headers); status != http.StatusCreated {
			t.Errorf("%s as the page shows it: %d %s", call.path, status, out)
		}
	}
	if !paths["/_mock/threads"] || !paths["/_mock/faults"] {
		t.Fatalf("%s lost its curl commands of /_mock/threads and /_mock/faults: %v", doc, paths)
	}
	test := map[string]string{"X-Test-Id": "t1"}
	_, replay := post("/copilotkit/agent/default/connect", `{"threadId":"yesterday","runId":"r","messages":[],"tools":[],"context":[]}`, test)
	if !strings.Contains(replay, `"outcome":{"interrupts":[{"id":"int-publish"`) {
		t.Errorf("the seeded thread does not restore waiting: %s", replay)
	}
	_, answered := post("/copilotkit/agent/default/run", `{"threadId":"yesterday","runId":"r2","messages":[],"tools":[],"context":[],"resume":[{"interruptId":"int-publish","status":"resolved","payload":{"approved":true}}]}`, test)
	if !strings.Contains(answered, `"delta":"Published."`) {
		t.Errorf("the answer does not continue the scenario: %s", answered)
	}
	if _, file := post("/copilotkit/agent/default/connect", `{"threadId":"trip-yesterday","runId":"r","messages":[],"tools":[],"context":[]}`, map[string]string{"X-Test-Id": "another"}); !strings.Contains(file, "Alfama") {
		t.Errorf("the thread document does not restore: %s", file)
	}
}
