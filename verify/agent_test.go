package verify

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// testAgent is a small AG-UI agent: it answers each conversation, by the text of its
// first user message, with the events its reply makes of the run's input, streamed as
// SSE between RUN_STARTED and the reply's own terminal event.
type testAgent struct {
	replies map[string]func(in *protocol.RunAgentInput) []protocol.Event
	token   string // when set, runs need Authorization: Bearer <token>

	mu      sync.Mutex
	headers []http.Header // of every run received
}

// start serves the agent until the test ends and returns its URL.
func (a *testAgent) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	return srv.URL
}

func (a *testAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.headers = append(a.headers, r.Header.Clone())
	a.mu.Unlock()
	if a.token != "" && r.Header.Get("Authorization") != "Bearer "+a.token {
		http.Error(w, "missing or wrong token", http.StatusUnauthorized)
		return
	}
	body, _ := io.ReadAll(r.Body)
	in, err := protocol.DecodeRunAgentInput(body, protocol.DecodeOptions{Strict: true})
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	first := ""
	for _, m := range in.Messages {
		if m.Role == "user" {
			first = m.Text()
			break
		}
	}
	reply, ok := a.replies[first]
	if !ok {
		http.Error(w, "no reply for "+first, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	events := append([]protocol.Event{protocol.NewEvent(protocol.RunStarted, "threadId", in.ThreadID, "runId", in.RunID)}, reply(in)...)
	for _, ev := range events {
		frame, _ := protocol.AppendFrame(nil, ev, time.Now().UnixMilli(), false)
		_, _ = w.Write(frame)
		w.(http.Flusher).Flush()
	}
}

// Events of replies.

func text(id, s string) []protocol.Event {
	out := []protocol.Event{protocol.NewEvent(protocol.TextMessageStart, "messageId", id, "role", "assistant")}
	for _, word := range strings.SplitAfter(s, " ") {
		out = append(out, protocol.NewEvent(protocol.TextMessageContent, "messageId", id, "delta", word))
	}
	return append(out, protocol.NewEvent(protocol.TextMessageEnd, "messageId", id))
}

func toolCall(id, name, args string) []protocol.Event {
	return []protocol.Event{
		protocol.NewEvent(protocol.ToolCallStart, "toolCallId", id, "toolCallName", name),
		protocol.NewEvent(protocol.ToolCallArgs, "toolCallId", id, "delta", args),
		protocol.NewEvent(protocol.ToolCallEnd, "toolCallId", id),
	}
}

func toolResult(callID, content string) protocol.Event {
	return protocol.NewEvent(protocol.ToolCallResult, "messageId", "res-"+callID, "toolCallId", callID, "content", content, "role", "tool")
}

func finished(in *protocol.RunAgentInput, outcome ...any) protocol.Event {
	ev := protocol.NewEvent(protocol.RunFinished, "threadId", in.ThreadID, "runId", in.RunID)
	if len(outcome) > 0 {
		ev = ev.With("outcome", outcome[0])
	}
	return ev
}

func interrupted(in *protocol.RunAgentInput, interrupts ...any) protocol.Event {
	return finished(in, map[string]any{"type": "interrupt", "interrupts": interrupts})
}

func join(parts ...any) []protocol.Event {
	var out []protocol.Event
	for _, p := range parts {
		switch x := p.(type) {
		case protocol.Event:
			out = append(out, x)
		case []protocol.Event:
			out = append(out, x...)
		}
	}
	return out
}
