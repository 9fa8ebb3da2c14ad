package copilotkit

import (
	"net/url"
	"strings"
)

// DefaultBasePath is where the server serves the runtime's routes unless told otherwise,
// so that an app's runtimeUrl of http://127.0.0.1:8000/copilotkit points at the mock.
const DefaultBasePath = "/copilotkit"

// RuntimeVersion is the version of @copilotkit/runtime whose routes the server stands
// in for, which GET /info reports.
const RuntimeVersion = "1.75.0"

// DefaultAgent is the agent every runtime has, whatever the scenarios name.
const DefaultAgent = "default"

// Method names a route of the runtime, as the runtime's router and its single-endpoint
// envelope name it.
type Method string

// The runtime's routes.
const (
	MethodInfo              Method = "info"
	MethodRun               Method = "agent/run"
	MethodSuggest           Method = "agent/suggest"
	MethodConnect           Method = "agent/connect"
	MethodStop              Method = "agent/stop"
	MethodInspectorMetadata Method = "inspector/metadata"
	MethodInspectorLearning Method = "inspector/learning"
	MethodTranscribe        Method = "transcribe"
	MethodDebugEvents       Method = "cpk-debug-events"
	MethodThreadsList       Method = "threads/list"
	MethodThreadsSubscribe  Method = "threads/subscribe"
	MethodThreadsClear      Method = "threads/clear"
	MethodThreadUpdate      Method = "threads/update"
	MethodThreadArchive     Method = "threads/archive"
	MethodThreadMessages    Method = "threads/messages"
	MethodThreadEvents      Method = "threads/events"
	MethodThreadState       Method = "threads/state"
	MethodMemories          Method = "memories"
	MethodAnnotate          Method = "annotate"
	// MethodResource is the envelope's way of calling a thread route: its params name
	// the route's path and HTTP method.
	MethodResource Method = "resource/request"
)

// Route is a request's route: its method and the ids its path names.
type Route struct {
	Method   Method
	AgentID  string
	ThreadID string
}

// Match finds the route of a path under the base path, as the runtime's router does: by
// the path's last segments, so that /copilotkit/agent/default/run and
// /copilotkit/x/agent/default/run are both a run of agent default. The path is as sent,
// escaped (url.URL.EscapedPath): an id's segment is unescaped once it is found. False
// when the path is not under base or names no route.
func Match(path, base string) (Route, bool) {
	rest, ok := strings.CutPrefix(path, strings.TrimSuffix(base, "/"))
	if !ok || (rest != "" && !strings.HasPrefix(rest, "/")) {
		return Route{}, false
	}
	var segs []string
	for _, s := range strings.Split(rest, "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	route, ok := matchSegments(segs)
	if !ok {
		return Route{}, false
	}
	return route, true
}

// matchSegments reads a route from a path's segments, the runtime's way: the first rule
// that holds wins.
func matchSegments(segs []string) (Route, bool) {
	n := len(segs)
	at := func(i int) string { // the i-th segment from the end, 1 the last
		if i > n {
			return ""
		}
		return segs[n-i]
	}
	id := func(i int) (string, bool) {
		s, err := url.PathUnescape(at(i))
		return s, err == nil && s != ""
	}
	switch at(1) {
	case "info":
		return Route{Method: MethodInfo}, true
	case "inspector-metadata":
		return Route{Method: MethodInspectorMetadata}, true
	case "inspector-learning":
		return Route{Method: MethodInspectorLearning}, true
	case "transcribe":
		return Route{Method: MethodTranscribe}, true
	case "cpk-debug-events":
		return Route{Method: MethodDebugEvents}, true
	}
	if n >= 3 && at(3) == "agent" {
		method := map[string]Method{"run": MethodRun, "suggest": MethodSuggest, "connect": MethodConnect}[at(1)]
		if method != "" {
			agent, ok := id(2)
			return Route{Method: method, AgentID: agent}, ok
		}
	}
	if n >= 4 && at(4) == "agent" && at(2) == "stop" {
		agent, ok1 := id(3)
		thread, ok2 := id(1)
		return Route{Method: MethodStop, AgentID: agent, ThreadID: thread}, ok1 && ok2
	}
	if n >= 2 && at(2) == "threads" {
		switch at(1) {
		case "subscribe":
			return Route{Method: MethodThreadsSubscribe}, true
		case "clear":
			return Route{Method: MethodThreadsClear}, true
		}
	}
	if n >= 3 && at(3) == "threads" {
		method := map[string]Method{"messages": MethodThreadMessages, "events": MethodThreadEvents, "state": MethodThreadState, "archive": MethodThreadArchive}[at(1)]
		if method != "" {
			thread, ok := id(2)
			return Route{Method: method, ThreadID: thread}, ok
		}
	}
	if n >= 2 && at(2) == "threads" {
		thread, ok := id(1)
		return Route{Method: MethodThreadUpdate, ThreadID: thread}, ok
	}
	if at(1) == "threads" {
		return Route{Method: MethodThreadsList}, true
	}
	if at(1) == "memories" || (n >= 2 && at(2) == "memories") {
		return Route{Method: MethodMemories}, true
	}
	if at(1) == "annotate" {
		return Route{Method: MethodAnnotate}, true
	}
	return Route{}, false
}

// AllowedMethods are the HTTP methods a route takes, as the runtime checks them.
func (r Route) AllowedMethods() []string {
	switch r.Method {
	case MethodInfo, MethodInspectorMetadata, MethodInspectorLearning, MethodThreadsList, MethodThreadMessages,
		MethodThreadEvents, MethodThreadState, MethodDebugEvents:
		return []string{"GET"}
	case MethodThreadUpdate:
		return []string{"PATCH", "DELETE"}
	}
	return []string{"POST"}
}

// RunPath is the path of an agent's run route under a base path.
func RunPath(base, agent string) string {
	return strings.TrimSuffix(base, "/") + "/agent/" + url.PathEscape(agent) + "/run"
}
