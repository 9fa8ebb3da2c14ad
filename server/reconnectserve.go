package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/internal/sse"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/threads"
)

// lastEventIDHeader carries the id of the last event a client read, when it POSTs its
// run input again to continue a stream it lost.
const lastEventIDHeader = "Last-Event-ID"

// openReplay registers a run whose SSE ids are cursors, for clients that reconnect:
// its frames are written with cursor ids and kept, and its client leaving starts the
// grace period instead of cancelling it. It returns nil, and changes nothing, without
// cursor ids, for a protobuf stream (whose frames carry no ids) and for a run of the
// CopilotKit runtime's routes (whose frames have none either).
func (s *Server) openReplay(rr *runRequest, link *requestLink, cancel context.CancelCauseFunc) *replayRun {
	if s.reconnects == nil || rr.transport != transportSSE || rr.agent != "" {
		return nil
	}
	run := s.reconnects.open(threads.Key{Test: rr.testID, Thread: rr.in.ThreadID}, rr.in.RunID, cancel)
	rr.enc = cursorEncoder{run: run}
	link.outlive, link.onLeave = true, run.leave
	return run
}

// reconnect answers a run request that carries Last-Event-ID with cursor ids on: it
// streams the rest of the run the cursor names, from the event after it, as the run
// plays on, with no second RUN_STARTED. A cursor that is no cursor, or one ahead of its
// run, is refused with 400; one of another thread or run with 409; one whose run is no
// longer kept (or whose events after it were let go past the bounds) with 410. None of
// them starts a fresh run: its client holds part of a run already, and a second
// RUN_STARTED in the middle of it would break the client's run rather than recover it.
// A client that gets 410 starts the run afresh by posting without Last-Event-ID.
func (s *Server) reconnect(c echo.Context, lastID string) error {
	req := c.Request()
	cur, ok := parseCursor(lastID)
	if !ok {
		return apiError(http.StatusBadRequest, "invalid_cursor", lastEventIDHeader+" must be an id of this server's cursor ids (<token>.<n>), got "+quoteShort(lastID))
	}
	if err := checkJSONContentType(req); err != nil {
		return err
	}
	if name := req.Header.Get(TransportHeader); name != "" && name != transportSSE {
		return apiError(http.StatusBadRequest, "invalid_header", "a run continues over SSE, as it began: "+TransportHeader+" must be sse or absent")
	}
	body, err := s.readBody(c, s.cfg.MaxBodyBytes)
	if err != nil {
		return err
	}
	in, err := s.decodeInput(body, false)
	if err != nil {
		return err
	}
	note(c, func(e *JournalEntry) {
		e.ThreadID, e.RunID, e.Transport, e.bodyIsJSON = in.ThreadID, in.RunID, transportSSE, true
	})
	run := s.reconnects.lookup(cur.token)
	if run == nil {
		return apiError(http.StatusGone, "reconnect_expired", "the run of this cursor is no longer kept: its client stayed away past the grace period (-reconnect-grace), it ended that long ago, or the server restarted; post the run without "+lastEventIDHeader+" to start it afresh")
	}
	if run.thread != (threads.Key{Test: req.Header.Get(TestIDHeader), Thread: in.ThreadID}) || run.runID != in.RunID {
		return apiError(http.StatusConflict, "reconnect_mismatch", "the cursor names a run of another thread or run id: post the input of the run the cursor was read from")
	}
	if err := run.attach(cur.seq); err != nil {
		if errors.Is(err, errCursorAhead) {
			return apiError(http.StatusBadRequest, "invalid_cursor", err.Error())
		}
		return apiError(http.StatusGone, "reconnect_expired", err.Error())
	}
	defer run.detach()
	if err := s.openStream(c.Response()); err != nil {
		return err
	}
	defer s.streams.Add(-1)
	s.tail(c, run, cur.seq)
	return nil
}

// tail writes a run's kept frames after seq, and each that follows as the run writes it,
// until the run ends, is forgotten, or the client leaves; keep-alive comments fill
// long waits, as the run's own stream has them.
func (s *Server) tail(c echo.Context, run *replayRun, seq int) {
	w := sse.NewWriter(c.Response(), s.cfg.WriteTimeout)
	w.Begin(protocol.SSEContentType)
	if err := w.Flush(); err != nil {
		return
	}
	var keepAlive <-chan time.Time
	if every := s.cfg.KeepAlive; every > 0 {
		ticker := time.NewTicker(every)
		defer ticker.Stop()
		keepAlive = ticker.C
	}
	done := c.Request().Context().Done()
	var buf []byte
	for {
		var ended, gone bool
		var changed <-chan struct{}
		buf, seq, ended, gone, changed = run.from(buf[:0], seq)
		if len(buf) > 0 {
			if _, err := w.Write(buf); err != nil {
				return
			}
			if err := w.Flush(); err != nil {
				return
			}
		}
		if ended || gone {
			return
		}
		select {
		case <-changed:
		case <-done:
			return
		case <-keepAlive:
			if _, err := w.Write([]byte(protocol.KeepAlive)); err != nil {
				return
			}
			if err := w.Flush(); err != nil {
				return
			}
		}
	}
}

// whyLeft says, for the journal, what became of a run whose client went away; ctx is
// the run's.
func (run *replayRun) whyLeft(ctx context.Context) string {
	if errors.Is(context.Cause(ctx), errGraceOver) {
		return "the client went away during the run and did not reconnect within the grace period (-reconnect-grace): the run was cancelled"
	}
	return "the client went away during the run, which played on for a client that reconnects with Last-Event-ID"
}

// quoteShort quotes a header's value for an error message, cut to 80 bytes.
func quoteShort(v string) string {
	if len(v) > 80 {
		v = v[:80] + "…"
	}
	return strconv.Quote(v)
}
