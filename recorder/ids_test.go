package recorder_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/recorder"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
)

// Ids an agent of the LangGraph kind makes: its reply's message id, its tool call's,
// and text that holds one without being it.
const (
	agentMessageID = "lg-ai-message-0001"
	agentCallID    = "call-abcdef123456"
)

// stateFrames are the frames an agent of the LangGraph kind writes for a request whose
// thread, run and user message have the given ids: besides the streamed reply and tool
// call, a STATE_SNAPSHOT whose messages (what useCoAgent reads) carry the client's and
// the agent's ids, a STATE_DELTA and a RAW event whose payloads carry them nested, and a
// MESSAGES_SNAPSHOT; every object's members in an order of their own, not sorted. A
// member "short" or "note" holds text that equals no id or contains one, and
// "tool-result-000001" is an id no event of the run established.
func stateFrames(thread, run, user string) []string {
	return []string{
		fmt.Sprintf(`{"type":"RUN_STARTED","threadId":%q,"runId":%q}`, thread, run),
		fmt.Sprintf(`{"type":"TEXT_MESSAGE_START","role":"assistant","messageId":%q}`, agentMessageID),
		fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":%q,"delta":"Looking it up."}`, agentMessageID),
		fmt.Sprintf(`{"type":"TEXT_MESSAGE_END","messageId":%q}`, agentMessageID),
		fmt.Sprintf(`{"type":"TOOL_CALL_START","toolCallName":"search","toolCallId":%q,"parentMessageId":%q}`, agentCallID, agentMessageID),
		fmt.Sprintf(`{"type":"TOOL_CALL_ARGS","toolCallId":%q,"delta":"{\"q\":\"waves\"}"}`, agentCallID),
		fmt.Sprintf(`{"type":"TOOL_CALL_END","toolCallId":%q}`, agentCallID),
		fmt.Sprintf(`{"type":"STATE_SNAPSHOT","snapshot":{"messages":[{"type":"human","id":%q,"content":"find waves"},`+
			`{"type":"ai","id":%q,"content":"Looking it up.","tool_calls":[{"name":"search","id":%q,"args":{"q":"waves"}}]}],`+
			`"short":"u1","note":"%s said so"},"rawEvent":{"run_id":%q,"thread_id":%q}}`,
			user, agentMessageID, agentCallID, agentMessageID, run, thread),
		fmt.Sprintf(`{"type":"STATE_DELTA","delta":[{"path":"/messages/-","op":"add","value":{"type":"tool","tool_call_id":%q,"content":"found","id":"tool-result-000001"}},`+
			`{"value":%q,"op":"replace","path":"/last_user"}]}`, agentCallID, user),
		fmt.Sprintf(`{"type":"RAW","event":{"event":"on_chain_end","data":{"input":{"messages":[{"id":%q,"content":"find waves"}]},"output":{"ids":[%q,%q]}}},"source":"langgraph"}`,
			user, agentMessageID, agentCallID),
		fmt.Sprintf(`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":%q,"role":"user","content":"find waves"},{"role":"assistant","id":%q,"content":"Looking it up.","toolCalls":[{"id":%q,"type":"function","function":{"name":"search","arguments":"{\"q\":\"waves\"}"}}]}]}`,
			user, agentMessageID, agentCallID),
		fmt.Sprintf(`{"type":"RUN_FINISHED","threadId":%q,"runId":%q}`, thread, run),
	}
}

// rawRun posts a run with one user message and returns its frames' data as sent.
func rawRun(t *testing.T, url, thread, run, user string) []string {
	t.Helper()
	body := fmt.Sprintf(`{"threadId":%q,"runId":%q,"messages":[{"id":%q,"role":"user","content":"find waves"}]}`, thread, run, user)
	req, _ := http.NewRequest("POST", url+"/agui/chat", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	fr := protocol.NewFrameReader(resp.Body, 1<<20)
	var frames []string
	for {
		f, err := fr.Next()
		if errors.Is(err, io.EOF) {
			return frames
		}
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f.Data)
	}
}

// leaf is a string of an event at a path, and the path of its object's members.
type leaf struct{ path, value string }

