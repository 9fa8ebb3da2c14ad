package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// SpeedHeader overrides the server's speed factor for one request, e.g. 0 in tests.
const SpeedHeader = "X-Agui-Mock-Speed"

// run answers one run request with a scenario's event stream.
func (s *Server) run(c echo.Context, route string) error {
	req := c.Request()
	if err := checkJSONContentType(req); err != nil {
		return err
	}
	speed, err := s.speedFor(req)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), req.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return apiError(http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("the body exceeds the limit of %d bytes", s.cfg.MaxBodyBytes))
		}
		return apiError(http.StatusBadRequest, "unreadable_body", "reading the body: "+err.Error())
	}
	in, err := protocol.DecodeRunAgentInput(body, protocol.DecodeOptions{Strict: s.cfg.Strict, NewID: s.newID})
	if err != nil {
		var ie *protocol.InputError
		if errors.As(err, &ie) {
			return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Message: "invalid RunAgentInput: " + ie.Error(), Field: ie.Field}}
		}
		return err
	}
	sreq := &scenarios.Request{Route: route, Input: in, Header: req.Header}
	set := s.set.Load()
	sel, candidates := set.Select(sreq)
	if sel == nil {
		return &httpError{status: http.StatusNotFound, body: errorBody{
			Error:   "no_scenario",
			Message: "no scenario matches this request",
			Details: map[string]any{"candidates": candidates},
		}}
	}
	plan, err := sel.Scenario.Plan(sreq, sel.Captures, scenarios.PlanOptions{Seed: s.cfg.Seed, Timing: s.cfg.Timing})
	if err != nil {
		return apiError(http.StatusInternalServerError, "scenario_failed", err.Error())
	}
	peer := protocol.PeerFor(in.ProtocolVersion)
	log := s.cfg.Logger.With("route", route, "scenario", sel.Scenario.ID, "thread", in.ThreadID, "run", in.RunID, "client", peer.String())
	started := time.Now()
	w := newEventWriter(c.Response(), s.cfg.EventIDs, s.cfg.WriteTimeout)
	sent, outcome := s.play(req.Context(), w, plan, speed, peer)
	log.Info("run", "events", sent, "outcome", outcome, "duration", time.Since(started).Round(time.Millisecond))
	return nil
}

func checkJSONContentType(req *http.Request) error {
	ct := req.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || (mt != "application/json" && !(len(mt) > 5 && mt[len(mt)-5:] == "+json")) {
		if ct == "" {
			ct = "none"
		}
		return apiError(http.StatusUnsupportedMediaType, "unsupported_media_type", "the body must be JSON: send Content-Type: application/json (got "+ct+")")
	}
	return nil
}

func (s *Server) speedFor(req *http.Request) (float64, error) {
	h := req.Header.Get(SpeedHeader)
	if h == "" {
		return s.cfg.Speed, nil
	}
	f, err := strconv.ParseFloat(h, 64)
	if err != nil || f < 0 {
		return 0, apiError(http.StatusBadRequest, "invalid_header", SpeedHeader+" must be a number of 0 or more, got "+strconv.Quote(h))
	}
	return f, nil
}

// play writes the plan's events on their timeline, measured from the start of the run
// so that lateness never accumulates. It returns how many events were written and how
// the run ended.
func (s *Server) play(ctx context.Context, w *eventWriter, plan *scenarios.Plan, speed float64, peer protocol.Peer) (int, string) {
	if err := w.begin(); err != nil {
		return 0, "client gone"
	}
	start := time.Now()
	sent := 0
	for _, t := range plan.Events {
		due := start.Add(time.Duration(float64(t.At) * speed))
		if outcome := s.waitUntil(ctx, w, due); outcome != "" {
			if outcome == "shutdown" {
				_ = w.event(protocol.NewEvent(protocol.RunError, "message", "the mock server is shutting down", "code", "server_shutdown"))
			}
			return sent, outcome
		}
		ev, ok := peer.Adapt(t.Event)
		if !ok {
			continue
		}
		if err := w.event(ev); err != nil {
			return sent, "client gone"
		}
		sent++
	}
	return sent, "completed"
}

// waitUntil sleeps until due, writing keep-alive comments during long waits. It returns
// "" when due, or why the run must stop.
func (s *Server) waitUntil(ctx context.Context, w *eventWriter, due time.Time) string {
	for {
		d := time.Until(due)
		if d <= 0 {
			return ""
		}
		keepAlive := s.cfg.KeepAlive > 0 && d > s.cfg.KeepAlive
		if keepAlive {
			d = s.cfg.KeepAlive
		}
		timer := time.NewTimer(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			return "client gone"
		case <-s.stopping:
			timer.Stop()
			return "shutdown"
		case <-timer.C:
		}
		if keepAlive {
			if err := w.comment(); err != nil {
				return "client gone"
			}
		}
	}
}
