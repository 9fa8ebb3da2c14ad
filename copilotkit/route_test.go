package copilotkit

import (
	"slices"
	"testing"
)

func TestMatchFindsTheRuntimesRoutesByTheirLastSegments(t *testing.T) {
	for _, tt := range []struct {
		path string
		want Route
		ok   bool
	}{
		{"/copilotkit/info", Route{Method: MethodInfo}, true},
		{"/copilotkit/agent/default/run", Route{Method: MethodRun, AgentID: "default"}, true},
		{"/copilotkit/agent/my%20agent/connect", Route{Method: MethodConnect, AgentID: "my agent"}, true},
		{"/copilotkit/agent/default/suggest", Route{Method: MethodSuggest, AgentID: "default"}, true},
		{"/copilotkit/agent/default/stop/thread-1", Route{Method: MethodStop, AgentID: "default", ThreadID: "thread-1"}, true},
		{"/copilotkit/threads", Route{Method: MethodThreadsList}, true},
		{"/copilotkit/threads/subscribe", Route{Method: MethodThreadsSubscribe}, true},
		{"/copilotkit/threads/clear", Route{Method: MethodThreadsClear}, true},
		{"/copilotkit/threads/t%2F1/messages", Route{Method: MethodThreadMessages, ThreadID: "t/1"}, true},
		{"/copilotkit/threads/t1/events", Route{Method: MethodThreadEvents, ThreadID: "t1"}, true},
		{"/copilotkit/threads/t1/state", Route{Method: MethodThreadState, ThreadID: "t1"}, true},
		{"/copilotkit/threads/t1/archive", Route{Method: MethodThreadArchive, ThreadID: "t1"}, true},
		{"/copilotkit/threads/t1", Route{Method: MethodThreadUpdate, ThreadID: "t1"}, true},
		{"/copilotkit/memories/recall", Route{Method: MethodMemories}, true},
		{"/copilotkit/inspector-metadata", Route{Method: MethodInspectorMetadata}, true},
		{"/copilotkit/nested/agent/a/run", Route{Method: MethodRun, AgentID: "a"}, true}, // by the last segments, as the runtime
		{"/copilotkit", Route{}, false},
		{"/copilotkit/agent/a", Route{}, false},
		{"/copilotkitx/info", Route{}, false}, // not under the base
		{"/other/info", Route{}, false},
		{"/copilotkit/agent/%zz/run", Route{}, false}, // an id that does not decode
	} {
		got, ok := Match(tt.path, "/copilotkit")
		if ok != tt.ok || got != tt.want {
			t.Errorf("Match(%q) = %+v, %v; want %+v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
	if got, ok := Match("/api/copilotkit/info", "/api/copilotkit/"); !ok || got.Method != MethodInfo {
		t.Errorf("a base with a trailing slash: %+v %v", got, ok)
	}
}

func TestEachRouteTakesTheMethodsTheRuntimeChecks(t *testing.T) {
	for method, want := range map[Method][]string{
		MethodInfo:          {"GET"},
		MethodThreadsList:   {"GET"},
		MethodThreadState:   {"GET"},
		MethodThreadUpdate:  {"PATCH", "DELETE"},
		MethodRun:           {"POST"},
		MethodStop:          {"POST"},
		MethodThreadsClear:  {"POST"},
		MethodThreadArchive: {"POST"},
	} {
		if got := (Route{Method: method}).AllowedMethods(); !slices.Equal(got, want) {
			t.Errorf("%s takes %v, want %v", method, got, want)
		}
	}
}

func TestReadEnvelopeNamesWhatIsMissing(t *testing.T) {
	for _, tt := range []struct {
		body    map[string]any
		want    Route
		message string
	}{
		{map[string]any{"method": "info"}, Route{Method: MethodInfo}, ""},
		{map[string]any{"method": "agent/run", "params": map[string]any{"agentId": "a"}, "body": map[string]any{}}, Route{Method: MethodRun, AgentID: "a"}, ""},
		{map[string]any{"method": "agent/stop", "params": map[string]any{"agentId": "a", "threadId": "t"}}, Route{Method: MethodStop, AgentID: "a", ThreadID: "t"}, ""},
		{map[string]any{"method": "resource/request", "params": map[string]any{"path": "/threads?agentId=a", "httpMethod": "get"}}, Route{Method: MethodThreadsList}, ""},
		{map[string]any{}, Route{}, "Missing method field"},
		{map[string]any{"method": "agent/dance"}, Route{}, "Unsupported method 'agent/dance'"},
		{map[string]any{"method": "agent/run", "body": map[string]any{}}, Route{}, "Missing or invalid parameter 'agentId'"},
		{map[string]any{"method": "agent/connect", "params": map[string]any{"agentId": "a"}}, Route{}, "Missing request body for JSON handler"},
		{map[string]any{"method": "agent/stop", "params": map[string]any{"agentId": "a"}}, Route{}, "Missing or invalid parameter 'threadId'"},
		{map[string]any{"method": "resource/request", "params": map[string]any{"path": "//evil.example/threads", "httpMethod": "GET"}}, Route{}, "Resource path must be Runtime-relative"},
	} {
		env, err := ReadEnvelope(tt.body)
		switch {
		case tt.message == "" && err != nil:
			t.Errorf("%v: %v", tt.body, err)
		case tt.message != "" && (err == nil || err.Body["message"] != tt.message):
			t.Errorf("%v: got %v, want the message %q", tt.body, err, tt.message)
		case tt.message == "" && env.Route != tt.want:
			t.Errorf("%v: route %+v, want %+v", tt.body, env.Route, tt.want)
		}
	}
	env, _ := ReadEnvelope(map[string]any{"method": "resource/request", "params": map[string]any{"path": "/threads?agentId=a", "httpMethod": "get"}})
	if !env.Resource || env.HTTPMethod != "GET" || env.Query.Get("agentId") != "a" {
		t.Errorf("a resource request: %+v", env)
	}
	if _, err := ReadEnvelope(map[string]any{"method": "resource/request", "params": map[string]any{"path": "/agent/a/run", "httpMethod": "POST"}}); err == nil || err.Status != 404 {
		t.Errorf("a resource request of a route that is no resource: %v", err)
	}
}
