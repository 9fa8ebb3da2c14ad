package copilotkit

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Envelope is a call through the runtime's single endpoint: a POST to the base path
// whose JSON body names the route ({"method": "info"}, {"method": "agent/run",
// "params": {"agentId": …}, "body": RunAgentInput}, …), which a client that cannot
// reach GET /info falls back to.
type Envelope struct {
	Route Route
	// Body is the body the route is called with: the run input of a run or connect,
	// the stop's scope, a thread route's body; nil when the envelope has none.
	Body any
	// Resource says the envelope is a resource/request: a thread route called by its
	// path, whose own method and query string HTTPMethod and Query are.
	Resource   bool
	HTTPMethod string
	Query      url.Values
}

// envelopeMethods are the methods the single endpoint takes.
var envelopeMethods = []Method{MethodRun, MethodSuggest, MethodConnect, MethodStop, MethodInfo,
	MethodInspectorMetadata, MethodInspectorLearning, MethodTranscribe, MethodResource}

// ReadEnvelope reads a single-endpoint call from its decoded JSON body, with the
// runtime's errors for what it cannot take.
func ReadEnvelope(v any) (Envelope, *Error) {
	obj, _ := v.(map[string]any)
	name, _ := obj["method"].(string)
	if name == "" {
		return Envelope{}, EnvelopeError(400, "Missing method field")
	}
	method := Method(name)
	if !slices.Contains(envelopeMethods, method) {
		return Envelope{}, EnvelopeError(400, fmt.Sprintf("Unsupported method '%s'", name))
	}
	params, _ := obj["params"].(map[string]any)
	param := func(key string) (string, *Error) {
		s, _ := params[key].(string)
		if strings.TrimSpace(s) == "" {
			return "", EnvelopeError(400, fmt.Sprintf("Missing or invalid parameter '%s'", key))
		}
		return s, nil
	}
	env := Envelope{Route: Route{Method: method}, Body: obj["body"]}
	var err *Error
	switch method {
	case MethodRun, MethodSuggest, MethodConnect:
		if env.Route.AgentID, err = param("agentId"); err != nil {
			return Envelope{}, err
		}
		if env.Body == nil {
			return Envelope{}, EnvelopeError(400, "Missing request body for JSON handler")
		}
	case MethodTranscribe:
		if env.Body == nil {
			return Envelope{}, EnvelopeError(400, "Missing request body for JSON handler")
		}
	case MethodStop:
		if env.Route.AgentID, err = param("agentId"); err != nil {
			return Envelope{}, err
		}
		if env.Route.ThreadID, err = param("threadId"); err != nil {
			return Envelope{}, err
		}
	case MethodResource:
		return readResource(params, env.Body)
	}
	return env, nil
}

// readResource reads a resource/request envelope: a thread route called by its path,
// relative to the runtime, and its HTTP method.
func readResource(params map[string]any, body any) (Envelope, *Error) {
	path, _ := params["path"].(string)
	httpMethod, _ := params["httpMethod"].(string)
	for key, v := range map[string]string{"path": path, "httpMethod": httpMethod} {
		if strings.TrimSpace(v) == "" {
			return Envelope{}, EnvelopeError(400, fmt.Sprintf("Missing or invalid parameter '%s'", key))
		}
	}
	if !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "//") {
		return Envelope{}, EnvelopeError(400, "Resource path must be Runtime-relative")
	}
	u, perr := url.Parse(path)
	if perr != nil {
		return Envelope{}, EnvelopeError(400, "Resource path must be Runtime-relative")
	}
	route, ok := Match(u.EscapedPath(), "/")
	if !ok || !route.isResource() {
		return Envelope{}, NotFound()
	}
	return Envelope{Route: route, Body: body, Resource: true, HTTPMethod: strings.ToUpper(httpMethod), Query: u.Query()}, nil
}

// isResource reports whether a route may be called through a resource/request envelope:
// the thread, memory and annotation routes.
func (r Route) isResource() bool {
	switch r.Method {
	case MethodThreadsList, MethodThreadsSubscribe, MethodThreadUpdate, MethodThreadArchive, MethodThreadMessages,
		MethodThreadEvents, MethodThreadState, MethodThreadsClear, MethodMemories, MethodAnnotate:
		return true
	}
	return false
}
