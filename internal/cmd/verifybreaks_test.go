package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/internal/testkit"
)

// A recording marked with the producer rule its agent breaks verifies against that
// agent with a warning naming the rule, exit 0; -strict fails the break, exit 1; the
// JUnit report names the rule either way.
func TestVerifyCommandWarnsOfAMarkedBreakAndStrictFailsIt(t *testing.T) {
	agent := testkit.Agent(t, func(w *testkit.Stream, run *testkit.Run) {
		var in struct{ ThreadID, RunID string }
		run.Decode(&in)
		w.Event(map[string]any{"type": "RUN_STARTED", "threadId": in.ThreadID, "runId": in.RunID})
		w.Event(map[string]any{"type": "TEXT_MESSAGE_START", "messageId": "lg-m", "role": "assistant"})
		w.Event(map[string]any{"type": "TEXT_MESSAGE_CONTENT", "messageId": "lg-m", "delta": "hi"})
		w.Event(map[string]any{"type": "TEXT_MESSAGE_END", "messageId": "lg-m"})
		w.Event(map[string]any{"type": "RUN_FINISHED", "threadId": in.ThreadID, "runId": "langgraph-own-run"})
	})
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "hi.yaml"), "id: hi\nbreaks: [finished-run-id]\nmatch: {message: ^hi$}\nexamples: [{message: hi}]\nevents:\n"+
		"  - {type: RUN_STARTED, runId: '{{ .runId }}', threadId: '{{ .threadId }}'}\n"+
		"  - {type: TEXT_MESSAGE_START, messageId: '{{ id `m1` }}', role: assistant}\n"+
		"  - {type: TEXT_MESSAGE_CONTENT, messageId: '{{ id `m1` }}', delta: hi}\n"+
		"  - {type: TEXT_MESSAGE_END, messageId: '{{ id `m1` }}'}\n"+
		"  - {type: RUN_FINISHED, runId: '{{ id `r1` }}', threadId: '{{ .threadId }}'}\n")
	junit := filepath.Join(t.TempDir(), "verify.xml")
	code, out, stderr := verifyCmd(t, []string{"--upstream", agent.String(), "--junit", junit, dir}, nil)
	if code != 0 || !strings.Contains(out, "warning: scenario hi: example 1, turn 1: the agent breaks rule finished-run-id") ||
		!strings.HasSuffix(out, "1 scenario(s) verified: 1 pass, 0 drift, 0 error; 1 warning(s)\n") {
		t.Fatalf("marked: exit %d\n%s%s", code, out, stderr)
	}
	if data, _ := os.ReadFile(junit); !strings.Contains(string(data), `<property name="breaks" value="finished-run-id">`) || !strings.Contains(string(data), `failures="0"`) {
		t.Errorf("the JUnit report:\n%s", data)
	}
	code, out, stderr = verifyCmd(t, []string{"--upstream", agent.String(), "--strict", "--junit", junit, dir}, nil)
	if code != 1 || !strings.Contains(out, "drift: scenario hi: example 1, turn 1: the agent breaks rule finished-run-id") {
		t.Fatalf("strict: exit %d\n%s%s", code, out, stderr)
	}
	if data, _ := os.ReadFile(junit); !strings.Contains(string(data), `<failure message="the agent breaks rule finished-run-id`) {
		t.Errorf("the strict JUnit report:\n%s", data)
	}
}