// leaves lists the strings of a JSON value with their paths, and appends to keys the
// members of each of its objects in the order written, with the object's path.
func leaves(t *testing.T, data string, keys *[]string) []leaf {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(data)))
	dec.UseNumber()
	var out []leaf
	var walk func(path string)
	walk = func(path string) {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		switch x := tok.(type) {
		case json.Delim:
			var members []string
			for i := 0; dec.More(); i++ {
				if x == '{' {
					k, _ := dec.Token()
					members = append(members, k.(string))
					walk(path + "/" + k.(string))
				} else {
					walk(fmt.Sprintf("%s/%d", path, i))
				}
			}
			dec.Token() // } or ]
			if x == '{' && keys != nil {
				if path == "" { // the replay stamps its own time, where the agent may have sent none
					members = slices.DeleteFunc(members, func(m string) bool { return m == "timestamp" })
				}
				*keys = append(*keys, path+": "+strings.Join(members, ","))
			}
		case string:
			out = append(out, leaf{path, x})
		}
	}
	walk("")
	return out
}

// A recorded session replays with one id per message, as the live stream had, and the
// members of every object in the order the agent wrote them.
func TestARecordedIDIsMappedWhereverItStandsAsAWholeString(t *testing.T) {
	upstream := testkit.Agent(t, func(s *testkit.Stream, run *testkit.Run) {
		var in struct {
			ThreadID string `json:"threadId"`
			RunID    string `json:"runId"`
			Messages []struct {
				ID string `json:"id"`
			} `json:"messages"`
		}
		if err := run.Decode(&in); err != nil || len(in.Messages) == 0 {
			s.Fail(http.StatusBadRequest, fmt.Sprint("a run of one message: ", err))
			return
		}
		for _, f := range stateFrames(in.ThreadID, in.RunID, in.Messages[len(in.Messages)-1].ID) {
			s.Raw("data: " + f + "\n\n")
		}
	})
	out := t.TempDir()
	proxy := recordingProxy(t, recorder.Config{Upstream: upstream, OutDir: out})
	const recordedUser, replayedUser = "user-recorded-0c1d2e3f", "user-replayed-9a8b7c6d"
	live := rawRun(t, proxy.URL, "thread-recorded", "run-recorded", recordedUser)
	var files []string
	testkit.Eventually(t, "the recording", func() bool {
		files, _ = filepath.Glob(filepath.Join(out, "*.yaml"))
		return len(files) == 1
	})
	fixture, _ := os.ReadFile(files[0])
	for _, id := range []string{recordedUser, agentMessageID, agentCallID} {
		if regexp.MustCompile(`[:\[,] '?` + id + `'?[,}\]]`).Match(fixture) {
			t.Errorf("the fixture keeps the id %s as a literal:\n%s", id, fixture)
		}
	}

	replay := serverFor(t, server.DefaultConfig(), scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out})
	replayed := rawRun(t, replay.URL, "thread-replayed", "run-replayed", replayedUser)
	if len(replayed) != len(live) {
		t.Fatalf("replayed %d events, want %d:\n%s", len(replayed), len(live), strings.Join(replayed, "\n"))
	}
	// Each id of the live stream has one id in the replay, wherever it stands; text
	// that only holds an id, or equals a short one, is replayed as it was.
	mapped := map[string]string{}
	want := map[string]string{recordedUser: replayedUser, "thread-recorded": "thread-replayed", "run-recorded": "run-replayed"}
	for i := range live {
		was, now := leaves(t, live[i], nil), leaves(t, replayed[i], nil)
		if len(was) != len(now) {
			t.Fatalf("event %d replayed as %s, want the strings of %s", i, replayed[i], live[i])
		}
		at := map[string]string{}
		for _, n := range now {
			at[n.path] = n.value
		}
		for _, l := range was {
			r, ok := at[l.path]
			if !ok {
				t.Fatalf("event %d: no string at %s in %s", i, l.path, replayed[i])
			}
			switch {
			case want[l.value] != "":
				if r != want[l.value] {
					t.Errorf("event %d %s: %q replayed as %q, want %q", i, l.path, l.value, r, want[l.value])
				}
			case l.value == agentMessageID || l.value == agentCallID:
				if r == l.value {
					t.Errorf("event %d %s: the recording session's id %q replayed as it was", i, l.path, l.value)
				}
				if mapped[l.value] == "" {
					mapped[l.value] = r
				} else if mapped[l.value] != r {
					t.Errorf("event %d %s: %q replayed as %q, elsewhere as %q: two ids for one", i, l.path, l.value, r, mapped[l.value])
				}
			case !strings.HasPrefix(l.path, "/timestamp") && r != l.value:
				t.Errorf("event %d %s: %q replayed as %q, want it as it was", i, l.path, l.value, r)
			}
		}
	}
	// Each object's members come in the order the agent wrote them.
	for i := range live {
		var was, now []string
		leaves(t, live[i], &was)
		leaves(t, replayed[i], &now)
		if strings.Join(was, "; ") != strings.Join(now, "; ") {
			t.Errorf("event %d replayed with its members as\n%s\nwant\n%s", i, strings.Join(now, "\n"), strings.Join(was, "\n"))
		}
	}
	if len(mapped) != 2 {
		t.Errorf("ids mapped %v, want the agent's message and tool call ids", mapped)
	}
}

