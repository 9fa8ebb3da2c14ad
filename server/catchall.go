package server

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/scenarios"
)

// NearMissesHeader answers a run that a built-in scenario (the catch-all, a Dojo
// route's, …) played while scenarios of the developer's own are loaded: the ids of the
// nearest of theirs, of which the warning logged, the journal entry and the inspector
// say why each missed.
const NearMissesHeader = "X-Agui-Mock-Near-Misses"

// builtinAnswered is the warning logged for a run a built-in scenario answered while
// scenarios of the developer's own are loaded: replaying a recorded directory, a request
// the recordings miss would otherwise get the built-in's answer silently.
const builtinAnswered = "a built-in scenario answered: no scenario of yours matches this run"

// explainBuiltin tells the developer why none of their scenarios answered a run that a
// built-in one plays: a response header, a warning naming the built-in scenario, and the
// journal entry (noteStarted) name the nearest of theirs and their reasons. It does
// nothing for any other run.
func (s *Server) explainBuiltin(c echo.Context, route string, rr *runRequest, sr startedRun) {
	if len(sr.missed) == 0 {
		return
	}
	ids := make([]string, len(sr.missed))
	for i, m := range sr.missed {
		ids[i] = headerWord(m.ID)
	}
	c.Response().Header().Set(NearMissesHeader, strings.Join(ids, ", "))
	s.cfg.Logger.LogAttrs(c.Request().Context(), slog.LevelWarn, builtinAnswered,
		slog.String("route", route), slog.String("scenario", sr.plan.Scenario.ID), slog.String("thread", rr.in.ThreadID), slog.String("run", rr.in.RunID),
		slog.String("request_id", c.Response().Header().Get(echo.HeaderXRequestID)), slog.String("test", rr.testID),
		slog.String("nearest", nearestReasons(sr.missed)))
}

// nearestReasons says why each of the nearest scenarios missed, for the log.
func nearestReasons(missed []scenarios.Candidate) string {
	why := make([]string, len(missed))
	for i, m := range missed {
		why[i] = m.ID + " (" + m.Source + "): " + strings.Join(m.Reasons, "; ")
	}
	return strings.Join(why, " | ")
}

// noScenario is the answer to a run that no scenario matches, logged with the nearest
// scenarios and why each missed. The answer names them too — their files and patterns —
// unless an admin token keeps the scenarios from whoever may run: then only the journal
// and the log, which the token guards or the client cannot read, keep them.
func (s *Server) noScenario(ctx context.Context, sreq *scenarios.Request, candidates []scenarios.Candidate) *httpError {
	s.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "no scenario matches this run",
		slog.String("route", sreq.Route), slog.String("thread", sreq.Input.ThreadID), slog.String("run", sreq.Input.RunID),
		slog.String("nearest", nearestReasons(candidates)))
	he := &httpError{status: http.StatusNotFound, body: errorBody{Error: "no_scenario", Message: "no scenario matches this request",
		Details: map[string]any{"candidates": candidates}}}
	if s.cfg.AdminToken != "" {
		he.raw = map[string]any{"error": he.body.Error,
			"message": he.body.Message + " (the nearest scenarios are left out: the admin API takes a token; the journal and the log name them)"}
	}
	return he
}

// headerWord is an id as a header value may carry it: as it is when it is printable
// ASCII without a comma, else quoted with escapes.
func headerWord(id string) string {
	for _, r := range id {
		if r < 0x20 || r > 0x7e || r == ',' || r == '"' {
			return strconv.QuoteToASCII(id)
		}
	}
	return id
}
