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
	ct := resp.Header.Get("Content-Type")
	if !strings.HasPrefix(ct, "text/event-stream") && !protocol.IsProtoContentType(ct) {
		return nil, nil, fmt.Errorf("the agent answered with %q instead of an event stream (SSE, or the AG-UI protobuf transport)", ct)
	}
	var events []protocol.Event
	var at []time.Duration
	stream := protocol.NewEventReader(ct, resp.Body, a.cfg.MaxFrame)
	for {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) {
			return events, at, nil
		}
		if err != nil {
			return nil, nil, a.cfg.failure(ctx, fmt.Sprintf("the agent's stream broke off after %d events", len(events)), err)
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
	if cfg.Proto {
		req.Header.Set("Accept", protocol.ProtoContentType)
	}
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

// clientProtocolVersion is the protocol version verify declares in its requests, as
// @ag-ui/client 1.0.0's HttpAgent does; the scenario's side of the conversation is
// adapted to the same version, as the server adapts it for that client.
const clientProtocolVersion = "1.0"

// body is the run request of a turn, as the side has the thread: the example's request
// (scenarios.Example.RunInput: its tools, context and forwardedProps) with the thread's
// messages so far, its state, and the answers to what its last run waits for. The ids
// are UUIDs and activity messages stay with the client, as with HttpAgent.
func (c *conversation) body(runID string, s *side, answers *scenarios.Answers) map[string]any {
	body := c.ex.RunInput(scenarios.RunIDs{Thread: c.threadID, Run: runID, ProtocolVersion: clientProtocolVersion})
	var messages []any
	for _, m := range s.history {
		if m.(map[string]any)["role"] != "activity" {
			messages = append(messages, m)
		}
	}
	body["messages"] = messages
	body["state"] = orEmpty(s.state)
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
			"id": newUUID(), "role": "tool", "toolCallId": id, "content": result})
	}
	return body
}

// newUUID is a fresh id of a thread, a run or a message.
func newUUID() string { return protocol.NewUUID(rand.Uint64(), rand.Uint64()) }

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
