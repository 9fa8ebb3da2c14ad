package testctl

import "github.com/agui-mock/agui-mock/copilotkit"

// RuntimeInfo is how a test shapes what the CopilotKit runtime's GET /info reports.
type RuntimeInfo struct {
	// Agents are the agents the runtime has for the test, in place of the server's
	// (default and those the scenarios name); nil keeps the server's.
	Agents []copilotkit.Agent
	// Members replace the members of the answer of the same names (flags such as
	// a2uiEnabled, or the version).
	Members map[string]any
}
