package scenarios

import (
	"encoding/json"
	"fmt"
	"net/textproto"

	"github.com/agui-mock/agui-mock/copilotkit"
	"github.com/agui-mock/agui-mock/protocol"
)

// DefaultRoute is the route of an example that names none.
const DefaultRoute = "/agui/chat"

// RunRoute is the route an example's run is posted to: its route, else the run route of
// its agent under the CopilotKit runtime's default base path, else DefaultRoute.
func (ex Example) RunRoute() string {
	switch {
	case ex.Route != "":
		return ex.Route
	case ex.Agent != "":
		return copilotkit.RunPath(copilotkit.DefaultBasePath, ex.Agent)
	}
	return DefaultRoute
}

// RunIDs are the ids an example's run carries, and the protocol version its client
// declares ("" for a 0.0.x client, which declares none).
type RunIDs struct {
	Thread, Run, Message string
	ProtocolVersion      string
}

// RunInput is the RunAgentInput an example stands for, as JSON members, the way
// @ag-ui/client's HttpAgent posts it: the ids, the example's message as the one user
// message (after its system message, when it has one, whose id is the message's with
// "-system") or else its conversation's messages, and what the client offered — its
// tools (runTools), context, state and forwardedProps, each an empty object or list when
// the example has none: each part as its row of criteria puts it. It is the one builder
// of an example's run: the load-time check, verify, the inspector's "Play example" and
// the tests all send this.
func (ex Example) RunInput(ids RunIDs) map[string]any {
	in := map[string]any{"threadId": ids.Thread, "runId": ids.Run}
	for i := range criteria {
		if put := criteria[i].runInput; put != nil {
			put(&ex, ids, in)
		}
	}
	if ids.ProtocolVersion != "" {
		in["protocolVersion"] = ids.ProtocolVersion
	}
	return in
}

// runTools are the tools an example's client offers, as a run sends them: a tool named
// alone is described by its name, with parameters that take any object.
func (ex *Example) runTools() []any {
	tools := make([]any, len(ex.Tools))
	for i, t := range ex.Tools {
		description, parameters := t.Description, any(t.Parameters)
		if description == "" {
			description = t.Name
		}
		if t.Parameters == nil {
			parameters = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		tool := map[string]any{"name": t.Name, "description": description, "parameters": parameters}
		if t.Metadata != nil {
			tool["metadata"] = t.Metadata
		}
		tools[i] = tool
	}
	return tools
}

// RunHeader is the header an example's request carries.
func (ex Example) RunHeader() textproto.MIMEHeader {
	h := textproto.MIMEHeader{}
	for k, v := range ex.Headers {
		h.Set(k, v)
	}
	return h
}

// request is the run request an example stands for, decoded as the server decodes it:
// an example whose parts a client could not send (a state that is not an object, say)
// is an error.
func (ex Example) request() (*Request, error) {
	ids := RunIDs{Thread: "thread-example", Run: "run-example", Message: "msg-example"}
	body, err := json.Marshal(ex.RunInput(ids))
	if err != nil {
		return nil, fmt.Errorf("encoding the example's request: %w", err)
	}
	in, err := protocol.DecodeRunAgentInput(body, protocol.DecodeOptions{})
	if err != nil {
		return nil, err
	}
	return &Request{Route: ex.RunRoute(), Agent: ex.Agent, Input: in, Header: ex.RunHeader()}, nil
}
