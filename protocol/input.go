package protocol

import (
	"slices"
)

// RunAgentInput is the body a client POSTs to start a run.
type RunAgentInput struct {
	ThreadID        string
	RunID           string
	ParentRunID     string
	ProtocolVersion string
	State           any // nil when the client sent none
	Messages        []Message
	Tools           []Tool
	Context         []Context
	ForwardedProps  any
	Resume          []ResumeEntry
	// Command is the LangGraph dialect's answer to an interrupt, from
	// forwardedProps.command; nil when the input brings none.
	Command *Command
	// Raw is the decoded body with minted ids filled in, as echoed in RUN_STARTED.input.
	Raw map[string]any
}

// Tool is a tool the client offers to the agent.
type Tool struct {
	Name        string
	Description string
	Parameters  any
}

// Context is one piece of application context.
type Context struct {
	Description string
	Value       string
}

// Resume statuses.
const (
	ResumeResolved  = "resolved"
	ResumeCancelled = "cancelled"
)

// ResumeEntry answers one interrupt of the previous run.
type ResumeEntry struct {
	InterruptID string
	Status      string
	Payload     any
}

// Command is how a client of a LangGraph agent answers an interrupt that was raised as an
// on_interrupt custom event: forwardedProps.command.resume holds the answer, and
// forwardedProps.command.interruptEvent the value of the event it answers, when the
// client says.
type Command struct {
	// Resume is the answer. A string holding JSON is decoded, as LangGraph's AG-UI
	// bridge does: "{\"approved\": true}" answers {approved: true}.
	Resume any
	// InterruptEvent is the on_interrupt value answered, decoded the same way; nil when
	// absent.
	InterruptEvent any
}

// Answer is the resume entry the command stands for: it resolves the interrupt with the
// given id, with the command's resume as the payload.
func (c *Command) Answer(interruptID string) ResumeEntry {
	return ResumeEntry{InterruptID: interruptID, Status: ResumeResolved, Payload: c.Resume}
}

// commandOf reads the LangGraph command of a run input's forwardedProps: present when
// forwardedProps.command has a resume member.
func commandOf(forwardedProps any) *Command {
	fp, _ := forwardedProps.(map[string]any)
	cmd, _ := fp["command"].(map[string]any)
	resume, ok := cmd["resume"]
	if !ok {
		return nil
	}
	return &Command{Resume: jsonInString(resume), InterruptEvent: jsonInString(cmd["interruptEvent"])}
}

// jsonInString decodes a string that holds a JSON value; any other value, and a string
// that is not JSON, is returned as it is.
func jsonInString(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	decoded, err := DecodeJSON([]byte(s))
	if err != nil {
		return v
	}
	return decoded
}

// LastUserMessage returns the last message with role user, if any.
func (in *RunAgentInput) LastUserMessage() (Message, bool) {
	for i := len(in.Messages) - 1; i >= 0; i-- {
		if in.Messages[i].Role == "user" {
			return in.Messages[i], true
		}
	}
	return Message{}, false
}

// ToolNames returns the names of the tools the client offers.
func (in *RunAgentInput) ToolNames() []string {
	names := make([]string, len(in.Tools))
	for i, t := range in.Tools {
		names[i] = t.Name
	}
	return names
}

// messageRoles are the roles a message of a run input may have.
var messageRoles = []string{"developer", "system", "assistant", "user", "tool", "activity", "reasoning"}

// MessageRoles lists the roles a message of a run input may have.
func MessageRoles() []string { return slices.Clone(messageRoles) }
