package recorder_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/recorder"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
)

// scriptedUpstream is an agent whose every run answer is written by script, from the
// run's input as the agent decodes it.
func scriptedUpstream(t *testing.T, script func(in map[string]any, send func(ev map[string]any))) *url.URL {
	t.Helper()
	return testkit.Agent(t, func(s *testkit.Stream, run *testkit.Run) {
		var in map[string]any
		if err := run.Decode(&in); err != nil {
			s.Fail(http.StatusBadRequest, err.Error())
			return
		}
		script(in, func(ev map[string]any) { s.Event(ev) })
	})
}

// lockedBuffer is a log or progress output the recorder writes from its handlers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func yamlFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func readFile(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// twoCalls is an agent that asks for two frontend tool calls, and answers whatever
// brings tool results with a text that counts them; any other run gets a greeting.
func twoCalls(in map[string]any, send func(map[string]any)) {
	thread, run := in["threadId"], in["runId"]
	send(map[string]any{"type": "RUN_STARTED", "threadId": thread, "runId": run})
	results := 0
	for _, m := range in["messages"].([]any) {
		if m.(map[string]any)["role"] == "tool" {
			results++
		}
	}
	last := in["messages"].([]any)[len(in["messages"].([]any))-1].(map[string]any)
	switch {
	case results > 0:
		send(map[string]any{"type": "TEXT_MESSAGE_START", "messageId": "up-answer", "role": "assistant"})
		send(map[string]any{"type": "TEXT_MESSAGE_CONTENT", "messageId": "up-answer", "delta": fmt.Sprintf("second run: %d result(s)", results)})
		send(map[string]any{"type": "TEXT_MESSAGE_END", "messageId": "up-answer"})
	case last["content"] == "pick two":
		for _, id := range []string{"up-call-a", "up-call-b"} {
			send(map[string]any{"type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": "choose"})
			send(map[string]any{"type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": `{}`})
			send(map[string]any{"type": "TOOL_CALL_END", "toolCallId": id})
		}
	default:
		send(map[string]any{"type": "TEXT_MESSAGE_START", "messageId": "up-hello", "role": "assistant"})
		send(map[string]any{"type": "TEXT_MESSAGE_CONTENT", "messageId": "up-hello", "delta": fmt.Sprintf("first run of %d message(s)", len(in["messages"].([]any)))})
		send(map[string]any{"type": "TEXT_MESSAGE_END", "messageId": "up-hello"})
	}
	send(map[string]any{"type": "RUN_FINISHED", "threadId": thread, "runId": run})
}

