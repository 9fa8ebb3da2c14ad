package server

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/internal/admission"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/testctl"
)

// adminEndpoint is one endpoint of the admin API: a method, a path under AdminPrefix
// and its handler.
type adminEndpoint struct {
	method, path string
	handle       echo.HandlerFunc
}

// adminEndpoints is the admin API, which lives under AdminPrefix; an endpoint is an
// entry here and its handler. Calls that change per-test state (reset, journal, force,
// faults, breakpoints) act on the test named by the X-Test-Id header, or on the requests
// without one.
func (s *Server) adminEndpoints() []adminEndpoint {
	return []adminEndpoint{
		{http.MethodGet, "/healthz", healthz},
		{http.MethodGet, "/readyz", s.readyz},
		{http.MethodGet, "/status", func(c echo.Context) error { return c.JSON(http.StatusOK, s.Status()) }},
		{http.MethodGet, "/schema", func(c echo.Context) error {
			return c.Blob(http.StatusOK, "application/schema+json", scenarios.Schema())
		}},
		{http.MethodGet, "/scenarios", s.listScenarios},
		{http.MethodPost, "/scenarios", s.addScenarios},
		{http.MethodDelete, "/scenarios/:id", s.removeScenario},
		{http.MethodPost, "/reload", s.reloadNow},
		{http.MethodPost, "/reset", s.reset},
		{http.MethodGet, "/journal", s.listJournal},
		{http.MethodGet, "/journal/stream", s.streamJournal},
		{http.MethodGet, "/journal/:seq", s.getRun},
		{http.MethodDelete, "/journal", forget(s.tests.Journal.Reset)},
		{http.MethodPost, "/force", s.force},
		{http.MethodDelete, "/force", forget(s.tests.Forced.Reset)},
		{http.MethodPost, "/breakpoints", s.addBreakpoint},
		{http.MethodGet, "/breakpoints/:id", s.getBreakpoint},
		{http.MethodPost, "/breakpoints/:id/release", s.releaseBreakpoint},
		{http.MethodDelete, "/breakpoints/:id", s.deleteBreakpoint},
		{http.MethodPost, "/faults", s.addFault},
		{http.MethodDelete, "/faults", forget(s.forgetFaults)},
		{http.MethodPost, "/speed", s.setSpeed},
		{http.MethodDelete, "/speed", forget(s.tests.Speed.Reset)},
		{http.MethodPost, "/threads", s.seedThread},
		{http.MethodDelete, "/threads", forget(s.threads.Reset)},
		{http.MethodPost, "/copilotkit/info", s.shapeRuntimeInfo},
		{http.MethodDelete, "/copilotkit/info", forget(s.tests.RuntimeInfo.Reset)},
		{http.MethodGet, "/ui", serveInspector},
		{http.MethodGet, "/ui/:asset", serveInspector},
	}
}

// adminRoutes registers the admin API and, with Config.Metrics, /metrics.
func (s *Server) adminRoutes(e *echo.Echo) {
	for _, ep := range s.adminEndpoints() {
		e.Add(ep.method, AdminPrefix+ep.path, ep.handle)
	}
	if s.cfg.Metrics {
		e.GET(metricsPath, func(c echo.Context) error { return s.metrics.serve(c, s.threads.Usage()) })
	}
}

// forget is the handler of a DELETE that forgets one store's state of the caller's
// test (of the requests without X-Test-Id, when it has none).
func forget(reset func(testID string, all bool)) echo.HandlerFunc {
	return func(c echo.Context) error {
		reset(c.Request().Header.Get(TestIDHeader), false)
		return c.NoContent(http.StatusNoContent)
	}
}

func healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(c echo.Context) error {
	n := len(s.set.Load().Scenarios())
	if n == 0 {
		return c.JSON(http.StatusServiceUnavailable, map[string]any{"status": "not ready", "scenarios": 0})
	}
	return c.JSON(http.StatusOK, map[string]any{"status": "ready", "scenarios": n})
}

