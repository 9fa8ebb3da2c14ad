package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// agent runs a request on the live agent, with the example's headers besides the
// configured ones, and returns its events and, when known, when each came after the
// request was sent.
type agent interface {
	run(ctx context.Context, route string, header map[string]string, body map[string]any) ([]protocol.Event, []time.Duration, error)
}

// directAgent posts runs to the agent and reads its stream.
type directAgent struct{ cfg Config }

func (a directAgent) run(ctx context.Context, route string, header map[string]string, body map[string]any) ([]protocol.Event, []time.Duration, error) {
	data, err := jsonBody(body)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, a.cfg.Timeout)
	defer cancel()
	req, err := a.cfg.newRequest(ctx, a.cfg.endpoint(route), header, data)
	if err != nil {
		return nil, nil, err
	}
	started := time.Now()
	resp, err := a.cfg.Client.Do(req)
	if err != nil {
		return nil, nil, a.cfg.failure(ctx, "the agent is unreachable", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		return nil, nil, fmt.Errorf("the agent answered %s to %q, which is not followed, so that the headers go to -upstream only: set -upstream to the agent's own URL",
			resp.Status, resp.Header.Get("Location"))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		detail, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, nil, fmt.Errorf("the agent refused the run: %s %s", resp.Status, strings.TrimSpace(string(detail)))
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		return nil, nil, fmt.Errorf("the agent answered with %q instead of an SSE event stream", ct)
	}
	var events []protocol.Event
	var at []time.Duration
	frames := protocol.NewFrameReader(resp.Body, a.cfg.MaxFrame)
	for {
		f, err := frames.Next()
		if errors.Is(err, io.EOF) {
			return events, at, nil
		}
		if err != nil {
			return nil, nil, a.cfg.failure(ctx, fmt.Sprintf("the agent's stream broke off after %d events", len(events)), err)
		}
		ev, err := protocol.DecodeEvent([]byte(f.Data))
		if err != nil {
			return nil, nil, fmt.Errorf("the agent sent an event that does not decode (event %d): %w", len(events), err)
		}
		if len(events) == scenarios.MaxRunEvents {
			return nil, nil, fmt.Errorf("the agent's run goes past %d events, the most a scenario's run may have", scenarios.MaxRunEvents)
		}
		events, at = append(events, ev), append(at, time.Since(started))
	}
}

// endpoint is the URL a run of an example with the route is posted to: the route below
// the upstream's path.
func (cfg Config) endpoint(route string) string {
	target := *cfg.Upstream
	target.Path = strings.TrimSuffix(target.Path, "/") + route
	if target.Path == "" {
		target.Path = "/"
	}
	return target.String()
}

// newRequest builds the request of a run posted to target, with the example's headers
// and the configured ones, which win.
func (cfg Config) newRequest(ctx context.Context, target string, example map[string]string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("building the request: %w", err)
	}
	for name, value := range example {
		req.Header.Set(name, value)
	}
	for name, values := range cfg.Header {
		req.Header[http.CanonicalHeaderKey(name)] = values
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	return req, nil
}

// failure names what went wrong talking to the agent, telling a run that ran out of time
// from other failures.
func (cfg Config) failure(ctx context.Context, what string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s: no answer within %s (-timeout)", what, cfg.Timeout)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// body is the run request of a turn, as the side has the thread: the example's request
// with the thread's messages so far and the answers to what its last run waits for.
func (c *conversation) body(runID string, s *side, answers *scenarios.Answers) map[string]any {
	ex := c.ex
	messages := append([]any(nil), s.history...)
	tools := make([]any, len(ex.Tools))
	for i, name := range ex.Tools {
		tools[i] = map[string]any{"name": name, "description": name, "parameters": map[string]any{"type": "object", "properties": map[string]any{}}}
	}
	context := make([]any, len(ex.Context))
	for i, item := range ex.Context {
		context[i] = map[string]any{"description": item.Description, "value": item.Value}
	}
	body := map[string]any{
		"threadId": c.threadID, "runId": runID, "messages": messages, "tools": tools, "context": context,
		"state": orEmpty(s.state), "forwardedProps": map[string]any{},
	}
	if ex.ForwardedProps != nil {
		body["forwardedProps"] = ex.ForwardedProps
	}
	if answers == nil {
		return body
	}
	if command := s.command(answers); command != nil {
		props := maps.Clone(body["forwardedProps"].(map[string]any))
		props["command"] = command
		body["forwardedProps"] = props
	} else if len(s.interrupts) > 0 {
		resume := make([]any, len(s.interrupts))
		for i, id := range s.interrupts {
			a := scenarios.Answer{Status: protocol.ResumeResolved}
			if i < len(answers.Resume) {
				a = answers.Resume[i]
			}
			entry := map[string]any{"interruptId": id, "status": a.Status}
			if a.Payload != nil {
				entry["payload"] = a.Payload
			}
			resume[i] = entry
		}
		body["resume"] = resume
	}
	for i, id := range s.toolCalls {
		result := ""
		if i < len(answers.Results) {
			result = answers.Results[i]
		}
		body["messages"] = append(body["messages"].([]any), map[string]any{
			"id": protocol.NewID("verify-tool", rand.Uint64()), "role": "tool", "toolCallId": id, "content": result})
	}
	return body
}

// command is the LangGraph command that answers the side's pause, as CopilotKit sends
// it: the first answer's payload as resume, the on_interrupt value it answers as
// interruptEvent. It is nil when the pause was not raised in that dialect, or when the
// answer is not resolved, which a command cannot say: a standard resume says it then,
// which LangGraph's bridge and the mock accept alike.
func (s *side) command(answers *scenarios.Answers) map[string]any {
	if len(s.onInterrupt) == 0 {
		return nil
	}
	a := scenarios.Answer{Status: protocol.ResumeResolved}
	if len(answers.Resume) > 0 {
		a = answers.Resume[0]
	}
	if a.Status != protocol.ResumeResolved {
		return nil
	}
	return map[string]any{"resume": orEmpty(a.Payload), "interruptEvent": s.onInterrupt[0]}
}

// firstMessage is the user message that opens a conversation.
func firstMessage(text string) map[string]any {
	return map[string]any{"id": protocol.NewID("verify-msg", rand.Uint64()), "role": "user", "content": text}
}

func orEmpty(v any) any {
	if v == nil {
		return map[string]any{}
	}
	return v
}

func jsonBody(body map[string]any) ([]byte, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	return data, nil
}

// headerOf is the header an example's request carries.
func headerOf(h map[string]string) textproto.MIMEHeader {
	out := textproto.MIMEHeader{}
	for k, v := range h {
		out.Set(k, v)
	}
	return out
}