// A later run of a thread that does not continue its latest run — it answers one of
// two tool calls, or it brings no new user message — never replaces the file of the
// thread's first run: it is recorded in a file of its own, keyed by the conversation so
// far, with that conversation as its example; each request replays its own run.
func TestALaterRunIsKeyedByItsConversation(t *testing.T) {
	for _, dedupe := range []bool{true, false} {
		for _, tt := range []struct {
			name, first, later, conversation string
		}{
			{"one of two tool calls answered", `{"id":"u1","role":"user","content":"pick two"}`,
				`{"id":"u1","role":"user","content":"pick two"},{"id":"a1","role":"assistant","toolCalls":[{"id":"up-call-a","type":"function","function":{"name":"choose","arguments":"{}"}},{"id":"up-call-b","type":"function","function":{"name":"choose","arguments":"{}"}}]},{"id":"t1","role":"tool","toolCallId":"up-call-a","content":"a"}`,
				"conversation:\n    - user: ^pick two$\n    - assistant\n    - tool: ^a$\n"},
			{"no new user message", `{"id":"u1","role":"user","content":"hello"}`,
				`{"id":"u1","role":"user","content":"hello"},{"id":"up-hello","role":"assistant","content":"first run of 1 message(s)"}`,
				"conversation:\n    - user: ^hello$\n    - assistant\n"},
		} {
			t.Run(fmt.Sprintf("%s, dedupe %v", tt.name, dedupe), func(t *testing.T) {
				out := t.TempDir()
				var logs lockedBuffer
				proxy := recordingProxy(t, recorder.Config{Upstream: scriptedUpstream(t, twoCalls), OutDir: out, Dedupe: dedupe,
					Logger: slog.New(slog.NewTextHandler(&logs, nil))})
				c := client{t, proxy.URL}
				c.run(`{"threadId":"t","runId":"r1","messages":[` + tt.first + `]}`)
				files := yamlFiles(t, out)
				if len(files) != 1 {
					t.Fatalf("after the first run: files %v", files)
				}
				first := files[0]
				before := readFile(t, first)
				c.run(`{"threadId":"t","runId":"r2","messages":[` + tt.later + `]}`)

				if after := readFile(t, first); after != before {
					t.Errorf("the later run changed the first run's file:\n%s\nwas:\n%s", after, before)
				}
				files = yamlFiles(t, out)
				if len(files) != 2 {
					t.Fatalf("files %v, want the first run's and the later run's apart", files)
				}
				later := files[0]
				if later == first {
					later = files[1]
				}
				if !strings.Contains(readFile(t, later), "second run") && !strings.Contains(readFile(t, later), "first run of 2") {
					t.Errorf("the later file does not hold the later run:\n%s", readFile(t, later))
				}
				if text := readFile(t, later); !strings.Contains(text, tt.conversation) || !strings.Contains(text, "examples:\n  - conversation:") {
					t.Errorf("the later file is not keyed by its conversation %q, or has no example of it:\n%s", tt.conversation, text)
				}
				if strings.Contains(logs.String(), "level=WARN") {
					t.Errorf("a run placed by its conversation is warned of:\n%s", logs.String())
				}
				// both load (each example selects its own scenario), and each request
				// replays its own run
				replay := serverFor(t, server.DefaultConfig(), scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
				events, _ := client{t, replay.URL}.run(`{"threadId":"x","runId":"r1","messages":[` + tt.first + `]}`)
				if got, want := seen(events), seen(recordedFirst(t, first)); got != want {
					t.Errorf("the first request replays as\n%s\nwant the first run\n%s", got, want)
				}
				events, _ = client{t, replay.URL}.run(`{"threadId":"y","runId":"r2","messages":[` + tt.later + `]}`)
				if got, want := seen(events), seen(recordedFirst(t, later)); got != want {
					t.Errorf("the later request replays as\n%s\nwant the later run\n%s", got, want)
				}
			})
		}
	}
}

// recordedFirst plays the first run of a fixture on its own, asked by its example.
func recordedFirst(t *testing.T, file string) []protocol.Event {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.yaml"), []byte(readFile(t, file)), 0o644); err != nil {
		t.Fatal(err)
	}
	set := load(t, scenarios.Source{FS: os.DirFS(dir), Root: ".", Label: dir})
	sc := set.Scenarios()[0]
	body, err := json.Marshal(sc.Examples[0].RunInput(scenarios.RunIDs{Thread: "y", Run: "r1", Message: "u1"}))
	if err != nil {
		t.Fatal(err)
	}
	events, _ := client{t, serverFor(t, server.DefaultConfig(), scenarios.Source{FS: os.DirFS(dir), Root: ".", Label: dir}).URL}.run(string(body))
	return events
}

