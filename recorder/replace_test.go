package recorder_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/recorder"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
)

// Replace puts a session's recording in place of one scenario of a file: the scenario
// keeps its id, description, priority, match and examples, the file's other scenarios
// and comments stay, and a target that is no longer where it was is refused with the
// file untouched.
func TestReplacePutsARecordingInPlaceOfOneScenario(t *testing.T) {
	out := t.TempDir()
	upstream := streamingUpstream(t, func(w io.Writer) {
		for _, line := range []string{
			`{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Fresh answer."}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
			`{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}`,
		} {
			_, _ = w.Write([]byte("data: " + line + "\n\n"))
		}
	})
	rec, err := recorder.New(recorder.Config{Upstream: upstream, OutDir: out, Dedupe: true, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	scfg := server.DefaultConfig()
	scfg.Recorder, scfg.RecordAll = rec, true
	proxy := serverFor(t, scfg, scenarios.Builtin())
	client{t, proxy.URL}.run(`{"threadId":"t1","runId":"r1","messages":[{"id":"u1","role":"user","content":"hello"}]}`)

	file := filepath.Join(t.TempDir(), "fixtures.yaml")
	const original = `# The team's fixtures.
id: first
steps: [{text: untouched}]
---
id: greeting
description: Says hello
priority: 5
match: {message: '(?i)hello'}
examples: [{message: hello}]
steps: [{text: Old answer.}]
`
	if err := os.WriteFile(file, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := rec.Replace("t1", scenarios.Position{File: file, Line: 3}, "greeting"); err == nil || !strings.Contains(err.Error(), "has no scenario at line 3") {
		t.Errorf("a line inside a scenario: %v", err)
	}
	if err := rec.Replace("nobody", scenarios.Position{File: file, Line: 5}, "greeting"); err == nil {
		t.Error("a thread that recorded nothing was put in place")
	}
	if data, _ := os.ReadFile(file); string(data) != original {
		t.Fatalf("a refused replacement changed the file:\n%s", data)
	}
	if err := rec.Replace("t1", scenarios.Position{File: file, Line: 5}, "greeting"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	text := string(data)
	for _, want := range []string{"# The team's fixtures.", "id: first", "untouched", "# Re-recorded by agui-mock verify -update from " + upstream.String(),
		"id: greeting", "description: Says hello", "priority: 5", "message: '(?i)hello'", "Fresh answer.", "events:"} {
		if !strings.Contains(text, want) {
			t.Errorf("the file lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Old answer.") || strings.Contains(text, "steps: [{text: Old") {
		t.Errorf("the old steps are still there:\n%s", text)
	}
	list, diags := scenarios.Parse(file, data)
	if len(diags) > 0 || len(list) != 2 || list[1].ID != "greeting" || list[1].Priority != 5 {
		t.Errorf("the file loads as %d scenario(s), %v", len(list), diags)
	}
}
