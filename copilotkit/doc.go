// Package copilotkit models the wire of the CopilotKit runtime (@copilotkit/runtime 1.75,
// its v2 endpoints with the in-memory agent runner), which a CopilotKit app's browser
// talks to instead of an agent: the routes under the runtime's base path and the
// single-endpoint envelope that stands for them (Match, Envelope), what GET /info
// answers (Info), a thread as the thread routes list it (ThreadRecord, ThreadMessage),
// the runtime's error answers (Error), and what the runtime adds to an agent's stream:
// the input on RUN_STARTED (StartedWithInput) and the event a stopped run ends with
// (Stopped). The server serves these routes (server/runtime.go); the AG-UI events
// themselves are the protocol package's.
package copilotkit