// @ag-ui/langgraph finishes a run with LangGraph's own run id, which the official client
// accepts: the run is recorded as sent, its RUN_FINISHED's run id templated as an id of
// the replay's own (not the request's), the scenario marked with the rule it breaks,
// and the run's line and a warning say so. The client gets the event as the agent sent
// it, and a replay plays the break back.
func TestARunFinishedWithTheAgentsOwnRunIDIsRecorded(t *testing.T) {
	out := t.TempDir()
	var progress, logs lockedBuffer
	upstream := scriptedUpstream(t, func(in map[string]any, send func(map[string]any)) {
		send(map[string]any{"type": "RUN_STARTED", "threadId": in["threadId"], "runId": in["runId"]})
		send(map[string]any{"type": "TEXT_MESSAGE_START", "messageId": "lg-m", "role": "assistant"})
		send(map[string]any{"type": "TEXT_MESSAGE_CONTENT", "messageId": "lg-m", "delta": "hi"})
		send(map[string]any{"type": "TEXT_MESSAGE_END", "messageId": "lg-m"})
		send(map[string]any{"type": "RUN_FINISHED", "threadId": in["threadId"], "runId": "1f0c-langgraph-run"})
	})
	proxy := recordingProxy(t, recorder.Config{Upstream: upstream, OutDir: out, Dedupe: true, Progress: &progress,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	events, _ := client{t, proxy.URL}.run(`{"threadId":"t","runId":"r1","messages":[{"id":"u1","role":"user","content":"hi"}]}`)
	if got := events[len(events)-1].Str("runId"); got != "1f0c-langgraph-run" {
		t.Errorf("the client got RUN_FINISHED with runId %q, want the agent's", got)
	}
	files := yamlFiles(t, out)
	if len(files) != 1 {
		t.Fatalf("files %v; the run was not recorded (progress: %s)", files, progress.String())
	}
	fixture := readFile(t, files[0])
	if strings.Contains(fixture, "1f0c-langgraph-run") || !strings.Contains(fixture, "type: RUN_FINISHED, runId: '{{ id `r1` }}'") ||
		!strings.Contains(fixture, "\nbreaks: [finished-run-id]\n") {
		t.Errorf("the fixture's RUN_FINISHED is not templated as an id of its own, or the scenario not marked:\n%s", fixture)
	}
	if want := `complete, nothing redacted, breaks finished-run-id → `; !strings.Contains(progress.String(), want) {
		t.Errorf("the run's line %q does not say %q", progress.String(), want)
	}
	if got := strings.Count(logs.String(), "level=WARN"); got != 1 || !strings.Contains(logs.String(), "rules=finished-run-id") {
		t.Errorf("want one warning naming the rule, got:\n%s", logs.String())
	}
	replay := serverFor(t, server.DefaultConfig(), scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
	replayed, _ := client{t, replay.URL}.run(`{"threadId":"t2","runId":"r9","messages":[{"id":"u1","role":"user","content":"hi"}]}`)
	v := &protocol.RuleChecker{ThreadID: "t2", Tolerate: []protocol.Rule{protocol.RuleFinishedRunID}}
	for _, ev := range replayed {
		if err := v.Check(ev); err != nil {
			t.Fatalf("the replay breaks another rule: %v", err)
		}
	}
	if last := replayed[len(replayed)-1]; len(v.Breaks) != 1 || last.Str("runId") == "r9" || last.Str("runId") == "" || last.Str("threadId") != "t2" {
		t.Errorf("the replay ends %+v: want the break played back, with a run id of the replay's own", last)
	}

	// What the official client rejects is still refused: kept apart as incomplete.
	broken := t.TempDir()
	upstream = scriptedUpstream(t, func(in map[string]any, send func(map[string]any)) {
		send(map[string]any{"type": "RUN_STARTED", "threadId": in["threadId"], "runId": in["runId"]})
		send(map[string]any{"type": "TEXT_MESSAGE_CONTENT", "messageId": "never-started", "delta": "hi"})
		send(map[string]any{"type": "RUN_FINISHED", "threadId": in["threadId"], "runId": "other"})
	})
	proxy = recordingProxy(t, recorder.Config{Upstream: upstream, OutDir: broken, Dedupe: true})
	client{t, proxy.URL}.run(`{"threadId":"t","runId":"r1","messages":[{"id":"u1","role":"user","content":"hi"}]}`)
	if files := yamlFiles(t, broken); len(files) != 0 {
		t.Errorf("a stream the official client rejects was recorded: %v", files)
	}
}

// A recording declares a protocol version on RUN_STARTED only when the agent did: its
// replay sends what the agent sent (lowered to an older client's version, and none to
// 0.0.x clients).
func TestAReplayDeclaresTheVersionOnlyWhenTheAgentDid(t *testing.T) {
	for _, declared := range []string{"", "1.0"} {
		out := t.TempDir()
		upstream := scriptedUpstream(t, func(in map[string]any, send func(map[string]any)) {
			started := map[string]any{"type": "RUN_STARTED", "threadId": in["threadId"], "runId": in["runId"]}
			if declared != "" {
				started["protocolVersion"] = declared
			}
			send(started)
			send(map[string]any{"type": "RUN_FINISHED", "threadId": in["threadId"], "runId": in["runId"]})
		})
		proxy := recordingProxy(t, recorder.Config{Upstream: upstream, OutDir: out, Dedupe: true})
		client{t, proxy.URL}.run(`{"threadId":"t","runId":"r1","protocolVersion":"1.1","messages":[{"id":"u1","role":"user","content":"hi"}]}`)
		replay := serverFor(t, server.DefaultConfig(), scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
		for client_, want := range map[string]string{`"protocolVersion":"1.1",`: declared, `"protocolVersion":"1.0",`: declared, ``: ""} {
			events, _ := client{t, replay.URL}.run(`{"threadId":"t","runId":"r2",` + client_ + `"messages":[{"id":"u1","role":"user","content":"hi"}]}`)
			got, has := events[0].Get("protocolVersion")
			if (want == "") == has || (has && got != want) {
				t.Errorf("agent declaring %q, client %q: RUN_STARTED %v", declared, client_, events[0])
			}
		}
	}
}

// snapshotAgent ends every run as LangGraph does, with a MESSAGES_SNAPSHOT of the whole
// thread: the client's messages as the agent keeps them (the user's with the client's
// id, or, with reID, an id of the agent's own), its streamed reply, and a tool call it
// ran on the server with the tool's result.
func snapshotAgent(reID bool) func(in map[string]any, send func(map[string]any)) {
	return func(in map[string]any, send func(map[string]any)) {
		thread, run := in["threadId"], in["runId"]
		send(map[string]any{"type": "RUN_STARTED", "threadId": thread, "runId": run})
		send(map[string]any{"type": "TEXT_MESSAGE_START", "messageId": "lg-ai-1", "role": "assistant"})
		send(map[string]any{"type": "TEXT_MESSAGE_CONTENT", "messageId": "lg-ai-1", "delta": "Looking it up."})
		send(map[string]any{"type": "TEXT_MESSAGE_END", "messageId": "lg-ai-1"})
		var snapshot []any
		for _, item := range in["messages"].([]any) {
			m := item.(map[string]any)
			if reID {
				m = map[string]any{"id": "lg-human-1", "role": m["role"], "content": m["content"]}
			}
			snapshot = append(snapshot, m)
		}
		snapshot = append(snapshot,
			map[string]any{"id": "lg-ai-1", "role": "assistant", "content": "Looking it up.",
				"toolCalls": []any{map[string]any{"id": "lg-call-1", "type": "function", "function": map[string]any{"name": "lookup", "arguments": `{"q":"x"}`}}}},
			map[string]any{"id": "lg-tool-1", "role": "tool", "toolCallId": "lg-call-1", "content": "found"})
		send(map[string]any{"type": "MESSAGES_SNAPSHOT", "messages": snapshot})
		send(map[string]any{"type": "RUN_FINISHED", "threadId": thread, "runId": run})
	}
}

// A replayed MESSAGES_SNAPSHOT carries the client's own messages, with the client's
// ids, where the recording had its echo of them; the agent's own messages and tool
// calls get ids generated per run, the same where the run streamed them, and the same
// again under a fixed seed.
func TestAReplayedSnapshotCarriesTheClientsMessages(t *testing.T) {
	for _, reID := range []bool{false, true} {
		t.Run(fmt.Sprintf("agent re-ids the client's messages: %v", reID), func(t *testing.T) {
			out := t.TempDir()
			proxy := recordingProxy(t, recorder.Config{Upstream: scriptedUpstream(t, snapshotAgent(reID)), OutDir: out, Dedupe: true})
			client{t, proxy.URL}.run(`{"threadId":"t","runId":"r1","messages":[{"id":"rec-user-1","role":"user","content":"find x"}]}`)
			fixture := readFile(t, yamlFiles(t, out)[0])
			for _, literal := range []string{"rec-user-1", "lg-human-1", "lg-ai-1", "lg-call-1", "lg-tool-1"} {
				if strings.Contains(fixture, literal) {
					t.Errorf("the fixture keeps the literal id %q:\n%s", literal, fixture)
				}
			}
			cfg := server.DefaultConfig()
			cfg.Seed = 7
			replay := serverFor(t, cfg, scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
			mine := map[string]any{"id": "my-own-id", "role": "user", "content": "find x"}
			body, _ := json.Marshal(map[string]any{"threadId": "replay", "runId": "r1", "messages": []any{mine}})
			events, _ := client{t, replay.URL}.run(string(body))
			again, _ := client{t, serverFor(t, cfg, scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out}).URL}.run(string(body))
			if strings.Join(normalizedJSON(events), "\n") != strings.Join(normalizedJSON(again), "\n") {
				t.Errorf("two replays under one seed differ:\n%v\n%v", normalizedJSON(events), normalizedJSON(again))
			}
			var snapshot []any
			var streamed string
			for _, ev := range events {
				switch ev.Type {
				case protocol.MessagesSnapshot:
					list, _ := ev.Get("messages")
					snapshot = list.([]any)
				case protocol.TextMessageStart:
					streamed = ev.Str("messageId")
				}
			}
			if len(snapshot) != 3 {
				t.Fatalf("snapshot %v", snapshot)
			}
			if b, _ := json.Marshal(snapshot[0]); string(b) != `{"content":"find x","id":"my-own-id","role":"user"}` {
				t.Errorf("the snapshot's first message is %s, want the client's own", b)
			}
			reply, tool := snapshot[1].(map[string]any), snapshot[2].(map[string]any)
			call := reply["toolCalls"].([]any)[0].(map[string]any)
			if reply["id"] != streamed || streamed == "lg-ai-1" {
				t.Errorf("the reply's id %v, streamed as %q", reply["id"], streamed)
			}
			if call["id"] == "lg-call-1" || tool["toolCallId"] != call["id"] || tool["id"] == "lg-tool-1" {
				t.Errorf("the tool call %v and its result %v", call, tool)
			}
		})
	}
}

// normalizedJSON renders events without their timestamps.
func normalizedJSON(events []protocol.Event) []string {
	out := make([]string, len(events))
	for i, ev := range events {
		b, _ := json.Marshal(ev.Without("timestamp"))
		out[i] = string(b)
	}
	return out
}

// A recorded example keeps what the first request offered the agent: its tools, context,
// state and forwardedProps, redacted like the rest of the fixture.
func TestARecordedExampleKeepsWhatTheClientOffered(t *testing.T) {
	out := t.TempDir()
	proxy := recordingProxy(t, recorder.Config{Upstream: scriptedUpstream(t, twoCalls), OutDir: out, Dedupe: true})
	client{t, proxy.URL}.run(`{"threadId":"t","runId":"r1","messages":[{"id":"u1","role":"user","content":"hello"}],
		"tools":[{"name":"confirm","description":"Ask the user","parameters":{"type":"object"}}],
		"context":[{"description":"the page","value":"checkout"}],
		"state":{"cart":["tea"]},
		"forwardedProps":{"theme":"dark","apiKey":"sk-abcdefghijklmnopqrstuv"}}`)
	files := yamlFiles(t, out)
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	if fixture := readFile(t, files[0]); strings.Contains(fixture, "sk-abcdefgh") {
		t.Errorf("the example keeps a secret:\n%s", fixture)
	}
	set := load(t, scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
	ex := set.Scenarios()[0].Examples[0]
	got, _ := json.Marshal(ex)
	want := `{"message":"hello","forwardedProps":{"apiKey":"[REDACTED]","theme":"dark"},"state":{"cart":["tea"]},"tools":[{"name":"confirm","description":"Ask the user","parameters":{"type":"object"}}],"context":[{"description":"the page","value":"checkout"}]}`
	if string(got) != want {
		t.Errorf("the recorded example is\n%s\nwant\n%s\n%s", got, want, readFile(t, files[0]))
	}
}

// In a later run of a session, the client's history — the user's message, the agent's
// earlier reply as the client got it, the result of a frontend tool — is echoed in the
// agent's snapshot: its replay carries the replayed client's history, ids and all,
// followed by the agent's new reply.
func TestASnapshotOfALaterRunCarriesTheClientsHistory(t *testing.T) {
	agent := func(in map[string]any, send func(map[string]any)) {
		thread, run := in["threadId"], in["runId"]
		messages := in["messages"].([]any)
		send(map[string]any{"type": "RUN_STARTED", "threadId": thread, "runId": run})
		if len(messages) == 1 {
			send(map[string]any{"type": "TOOL_CALL_START", "toolCallId": "lg-ask", "toolCallName": "ask", "parentMessageId": "lg-ai-1"})
			send(map[string]any{"type": "TOOL_CALL_END", "toolCallId": "lg-ask"})
			send(map[string]any{"type": "RUN_FINISHED", "threadId": thread, "runId": run})
			return
		}
		send(map[string]any{"type": "TEXT_MESSAGE_START", "messageId": "lg-ai-2", "role": "assistant"})
		send(map[string]any{"type": "TEXT_MESSAGE_CONTENT", "messageId": "lg-ai-2", "delta": "Thanks."})
		send(map[string]any{"type": "TEXT_MESSAGE_END", "messageId": "lg-ai-2"})
		snapshot := append(append([]any{}, messages...), map[string]any{"id": "lg-ai-2", "role": "assistant", "content": "Thanks."})
		send(map[string]any{"type": "MESSAGES_SNAPSHOT", "messages": snapshot})
		send(map[string]any{"type": "RUN_FINISHED", "threadId": thread, "runId": run})
	}
	session := func(url, thread, userID string) []protocol.Event {
		c := client{t, url}
		first, _ := c.run(`{"threadId":"` + thread + `","runId":"r1","messages":[{"id":"` + userID + `","role":"user","content":"ask me"}]}`)
		call := toolCallID(first)
		history := `{"id":"` + userID + `","role":"user","content":"ask me"},` +
			`{"id":"` + first[1].Str("parentMessageId") + `","role":"assistant","toolCalls":[{"id":"` + call + `","type":"function","function":{"name":"ask","arguments":""}}]},` +
			`{"id":"` + userID + `-answer","role":"tool","toolCallId":"` + call + `","content":"yes"}`
		second, _ := c.run(`{"threadId":"` + thread + `","runId":"r2","messages":[` + history + `]}`)
		return second
	}
	out := t.TempDir()
	proxy := recordingProxy(t, recorder.Config{Upstream: scriptedUpstream(t, agent), OutDir: out, Dedupe: true})
	session(proxy.URL, "t", "rec-user")
	replay := serverFor(t, server.DefaultConfig(), scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
	second := session(replay.URL, "replay", "my-user")
	var snapshot []any
	for _, ev := range second {
		if ev.Type == protocol.MessagesSnapshot {
			list, _ := ev.Get("messages")
			snapshot = list.([]any)
		}
	}
	if len(snapshot) != 4 {
		t.Fatalf("snapshot %v", snapshot)
	}
	ids := make([]any, len(snapshot))
	for i, m := range snapshot {
		ids[i] = m.(map[string]any)["id"]
	}
	if ids[0] != "my-user" || ids[2] != "my-user-answer" || ids[3] != second[1].Str("messageId") || ids[3] == "lg-ai-2" {
		t.Errorf("the snapshot's ids are %v; the reply streamed as %q", ids, second[1].Str("messageId"))
	}
	if got := snapshot[1].(map[string]any)["toolCalls"].([]any)[0].(map[string]any)["id"]; got == "lg-ask" {
		t.Errorf("the agent's earlier call keeps the recorded id %v", got)
	}
}

// A run that answers tool calls of a run the recorder never saw — it was recorded before
// the recorder restarted — does not replace the file of the session it continues: it is
// keyed by its conversation in a file of its own, and a replay of the whole session, the
// first run's pause continued on its thread, plays it.
func TestAContinuationAfterARestartNeverReplacesTheFirstRun(t *testing.T) {
	out := t.TempDir()
	upstream := scriptedUpstream(t, twoCalls)
	before := recordingProxy(t, recorder.Config{Upstream: upstream, OutDir: out, Dedupe: true})
	first, _ := client{t, before.URL}.run(`{"threadId":"t","runId":"r1","messages":[{"id":"u1","role":"user","content":"pick two"}]}`)
	files := yamlFiles(t, out)
	if len(files) != 1 || len(first) == 0 {
		t.Fatalf("files %v", files)
	}
	recordedFirst := readFile(t, files[0])

	after := recordingProxy(t, recorder.Config{Upstream: upstream, OutDir: out, Dedupe: true})
	continuation := func(calls [2]string) string {
		return `{"threadId":"t","runId":"r2","messages":[{"id":"u1","role":"user","content":"pick two"},` +
			`{"id":"a1","role":"assistant","toolCalls":[{"id":"` + calls[0] + `","type":"function","function":{"name":"choose","arguments":"{}"}},{"id":"` + calls[1] + `","type":"function","function":{"name":"choose","arguments":"{}"}}]},` +
			`{"id":"t1","role":"tool","toolCallId":"` + calls[0] + `","content":"a"},{"id":"t2","role":"tool","toolCallId":"` + calls[1] + `","content":"b"}]}`
	}
	live, _ := client{t, after.URL}.run(continuation([2]string{"up-call-a", "up-call-b"}))
	if got := readFile(t, files[0]); got != recordedFirst {
		t.Errorf("the continuation replaced the first run:\n%s", got)
	}
	later := yamlFiles(t, out)
	if len(later) != 2 {
		t.Fatalf("files %v", later)
	}
	replay := client{t, serverFor(t, server.DefaultConfig(), scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out}).URL}
	paused, _ := replay.run(`{"threadId":"t","runId":"r1","messages":[{"id":"u1","role":"user","content":"pick two"}]}`)
	var calls []string
	for _, ev := range paused {
		if ev.Type == protocol.ToolCallStart {
			calls = append(calls, ev.Str("toolCallId"))
		}
	}
	if len(calls) != 2 {
		t.Fatalf("the first run replays %d tool calls: %v", len(calls), seen(paused))
	}
	if replayed, _ := replay.run(continuation([2]string{calls[0], calls[1]})); seen(replayed) != seen(live) {
		got, want := seen(replayed), seen(live)
		t.Errorf("the continuation replays as\n%s\nwant\n%s", got, want)
	}
}

// forwardedProps that are no object, which no example sends, are left out of the
// recorded example, which would not load otherwise: the run is recorded all the same.
func TestARecordedExampleLeavesOutWhatNoExampleSends(t *testing.T) {
	out := t.TempDir()
	proxy := recordingProxy(t, recorder.Config{Upstream: scriptedUpstream(t, twoCalls), OutDir: out, Dedupe: true})
	client{t, proxy.URL}.run(`{"threadId":"t","runId":"r1","messages":[{"id":"u1","role":"user","content":"hello"}],
		"forwardedProps":"plain"}`)
	files := yamlFiles(t, out)
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	set := load(t, scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
	got, _ := json.Marshal(set.Scenarios()[0].Examples[0])
	if want := `{"message":"hello"}`; string(got) != want {
		t.Errorf("the recorded example is\n%s\nwant\n%s", got, want)
	}
}

// A continuation recorded after an answer with a number in its payload replays on that
// answer, and a later session that answers the same replaces it, however the answer's
// JSON spells the number: the number is written as a number, and answers are compared
// as the fixture writes them.
func TestAnAnswersNumbersChooseItsRecordedContinuation(t *testing.T) {
	out := t.TempDir()
	agent := func(in map[string]any, send func(map[string]any)) {
		thread, run := in["threadId"], in["runId"]
		send(map[string]any{"type": "RUN_STARTED", "threadId": thread, "runId": run})
		if in["resume"] == nil {
			send(map[string]any{"type": "RUN_FINISHED", "threadId": thread, "runId": run, "outcome": map[string]any{"type": "interrupt",
				"interrupts": []any{map[string]any{"id": "up-i", "reason": "confirm", "message": "How many?"}}}})
			return
		}
		send(map[string]any{"type": "TEXT_MESSAGE_START", "messageId": "up-m", "role": "assistant"})
		send(map[string]any{"type": "TEXT_MESSAGE_CONTENT", "messageId": "up-m", "delta": "Counted."})
		send(map[string]any{"type": "TEXT_MESSAGE_END", "messageId": "up-m"})
		send(map[string]any{"type": "RUN_FINISHED", "threadId": thread, "runId": run})
	}
	proxy := recordingProxy(t, recorder.Config{Upstream: scriptedUpstream(t, agent), OutDir: out, Dedupe: true})
	first := `{"threadId":"%s","runId":"r1","messages":[{"id":"u1","role":"user","content":"count"}]}`
	resume := `{"threadId":"%s","runId":"r2","messages":[],"resume":[{"interruptId":"%s","status":"resolved","payload":{"n":%s}}]}`
	for thread, n := range map[string]string{"t1": "1.0", "t2": "1"} {
		c := client{t, proxy.URL}
		c.run(fmt.Sprintf(first, thread))
		c.run(fmt.Sprintf(resume, thread, "up-i", n))
	}
	files := yamlFiles(t, out)
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	fixture := readFile(t, files[0])
	if strings.Count(fixture, "when:") != 1 {
		t.Errorf("the same answer recorded twice gives one continuation, not:\n%s", fixture)
	}
	replay := serverFor(t, server.DefaultConfig(), scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out}).Config.Handler
	_, stream := serve(t, replay, fmt.Sprintf(first, "t"))
	status, body := serve(t, replay, fmt.Sprintf(resume, "t", lastInterrupt(t, stream)["id"], "1"))
	if status != http.StatusOK || !strings.Contains(body, "Counted.") {
		t.Errorf("the recorded answer replays as %d %s\nfrom\n%s", status, body, fixture)
	}
}
