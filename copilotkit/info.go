package copilotkit

import "maps"

// Agent is an agent as GET /info lists it.
type Agent struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// ClassName is the class of the agent object in the runtime: an HttpAgent, as a
	// runtime whose agents call AG-UI agents over HTTP has them.
	ClassName    string         `json:"className"`
	Capabilities map[string]any `json:"capabilities,omitempty"`
}

// NewAgent is an agent of the given name as a runtime of HttpAgents reports it.
func NewAgent(name, description string) Agent {
	return Agent{Name: name, Description: description, ClassName: "HttpAgent"}
}

// threadEndpoints are the thread routes an in-memory runner serves: listing and
// inspecting threads, not changing them.
func threadEndpoints(enabled bool) map[string]any {
	return map[string]any{"list": enabled, "inspect": enabled, "mutations": false, "realtimeMetadata": false}
}

// Info is what GET /info answers for a runtime with the given agents, as the 1.75
// runtime of SSE mode with its in-memory runner answers it; through the single-endpoint
// envelope (viaEnvelope), the thread routes are reported under singleRoute, reached
// through resource/request envelopes, as the runtime reports them there. overrides
// replace the members of the same names (a test's shaping of the handshake).
func Info(agents []Agent, viaEnvelope bool, overrides map[string]any) map[string]any {
	listed := make(map[string]any, len(agents))
	for _, a := range agents {
		listed[a.Name] = a
	}
	info := map[string]any{
		"version":                       RuntimeVersion,
		"agents":                        listed,
		"audioFileTranscriptionEnabled": false,
		"mode":                          "sse",
		"threadEndpoints":               threadEndpoints(!viaEnvelope),
		"suggestions":                   true,
		"a2uiEnabled":                   false,
		"openGenerativeUIEnabled":       false,
		"telemetryDisabled":             true,
	}
	if viaEnvelope {
		info["singleRoute"] = map[string]any{"resourceOperations": true, "threadEndpoints": threadEndpoints(true)}
	}
	maps.Copy(info, overrides)
	return info
}