// scenarioInfo describes a loaded scenario for the admin API.
type scenarioInfo struct {
	ID          string            `json:"id"`
	Description string            `json:"description,omitempty"`
	Source      string            `json:"source"`
	Priority    int               `json:"priority"`
	Broken      string            `json:"broken,omitempty"`
	Dialect     scenarios.Dialect `json:"dialect,omitempty"` // empty: the server's --dialect
	Runtime     bool              `json:"runtime,omitempty"`
	Examples    []exampleInfo     `json:"examples,omitempty"`
}

// exampleInfo is an example with the run input it stands for (scenarios.Example.RunInput,
// with fresh ids), which the inspector's "Play example" sends as it is.
type exampleInfo struct {
	scenarios.Example
	Input map[string]any `json:"input"`
}

func examplesOf(sc *scenarios.Scenario) []exampleInfo {
	out := make([]exampleInfo, len(sc.Examples))
	for i, ex := range sc.Examples {
		ids := scenarios.RunIDs{Thread: newUUID(), Run: newUUID(), Message: newUUID()}
		out[i] = exampleInfo{Example: ex, Input: ex.RunInput(ids)}
	}
	return out
}

func newUUID() string { return protocol.NewUUID(rand.Uint64(), rand.Uint64()) }

func (s *Server) listScenarios(c echo.Context) error {
	set := s.set.Load()
	runtime := s.runtimeIDs()
	list := make([]scenarioInfo, 0, len(set.Scenarios()))
	for _, sc := range set.Scenarios() {
		list = append(list, scenarioInfo{ID: sc.ID, Description: sc.Description, Source: sc.Source.String(), Priority: sc.Priority,
			Broken: sc.Broken, Dialect: sc.Dialect, Runtime: runtime[sc.ID], Examples: examplesOf(sc)})
	}
	return c.JSON(http.StatusOK, map[string]any{"scenarios": list, "routes": set.Routes(), "errors": s.Status().Errors})
}

func (s *Server) runtimeIDs() map[string]bool {
	s.load.state.Lock()
	defer s.load.state.Unlock()
	ids := map[string]bool{}
	for _, sc := range s.load.runtime {
		ids[sc.ID] = true
	}
	return ids
}

// addScenarios adds the scenarios of a YAML (or JSON) body, checked exactly as files
// are, within the same size limit; a scenario with the id of an earlier runtime one
// replaces it.
func (s *Server) addScenarios(c echo.Context) error {
	body, err := s.readBody(c, min(s.cfg.MaxBodyBytes, scenarios.MaxFileBytes))
	if err != nil {
		return err
	}
	s.load.mu.Lock()
	defer s.load.mu.Unlock()
	s.load.added++
	name := fmt.Sprintf("runtime-%d.yaml", s.load.added)
	added, diags := scenarios.ParseContext(c.Request().Context(), name, body)
	if len(diags) > 0 {
		return invalidScenario(diags)
	}
	runtime := append([]*scenarios.Scenario(nil), added...)
	ids := make([]string, len(added))
	for i, sc := range added {
		ids[i] = sc.ID
	}
	for _, old := range s.load.runtime {
		if !slices.Contains(ids, old.ID) {
			runtime = append(runtime, old)
		}
	}
	if err := s.reloadLocked(c.Request().Context(), runtime); err != nil {
		var le *scenarios.LoadError
		if errors.As(err, &le) {
			return invalidScenario(le.Diagnostics)
		}
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"added": ids})
}

func invalidScenario(diags []scenarios.Diagnostic) error {
	return &httpError{status: http.StatusUnprocessableEntity, body: errorBody{Error: "invalid_scenario",
		Message: fmt.Sprintf("the scenario was not added: %d problem(s); the first: %s", len(diags), diags[0].Error()),
		Details: map[string]any{"problems": diags}}}
}

