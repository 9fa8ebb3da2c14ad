package server

import (
	"errors"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/internal/admission"
	"github.com/agui-mock/agui-mock/recorder"
)

// upstreamMode is who answers a request, the scenarios or the real agent, as Hoverfly's
// modes have it.
type upstreamMode int

const (
	// simulate answers every request from the scenarios.
	simulate upstreamMode = iota
	// recordMissing (serve --record-missing) plays what a scenario answers and proxies to
	// the real agent, recording it, a conversation no scenario answers.
	recordMissing
	// capture (agui-mock record) proxies every request to the real agent and records it.
	capture
)

// upstream decides, for each request, whether the server plays a scenario, proxies to
// the real agent, or records a run no scenario answers; it is the one place that does.
type upstream struct {
	mode upstreamMode
	rec  *recorder.Recorder // nil in simulate mode
}

// newUpstream returns the upstream mode of a configuration: simulate without a
// recorder, capture with RecordAll, recordMissing without.
func newUpstream(cfg Config) upstream {
	switch {
	case cfg.Recorder == nil:
		return upstream{mode: simulate}
	case cfg.RecordAll:
		return upstream{mode: capture, rec: cfg.Recorder}
	}
	return upstream{mode: recordMissing, rec: cfg.Recorder}
}

// anyPostRuns reports whether a POST to any path is a run: recording, any path may be
// the agent's run endpoint (a Dojo route, say, which only a built-in scenario names).
func (u upstream) anyPostRuns() bool { return u.mode == capture || u.mode == recordMissing }

// proxies reports whether a thread's requests go to the real agent before any scenario
// is looked at: every thread's when capturing, and the threads being recorded when
// recording what is missing, so that a recorded conversation goes on upstream.
func (u upstream) proxies(threadID string) bool {
	switch u.mode {
	case capture:
		return true
	case recordMissing:
		return u.rec.Has(threadID)
	}
	return false
}

// recordsMisses reports whether a run that no scenario answers goes to the real agent,
// to be recorded, rather than being answered 404.
func (u upstream) recordsMisses() bool { return u.mode == recordMissing }

// record proxies a run to the real agent and records it.
func (u upstream) record(c echo.Context, rr *runRequest) error {
	admission.Begun(c.Request().Context()) // the answer waits for the agent's
	return recorderError(u.rec.Record(c.Response(), c.Request(), rr.route, rr.in, rr.body))
}

// proxy passes a request of a conversation endpoint (history, cancel) with its body to
// the real agent.
func (u upstream) proxy(c echo.Context, body []byte) error {
	admission.Begun(c.Request().Context()) // the answer waits for the agent's
	return recorderError(u.rec.Proxy(c.Response(), c.Request(), body))
}

// recorderError turns a recorder's answer into the server's error form.
func recorderError(err error) error {
	var ea *recorder.ErrorAnswer
	if errors.As(err, &ea) {
		return apiError(ea.Status, ea.Code, ea.Message)
	}
	return err
}
