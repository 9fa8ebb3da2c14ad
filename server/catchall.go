package server

import (
	"log/slog"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// NearMissesHeader answers a run the built-in catch-all played while scenarios of the
// developer's own are loaded: the ids of the nearest of them, which the warning logged,
// the journal entry and the inspector say why each missed.
const NearMissesHeader = "X-Agui-Mock-Near-Misses"

// explainCatchAll tells the developer why none of their scenarios answered a run that
// the catch-all plays: a response header, a warning and the journal entry (noteStarted)
// name the nearest and their reasons. It does nothing for any other run.
func (s *Server) explainCatchAll(c echo.Context, route string, rr *runRequest, sr startedRun) {
	if len(sr.missed) == 0 {
		return
	}
	ids := make([]string, len(sr.missed))
	why := make([]string, len(sr.missed))
	for i, m := range sr.missed {
		ids[i] = headerWord(m.ID)
		why[i] = m.ID + " (" + m.Source + "): " + strings.Join(m.Reasons, "; ")
	}
	c.Response().Header().Set(NearMissesHeader, strings.Join(ids, ", "))
	s.cfg.Logger.LogAttrs(c.Request().Context(), slog.LevelWarn, "the built-in catch-all answered: no scenario of yours matches this run",
		slog.String("route", route), slog.String("thread", rr.in.ThreadID), slog.String("run", rr.in.RunID),
		slog.String("request_id", c.Response().Header().Get(echo.HeaderXRequestID)), slog.String("test", rr.testID),
		slog.String("nearest", strings.Join(why, " | ")))
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