func (s *Server) removeScenario(c echo.Context) error {
	id := c.Param("id")
	s.load.mu.Lock()
	defer s.load.mu.Unlock()
	var kept []*scenarios.Scenario
	for _, sc := range s.load.runtime {
		if sc.ID != id {
			kept = append(kept, sc)
		}
	}
	if len(kept) == len(s.load.runtime) {
		for _, sc := range s.set.Load().Scenarios() {
			if sc.ID == id {
				return apiError(http.StatusConflict, "not_runtime", "scenario "+id+" comes from "+sc.Source.String()+"; only scenarios added through the admin API can be removed")
			}
		}
		return apiError(http.StatusNotFound, "unknown_scenario", "no scenario "+id)
	}
	if err := s.reloadLocked(c.Request().Context(), kept); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *Server) reloadNow(c echo.Context) error {
	if err := s.Reload(c.Request().Context()); err != nil {
		var le *scenarios.LoadError
		if errors.As(err, &le) {
			return &httpError{status: http.StatusUnprocessableEntity, body: errorBody{Error: "reload_rejected",
				Message: "the scenarios have problems; the previous set is still served", Details: map[string]any{"problems": le.Diagnostics}}}
		}
		return err
	}
	return c.JSON(http.StatusOK, s.Status())
}

// reset forgets a test's threads, journal entries, forced scenarios, faults and
// breakpoints; without X-Test-Id, everybody's.
func (s *Server) reset(c echo.Context) error {
	testID := c.Request().Header.Get(TestIDHeader)
	s.tests.Reset(testID, testID == "")
	return c.NoContent(http.StatusNoContent)
}

// forced is a scenario the next runs play: Times of them, or all while Times is 0.
type forced struct {
	Scenario string `json:"scenario"`
	Times    int    `json:"times"`
}

// force makes the next runs play a scenario whatever they match: {"scenario": id,
// "times": n}, n runs (default 1), or every run while n is 0.
func (s *Server) force(c echo.Context) error {
	var body struct {
		Scenario string `json:"scenario"`
		Times    *int   `json:"times"`
	}
	if err := s.decodeAdminBody(c, &body); err != nil {
		return err
	}
	if body.Scenario == "" {
		return missingMember("scenario", "the id of the scenario to force")
	}
	if !s.hasScenario(body.Scenario) {
		return apiError(http.StatusNotFound, "unknown_scenario", fmt.Sprintf("no scenario %q to force", body.Scenario))
	}
	fc := forced{Scenario: body.Scenario, Times: 1}
	if body.Times != nil {
		if *body.Times < 0 {
			return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Message: "times must be 0 (every run) or more", Field: "times"}}
		}
		fc.Times = *body.Times
	}
	s.tests.Forced.Replace(c.Request().Header.Get(TestIDHeader), fc.Scenario, fc.Times)
	return c.JSON(http.StatusOK, fc)
}

// setSpeed sets the speed factor of the test's runs until its reset: {"speed": f}, 0
// plays without delays. A run's X-Agui-Mock-Speed header still wins.
func (s *Server) setSpeed(c echo.Context) error {
	var body struct {
		Speed *float64 `json:"speed"`
	}
	if err := s.decodeAdminBody(c, &body); err != nil {
		return err
	}
	if body.Speed == nil {
		return missingMember("speed", "the speed factor, e.g. 0.5 plays twice as fast, 0 without delays")
	}
	if !scenarios.ValidSpeed(*body.Speed) {
		return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Message: "speed must be a finite number of 0 or more", Field: "speed"}}
	}
	s.tests.Speed.Replace(c.Request().Header.Get(TestIDHeader), *body.Speed, 0)
	return c.JSON(http.StatusOK, map[string]float64{"speed": *body.Speed})
}

func (s *Server) hasScenario(id string) bool { return s.scenario(id) != nil }

// scenario returns the loaded scenario with an id, or nil.
func (s *Server) scenario(id string) *scenarios.Scenario {
	for _, sc := range s.set.Load().Scenarios() {
		if sc.ID == id {
			return sc
		}
	}
	return nil
}