// The tool call ids a request brings — an assistant message's calls, the call a tool
// message answers — are the replayed client's own wherever the agent copies them (its
// state's messages, as LangGraph keeps them): a replay of a later turn sends the ids the
// replayed client holds, not the recording session's. The call an interrupt stands for
// is one id with the result that later answers it.
func TestARequestsToolCallIDsAreTheReplayedClients(t *testing.T) {
	agent := func(in map[string]any, send func(map[string]any)) {
		thread, run := in["threadId"], in["runId"]
		msgs := in["messages"].([]any)
		send(map[string]any{"type": "RUN_STARTED", "threadId": thread, "runId": run})
		if in["resume"] != nil {
			send(map[string]any{"type": "TOOL_CALL_RESULT", "messageId": "result-message-0001", "toolCallId": "call-approve-0001", "content": "approved"})
			send(map[string]any{"type": "RUN_FINISHED", "threadId": thread, "runId": run})
			return
		}
		var held []any
		for _, m := range msgs {
			m := m.(map[string]any)
			if calls, ok := m["toolCalls"].([]any); ok {
				held = append(held, map[string]any{"type": "ai", "tool_calls": []any{map[string]any{"id": calls[0].(map[string]any)["id"]}}})
			}
			if m["role"] == "tool" {
				held = append(held, map[string]any{"type": "tool", "tool_call_id": m["toolCallId"]})
			}
		}
		send(map[string]any{"type": "STATE_SNAPSHOT", "snapshot": map[string]any{"messages": held}})
		send(map[string]any{"type": "RUN_FINISHED", "threadId": thread, "runId": run, "outcome": map[string]any{"type": "interrupt",
			"interrupts": []any{map[string]any{"id": "interrupt-0001", "reason": "tool_call", "toolCallId": "call-approve-0001"}}}})
	}
	out := t.TempDir()
	proxy := recordingProxy(t, recorder.Config{Upstream: scriptedUpstream(t, agent), OutDir: out, Dedupe: true})
	later := func(call string) string {
		return `{"threadId":"t","runId":"r1","messages":[{"id":"u1","role":"user","content":"search"},` +
			`{"id":"a1","role":"assistant","toolCalls":[{"id":"` + call + `","type":"function","function":{"name":"search","arguments":"{}"}}]},` +
			`{"id":"t1","role":"tool","toolCallId":"` + call + `","content":"found"},{"id":"u2","role":"user","content":"and then?"}]}`
	}
	live, _ := client{t, proxy.URL}.run(later("call-recorded-0001"))
	interrupt := interruptIDs(live)[0]
	client{t, proxy.URL}.run(`{"threadId":"t","runId":"r2","messages":[],"resume":[{"interruptId":"` + interrupt + `","status":"resolved"}]}`)

	replay := client{t, serverFor(t, server.DefaultConfig(), scenarios.Source{FS: os.DirFS(out), Root: ".", Label: out}).URL}
	replayed, _ := replay.run(later("call-replayed-0002"))
	snapshot, _ := json.Marshal(replayed[1].Fields)
	if strings.Contains(string(snapshot), "call-recorded-0001") || strings.Count(string(snapshot), "call-replayed-0002") != 2 {
		t.Errorf("the state's messages replayed as %s, want the replayed client's call id twice", snapshot)
	}
	finished := replayed[len(replayed)-1]
	call := finished.Outcome()["interrupts"].([]any)[0].(map[string]any)["toolCallId"].(string)
	if call == "call-approve-0001" {
		t.Errorf("the interrupt's call keeps the recording session's id: %v", finished)
	}
	answered, _ := replay.run(`{"threadId":"t","runId":"r2","messages":[],"resume":[{"interruptId":"` + interruptIDs(replayed)[0] + `","status":"resolved"}]}`)
	if got := answered[1].Str("toolCallId"); got != call {
		t.Errorf("the result answers call %q, the interrupt stood for %q", got, call)
	}
}
