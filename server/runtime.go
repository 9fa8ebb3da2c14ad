package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/copilotkit"
	"github.com/agui-mock/agui-mock/internal/admission"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/testctl"
	"github.com/agui-mock/agui-mock/threads"
)

// The CopilotKit runtime's routes, under Config.RuntimePath (/copilotkit by default): a
// CopilotKit app whose runtimeUrl points there talks to the mock as to a runtime 1.75
// of SSE mode with its in-memory runner (package copilotkit has the wire). Runs play the
// scenarios as the run route /agui/chat does, with the agent as something a scenario
// matches (match.agent); the thread keeps each run's events, as the runtime's runner
// does, for the connect route to replay, the thread routes to list and the stop route
// to stop. What the runtime answers to a request it cannot serve (an unknown agent, a
// route it does not have) is answered as it answers it.

// runtimeRoutes registers the runtime's routes, unless Config.RuntimePath is empty.
func (s *Server) runtimeRoutes(e *echo.Echo) {
	base := s.cfg.RuntimePath
	if base == "" {
		return
	}
	e.Any(base, s.runtimeEnvelope, s.authenticate)
	e.Any(base+"/*", s.runtimeRoute, s.authenticate)
}

// underRuntime reports whether a path is the runtime's base path or under it.
func (s *Server) underRuntime(path string) bool {
	base := s.cfg.RuntimePath
	// base and a slash, without making the string of both on every request
	return base != "" && strings.HasPrefix(path, base) && (len(path) == len(base) || path[len(base)] == '/')
}

// runtimeListedOnly reports whether a path of the runtime's routes reads or changes a
// thread, which only pages of the origins --cors-origins lists may call, whatever the
// method: the connect, stop and thread routes, and the single endpoint, which may be any
// of them. path is as sent, escaped.
func (s *Server) runtimeListedOnly(path string) bool {
	if !s.underRuntime(path) {
		return false
	}
	if routeOf(path) == s.cfg.RuntimePath {
		return true
	}
	route, ok := copilotkit.Match(path, s.cfg.RuntimePath)
	if !ok {
		return false
	}
	switch route.Method {
	case copilotkit.MethodInfo, copilotkit.MethodRun, copilotkit.MethodSuggest, copilotkit.MethodInspectorMetadata,
		copilotkit.MethodInspectorLearning, copilotkit.MethodTranscribe, copilotkit.MethodDebugEvents:
		return false
	}
	return true
}

// runtimeRoute answers a request of one of the runtime's routes.
func (s *Server) runtimeRoute(c echo.Context) error {
	req := c.Request()
	route, ok := copilotkit.Match(req.URL.EscapedPath(), s.cfg.RuntimePath)
	if !ok || route.Method == copilotkit.MethodMemories {
		return runtimeError(copilotkit.NotFound())
	}
	if allow := route.AllowedMethods(); !slices.Contains(allow, req.Method) {
		c.Response().Header().Set("Allow", strings.Join(allow, ", "))
		return runtimeError(copilotkit.MethodNotAllowed())
	}
	return s.runtimeCall(c, route, nil)
}

// runtimeEnvelope answers the runtime's single endpoint: a POST to the base path whose
// JSON body names the route it calls.
func (s *Server) runtimeEnvelope(c echo.Context) error {
	req := c.Request()
	if req.Method != http.MethodPost {
		c.Response().Header().Set("Allow", http.MethodPost)
		return runtimeError(copilotkit.MethodNotAllowed())
	}
	if !strings.Contains(req.Header.Get("Content-Type"), "application/json") {
		return runtimeError(copilotkit.EnvelopeError(http.StatusUnsupportedMediaType, "Single-route endpoint expects JSON payloads"))
	}
	body, err := s.readBody(c, s.cfg.MaxBodyBytes)
	if err != nil {
		return err
	}
	v, err := protocol.DecodeJSON(body)
	if err != nil {
		return runtimeError(copilotkit.EnvelopeError(http.StatusBadRequest, "Invalid JSON payload"))
	}
	env, rerr := copilotkit.ReadEnvelope(v)
	if rerr != nil {
		return runtimeError(rerr)
	}
	if env.Route.Method == copilotkit.MethodMemories {
		return runtimeError(copilotkit.NotFound())
	}
	if env.Resource && !slices.Contains(env.Route.AllowedMethods(), env.HTTPMethod) {
		// a resource/request names its own method, which the route must take
		c.Response().Header().Set("Allow", strings.Join(env.Route.AllowedMethods(), ", "))
		return runtimeError(copilotkit.MethodNotAllowed())
	}
	// The call's own body, and query, become the request's, as the runtime rebuilds it.
	if env.Body != nil {
		inner, err := json.Marshal(env.Body)
		if err != nil {
			return err
		}
		req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(inner)), int64(len(inner))
		req.Header.Set("Content-Type", "application/json")
	} else {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	if env.Query != nil {
		req.URL.RawQuery = env.Query.Encode()
	}
	return s.runtimeCall(c, env.Route, &env)
}