func (s *Server) addBreakpoint(c echo.Context) error {
	var bp testctl.Breakpoint
	if err := s.decodeAdminBody(c, &bp); err != nil {
		return err
	}
	if (bp.Step == "") == (bp.Event == nil) {
		return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Message: "a breakpoint needs either step (a step id) or event (an event index)"}}
	}
	// How many events a run has depends on its request, so only a negative index is
	// known never to match.
	if bp.Event != nil && *bp.Event < 0 {
		return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Field: "event",
			Message: fmt.Sprintf("event must be 0 (the run's first event) or more, got %d: the breakpoint could never be reached", *bp.Event)}}
	}
	if bp.Scenario != "" {
		sc := s.scenario(bp.Scenario)
		if sc == nil {
			return apiError(http.StatusNotFound, "unknown_scenario", fmt.Sprintf("no scenario %q", bp.Scenario))
		}
		if err := checkStep(sc, bp.Step); err != nil {
			return err
		}
	}
	bp.TestID = c.Request().Header.Get(TestIDHeader)
	return c.JSON(http.StatusCreated, s.tests.Breakpoints.Add(bp))
}

// checkStep refuses a breakpoint on a step id the scenario does not have: it could
// never be reached.
func checkStep(sc *scenarios.Scenario, step string) error {
	ids := sc.StepIDs()
	if step == "" || slices.Contains(ids, step) {
		return nil
	}
	if ids == nil {
		ids = []string{}
	}
	known := "it has no step ids"
	if len(ids) > 0 {
		known = "its step ids: " + strings.Join(ids, ", ")
	}
	return &httpError{status: http.StatusNotFound, body: errorBody{Error: "unknown_step", Field: "step",
		Message: fmt.Sprintf("scenario %q has no step %q, so the breakpoint could never be reached (%s)", sc.ID, step, known),
		Details: map[string]any{"stepIds": ids}}}
}

// breakpointOf finds the breakpoint a request's path names. Its id is unique across
// tests, so the call needs no X-Test-Id.
func (s *Server) breakpointOf(c echo.Context) (*testctl.Breakpoint, error) {
	bp, ok := s.tests.Breakpoints.Get(c.Param("id"))
	if !ok {
		return nil, apiError(http.StatusNotFound, "unknown_breakpoint", "no breakpoint "+c.Param("id"))
	}
	return bp, nil
}

// getBreakpoint answers a breakpoint's state; with ?wait=DURATION it first waits, up to
// that long, for a stream to reach it, answering 408 if none does.
func (s *Server) getBreakpoint(c echo.Context) error {
	bp, err := s.breakpointOf(c)
	if err != nil {
		return err
	}
	if w := c.QueryParam("wait"); w != "" {
		d, err := time.ParseDuration(w)
		if err != nil || d < 0 || d > 5*time.Minute {
			return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Message: "wait is a duration up to 5m, e.g. 10s", Field: "wait"}}
		}
		admission.Begun(c.Request().Context()) // the answer waits for a stream
		ctx, cancel := context.WithTimeout(c.Request().Context(), d)
		defer cancel()
		defer context.AfterFunc(s.root, cancel)() // a shutdown does not wait for the poll
		if !bp.Wait(ctx) {
			if s.root.Err() != nil {
				return apiError(http.StatusServiceUnavailable, "server_shutdown", "the mock server is shutting down")
			}
			return &httpError{status: http.StatusRequestTimeout, body: errorBody{Error: "not_reached", Message: "no stream reached the breakpoint within " + w}}
		}
	}
	return c.JSON(http.StatusOK, s.tests.Breakpoints.Snapshot(bp))
}

func (s *Server) releaseBreakpoint(c echo.Context) error {
	bp, err := s.breakpointOf(c)
	if err != nil {
		return err
	}
	s.tests.Breakpoints.Release(bp, false)
	return c.JSON(http.StatusOK, s.tests.Breakpoints.Snapshot(bp))
}

func (s *Server) deleteBreakpoint(c echo.Context) error {
	bp, err := s.breakpointOf(c)
	if err != nil {
		return err
	}
	s.tests.Breakpoints.Release(bp, true)
	return c.NoContent(http.StatusNoContent)
}
