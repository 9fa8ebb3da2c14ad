package recorder_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/recorder"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
)

// langGraphUpstream answers as a LangGraph agent behind its AG-UI bridge does: the first
// run raises an interrupt as an on_interrupt custom event (its value, a JSON string
// without an id) and finishes normally; the run that brings forwardedProps.command.resume
// answers with what the resume said.
func langGraphUpstream(t *testing.T) *url.URL {
	t.Helper()
	return testkit.Agent(t, func(s *testkit.Stream, run *testkit.Run) {
		var in struct {
			ThreadID       string `json:"threadId"`
			RunID          string `json:"runId"`
			ForwardedProps struct {
				Command *struct {
					Resume json.RawMessage `json:"resume"`
				} `json:"command"`
			} `json:"forwardedProps"`
		}
		if err := run.Decode(&in); err != nil {
			s.Fail(http.StatusBadRequest, err.Error())
			return
		}
		send := func(ev map[string]any) { s.Event(ev) }
		send(map[string]any{"type": "RUN_STARTED", "threadId": in.ThreadID, "runId": in.RunID})
		if cmd := in.ForwardedProps.Command; cmd != nil {
			var answer struct {
				Approved bool `json:"approved"`
			}
			var text string
			_ = json.Unmarshal(cmd.Resume, &text)
			_ = json.Unmarshal([]byte(text), &answer)
			reply := "Not published."
			if answer.Approved {
				reply = "Published."
			}
			send(map[string]any{"type": "TEXT_MESSAGE_START", "messageId": "lg-msg-2", "role": "assistant"})
			send(map[string]any{"type": "TEXT_MESSAGE_CONTENT", "messageId": "lg-msg-2", "delta": reply})
			send(map[string]any{"type": "TEXT_MESSAGE_END", "messageId": "lg-msg-2"})
		} else {
			send(map[string]any{"type": "CUSTOM", "name": "on_interrupt", "value": `{"question":"Publish the post?"}`})
		}
		send(map[string]any{"type": "RUN_FINISHED", "threadId": in.ThreadID, "runId": in.RunID})
	})
}

// langGraphSession raises the interrupt and answers it through a LangGraph command, as
// CopilotKit's useInterrupt does.
func langGraphSession(t *testing.T, url, thread string, approved bool) [][]protocol.Event {
	c := client{t, url}
	first, _ := c.run(`{"threadId":"` + thread + `","runId":"r1","messages":[{"id":"u1","role":"user","content":"publish it"}]}`)
	var value string
	for _, ev := range first {
		if ev.Type == protocol.Custom && ev.Str("name") == protocol.OnInterrupt {
			value = ev.Str("value")
		}
	}
	resume, _ := json.Marshal(fmt.Sprintf(`{"approved":%v}`, approved))
	event, _ := json.Marshal(value)
	second, _ := c.run(`{"threadId":"` + thread + `","runId":"r2","messages":[],"forwardedProps":{"command":{"resume":` + string(resume) + `,"interruptEvent":` + string(event) + `}}}`)
	return [][]protocol.Event{first, second}
}

func TestALangGraphSessionIsRecordedInItsDialectAndReplays(t *testing.T) {
	out := t.TempDir()
	proxy := recordingProxy(t, recorder.Config{Upstream: langGraphUpstream(t), OutDir: out, Dedupe: true})
	recorded := map[bool][][]protocol.Event{}
	for _, approved := range []bool{true, false} {
		recorded[approved] = langGraphSession(t, proxy.URL, fmt.Sprint("lg-", approved), approved)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	if len(files) != 1 {
		t.Fatalf("recorded files %v, want the two sessions in one fixture", files)
	}
	fixture, _ := os.ReadFile(files[0])
	if !strings.Contains(string(fixture), "dialect: langgraph") || strings.Count(string(fixture), "when:") != 2 {
		t.Errorf("the fixture is not of the langgraph dialect with two branches:\n%s", fixture)
	}

	replay := serverFor(t, server.DefaultConfig(), scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
	for approved, original := range recorded {
		replayed := langGraphSession(t, replay.URL, fmt.Sprint("replay-", approved), approved)
		for run := range original {
			if want, got := seen(original[run]), seen(replayed[run]); want != got {
				t.Errorf("approved=%v run %d replays as %s, want %s", approved, run, got, want)
			}
		}
	}

	// the replay keeps the rules: a run that answers nothing while the interrupt waits
	c := client{t, replay.URL}
	c.run(`{"threadId":"lg-x","runId":"r1","messages":[{"id":"u1","role":"user","content":"publish it"}]}`)
	req, _ := http.NewRequest("POST", replay.URL+"/agui/chat", strings.NewReader(`{"threadId":"lg-x","runId":"r2","messages":[]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("a run answering nothing got %d, want 409 interrupts_pending", resp.StatusCode)
	}
}

// seen is what a user of a run sees: its event types, texts and custom events.
func seen(events []protocol.Event) string {
	var b strings.Builder
	for _, ev := range events {
		b.WriteString(ev.Type + " " + ev.Str("delta") + ev.Str("name") + ev.Str("value") + "; ")
	}
	return b.String()
}
