package copilotkit

import "fmt"

// Error is an error answer of the runtime: its status and its JSON body, exactly as the
// runtime writes them, so that an app sees what it would see behind a real runtime.
type Error struct {
	Status int
	Body   map[string]any
}

// Error says the status and the body.
func (e *Error) Error() string { return fmt.Sprintf("%d %v", e.Status, e.Body) }

// NotFound is the runtime's answer to a path under its base that names no route.
func NotFound() *Error { return &Error{Status: 404, Body: map[string]any{"error": "Not found"}} }

// AgentNotFound is the runtime's answer to a run, connect or stop of an agent it does
// not have.
func AgentNotFound(agent string) *Error {
	return &Error{Status: 404, Body: map[string]any{"error": "Agent not found", "message": fmt.Sprintf("Agent '%s' does not exist", agent)}}
}

// MethodNotAllowed is the runtime's answer to a route called with a method it does not
// take; allow is what the Allow header says.
func MethodNotAllowed() *Error {
	return &Error{Status: 405, Body: map[string]any{"error": "Method not allowed"}}
}

// InvalidBody is the runtime's answer to a run or connect body that is not a
// RunAgentInput; details says why (the runtime lists its schema's issues there).
func InvalidBody(details string) *Error {
	return &Error{Status: 400, Body: map[string]any{"error": "Invalid request body", "details": details}}
}

// InvalidStop is the runtime's answer to a stop body other than {} or {runId}.
func InvalidStop(runID bool) *Error {
	if runID {
		return &Error{Status: 400, Body: map[string]any{"error": "Invalid runId"}}
	}
	return &Error{Status: 400, Body: map[string]any{"error": "Invalid stop request"}}
}

// IntelligenceRequired is the runtime's answer to a thread route that only CopilotKit
// Intelligence serves (renaming, archiving, deleting, subscribing).
func IntelligenceRequired() *Error {
	return &Error{Status: 422, Body: map[string]any{"error": "Missing CopilotKitIntelligence configuration. Thread operations require a CopilotKitIntelligence instance to be provided in CopilotRuntime options."}}
}

// EnvelopeError is the single-endpoint envelope's answer to an envelope it cannot read.
func EnvelopeError(status int, message string) *Error {
	return &Error{Status: status, Body: map[string]any{"error": "invalid_request", "message": message}}
}

// StopAnswer is the runtime's answer to a stop: whether a run was stopped, and if not,
// why.
func StopAnswer(stopped bool, threadID, runID string) map[string]any {
	if stopped {
		return map[string]any{"stopped": true, "interrupt": map[string]any{"type": "RUN_ERROR", "message": StopMessage, "code": "STOPPED"}}
	}
	if runID != "" {
		return map[string]any{"stopped": false, "message": fmt.Sprintf("Run '%s' is not the active run for thread '%s'.", runID, threadID)}
	}
	return map[string]any{"stopped": false, "message": fmt.Sprintf("No active run for thread '%s'.", threadID)}
}

// TranscriptionNotConfigured is the runtime's answer to a transcription when it has no
// transcription service.
func TranscriptionNotConfigured() *Error {
	return &Error{Status: 503, Body: map[string]any{"error": "service_not_configured", "message": "Transcription service is not configured", "retryable": false}}
}

// CheckInput checks a run or connect body, decoded, for what the runtime's schema of a
// RunAgentInput requires and a lenient agent does not: threadId and runId strings, and
// messages, tools and context arrays. The answer to a body that lacks one is the
// runtime's, naming the member.
func CheckInput(v any) *Error {
	obj, ok := v.(map[string]any)
	if !ok {
		return InvalidBody("the body must be a JSON object (a RunAgentInput)")
	}
	for _, key := range []string{"threadId", "runId"} {
		if _, ok := obj[key].(string); !ok {
			return InvalidBody(key + ": expected a string (RunAgentInput." + key + " is required)")
		}
	}
	for _, key := range []string{"messages", "tools", "context"} {
		if _, ok := obj[key].([]any); !ok {
			return InvalidBody(key + ": expected an array (RunAgentInput." + key + " is required)")
		}
	}
	return nil
}