// runtimeCall answers a call of a route, by its path or through the single endpoint
// (env, nil for a path's).
func (s *Server) runtimeCall(c echo.Context, route copilotkit.Route, env *copilotkit.Envelope) error {
	switch route.Method {
	case copilotkit.MethodInfo:
		return s.runtimeInfo(c, env != nil)
	case copilotkit.MethodRun, copilotkit.MethodSuggest:
		if e := s.unknownAgent(c, route.AgentID); e != nil {
			return runtimeError(e)
		}
		return s.run(c, runTarget{route: c.Request().URL.Path, agent: route.AgentID, kept: route.Method == copilotkit.MethodRun})
	case copilotkit.MethodConnect:
		return s.runtimeConnect(c, route)
	case copilotkit.MethodStop:
		return s.runtimeStop(c, route)
	case copilotkit.MethodInspectorMetadata:
		c.Response().Header().Set("Cache-Control", "no-store, private")
		return c.NoContent(http.StatusNoContent)
	case copilotkit.MethodInspectorLearning:
		c.Response().Header().Set("Cache-Control", "no-store, private")
		return runtimeError(copilotkit.NotFound())
	case copilotkit.MethodTranscribe:
		return runtimeError(copilotkit.TranscriptionNotConfigured())
	case copilotkit.MethodDebugEvents:
		return c.String(http.StatusNotFound, "Not Found")
	case copilotkit.MethodThreadsList:
		return s.runtimeThreadList(c)
	case copilotkit.MethodThreadsClear:
		s.threads.Reset(c.Request().Header.Get(TestIDHeader), false)
		return c.NoContent(http.StatusNoContent)
	case copilotkit.MethodThreadMessages, copilotkit.MethodThreadEvents, copilotkit.MethodThreadState:
		return s.runtimeThread(c, route)
	}
	// renaming, archiving, deleting and subscribing to threads, annotations: only
	// CopilotKit Intelligence serves them, which the in-memory runner's runtime lacks
	return runtimeError(copilotkit.IntelligenceRequired())
}

// runtimeError is one of the runtime's error answers, as the runtime writes it.
func runtimeError(e *copilotkit.Error) *httpError {
	he := &httpError{status: e.Status, raw: e.Body}
	he.body.Error, _ = e.Body["error"].(string)
	he.body.Message, _ = e.Body["message"].(string)
	if details, ok := e.Body["details"].(string); ok && he.body.Message == "" {
		he.body.Message = details
	}
	return he
}

// runtimeKey is the thread a request of the runtime's routes names: its test's.
func runtimeKey(c echo.Context, thread string) threads.Key {
	return threads.Key{Test: c.Request().Header.Get(TestIDHeader), Thread: thread}
}

// handshakeFault is the fault a request of the runtime's handshake (its info, connect
// and stop routes, called by their paths) takes from its test's queue for that route;
// none when nothing is queued, when the head of the queue lets the request pass (a
// fault's after), or for a call through the single endpoint, which a client falls back
// to when the routes fail.
// It answers in place of the route (a status fault), drops the connection (disconnect),
// or waits first (slowStart): done says it has answered.
func (s *Server) handshakeFault(c echo.Context, queue *testctl.Queue[scenarios.Fault]) (done bool, err error) {
	if routeOf(c.Request().URL.Path) == s.cfg.RuntimePath {
		return false, nil
	}
	f, ok := queue.Take(c.Request().Header.Get(TestIDHeader))
	if !ok || f.Kind == "" { // nothing queued, or a request to let pass
		return false, nil
	}
	note(c, func(e *JournalEntry) { e.Reason = "injected fault: " + f.Kind })
	hook := faultHookFor(f.Kind)
	switch {
	case hook.answer != nil:
		return true, hook.answer(c, f)
	case hook.wait != nil:
		if err := s.sleepForRequest(c, hook.wait(f)); err != nil {
			return true, apiError(statusClientClosedRequest, "request_stopped", "the request stopped while its fault delayed it: "+err.Error())
		}
		return false, nil
	}
	panic(http.ErrAbortHandler) // disconnect: the connection drops without an answer
}

// sleepForRequest waits for d before a request is answered, or until its client goes
// away or the server stops.
func (s *Server) sleepForRequest(c echo.Context, d time.Duration) error {
	admission.Begun(c.Request().Context()) // its answer waits on purpose
	timer := time.NewTimer(d)
	defer timer.Stop()
	return await(c.Request().Context(), s.stopping, timer.C)
}
