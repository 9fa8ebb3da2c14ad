package server

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/internal/admission"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/threads"
)

// runLife owns a run's lifetime on its handler's goroutine, from the moment its stream
// is counted among the open ones to the handler's return: the run's context and its
// link to the request, the state it plays with, and each way it can end. It parks (its
// stream is taken over from net/http and ends itself later: stream.go), finishes (its
// thread, journal, metrics and log are told how it ended, and the response ends with
// its last events), aborts (a disconnect fault drops the connection), or is released
// without finishing (refused before it played, or panicked): its thread let go, its
// context cancelled, its stream counted out.
//
// It lives in its handler's frame, not on the heap: the handler's goroutine holds it
// while the run plays, and no longer once the stream is parked.
type runLife struct {
	server *Server
	// ctx is the run's context: the server's, not the request's, since a stream taken
	// over from net/http outlives its request. Until then the client leaving cancels it,
	// once the run waits (link).
	ctx    context.Context
	cancel context.CancelCauseFunc
	link   *requestLink
	run    *threads.Run // the thread's run, once it plays
	replay *replayRun   // nil unless the run's ids are cursors (reconnect.go)
	// playing: the run has begun to play; finished: its play has returned. A run that
	// began and did not finish panicked, and lets go of its thread as it is released.
	playing, finished bool
	parked            bool // the stream goes on after the handler returns, and ends itself
}

// open counts the run's stream in, or refuses it when -max-streams are open, and gives
// the run its context. A run the CopilotKit runtime keeps (outlive) outlives its
// client, as the runtime's runner runs it: its client leaving does not cancel it. Once
// open succeeds, the handler must release the run when it returns.
func (l *runLife) open(s *Server, c echo.Context, outlive bool) error {
	if err := s.openStream(c.Response()); err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(s.root)
	*l = runLife{server: s, ctx: ctx, cancel: cancel,
		link: &requestLink{req: c.Request().Context(), cancel: cancel, outlive: outlive}}
	return nil
}

// release ends the handler's hold on the run as the handler returns, unless the stream
// was parked (it then ends itself: stream.close). A run that began to play and did not
// finish (it panicked) lets go of its thread and its replay first.
func (l *runLife) release() {
	if l.parked {
		return
	}
	if l.playing && !l.finished {
		l.run.Release()
		l.replay.end()
	}
	l.link.unlink()
	l.cancel(nil)
	l.server.streams.Add(-1)
}

// play plays a started run on its stream, on the handler's goroutine or, once the
// stream waits and its connection can be taken over, parked; a run that does not park
// is finished here.
func (l *runLife) play(c echo.Context, rr *runRequest, sr startedRun, hook faultHook) error {
	s := l.server
	replay := s.openReplay(rr, l.link, l.cancel)
	if hook.wait != nil || hook.write != nil { // a fault that acts on the whole stream strikes now
		sr.record.struck(rr.fault.Kind)
	}
	s.explainBuiltin(c, rr.route, rr, sr)
	s.noteStarted(c, sr)
	l.run, l.replay, l.playing = sr.run, replay, true
	s.metrics.runStarted()
	waits := hasWaits(sr.plan, rr.speed)
	rs := s.runStates.get(waits)
	l.setUp(rs, c, rr, sr, hook, waits)
	var park func(time.Time) bool
	if canPark(c, sr.plan, rr.speed) {
		c.Response().Header().Set("Connection", "close") // the stream will end by closing it
		st := &rs.st
		park = func(due time.Time) bool { return st.park(c, due) }
	}
	if hook.wait != nil {
		admission.Begun(c.Request().Context()) // its answer waits on purpose
	}
	var outcome protocol.Outcome
	outcome, l.parked = rs.p.play(l.ctx, park)
	l.finished = true
	if l.parked {
		return nil
	}
	l.finish(rs, outcome, waits)
	return nil // net/http sends the last events with the end of the response, in one write
}

// setUp readies the run's writer, player and stream in rs.
func (l *runLife) setUp(rs *runState, c echo.Context, rr *runRequest, sr startedRun, hook faultHook, waits bool) {
	s, w, p := l.server, &rs.w, &rs.p
	w.reset(c.Response(), rr.enc, s.cfg.WriteTimeout, waits, hook.write)
	w.outlive, w.replay = rr.kept || l.replay != nil, l.replay
	// The player keeps the ids, not the request: an open stream does not hold on to what
	// only planning needed.
	*p = player{server: s, w: w, peer: protocol.PeerFor(rr.in.ProtocolVersion), run: sr.run, plan: sr.plan, speed: rr.speed,
		threadID: rr.in.ThreadID, runID: rr.in.RunID, testID: rr.testID, fault: rr.fault,
		rec: sr.record, requestID: c.Response().Header().Get(echo.HeaderXRequestID), open: p.open, link: l.link, runtime: sr.runtime, replay: l.replay}
	rs.st = stream{server: s, p: p, ctx: l.ctx, cancel: l.cancel, route: rr.route, transport: rr.transport, started: time.Now(), entry: entryOf(c)}
}

// finish ends a run that was not parked, on its handler's goroutine: it records and
// reports how the run ended (stream.finish), then ends the response with the last
// events, or aborts it for a disconnect fault. A state of the pool goes back to it.
func (l *runLife) finish(rs *runState, outcome protocol.Outcome, waits bool) {
	rs.st.finish(outcome)
	if rs.p.disconnect {
		abort(&rs.w)
	}
	_ = rs.w.drain() // a client gone by now has been told all it could be
	if !waits {
		l.server.runStates.put(rs) // the response holds what the writer gathered
	}
}

// abort drops a handler's connection without ending its response, as a disconnect
// fault asks: what came before the fault reaches the client first. net/http recovers
// the panic and closes the connection.
func abort(w *eventWriter) {
	_ = w.flushPending()
	panic(http.ErrAbortHandler)
}

// runState is what a run's stream needs while it plays, in one allocation: its writer,
// its player and the stream.
type runState struct {
	w  eventWriter
	p  player
	st stream
}

// runStates lends the state of streams that never wait: a short run's, or a burst's,
// serves one request only, and the next run takes it up with the memory its writer's
// buffer and its checker's sets grew. A stream that waits has a state of its own, which
// it keeps while it is open, parked or not.
type runStates struct{ pool sync.Pool } // of *runState

// get returns a state of the pool's for a stream that never waits, else a new one.
func (r *runStates) get(waits bool) *runState {
	if !waits {
		if rs, ok := r.pool.Get().(*runState); ok {
			return rs
		}
	}
	return &runState{}
}

// put gives a state back, emptied of the run that used it.
func (r *runStates) put(rs *runState) {
	buf, open := rs.w.buf, rs.p.open
	open.Reuse()
	*rs = runState{}
	rs.w.buf, rs.p.open = buf, open
	r.pool.Put(rs)
}

// openStream counts a stream in, or refuses it when -max-streams are open.
func (s *Server) openStream(res *echo.Response) error {
	if open := s.streams.Add(1); s.cfg.MaxStreams > 0 && open > int64(s.cfg.MaxStreams) {
		s.streams.Add(-1)
		res.Header().Set("Retry-After", "1")
		return apiError(http.StatusServiceUnavailable, "too_many_streams", fmt.Sprintf("%d streams are open, the limit (-max-streams); retry in a moment", s.cfg.MaxStreams))
	}
	return nil
}

// requestLink cancels a run when its request's context ends, its client having gone,
// from the time link is called: a run links at its first wait. Until then it only plans
// and writes, and a write to a client that has gone fails; a run that never waits is
// spared the registration on the request's context that context.AfterFunc makes.
type requestLink struct {
	req      context.Context
	cancel   context.CancelCauseFunc
	stop     func() bool // nil until linked
	unlinked bool        // for good: the stream was taken over, and its request has ended
	// outlive: the run goes on when its client leaves (a run the CopilotKit runtime
	// keeps), which left only notes.
	outlive bool
	left    atomic.Bool
	onLeave func() // nil, or told when the client leaves a run that outlives it
}

// link makes the link, once, unless the link has ended.
func (l *requestLink) link() {
	if l.stop != nil || l.unlinked {
		return
	}
	req, cancel := l.req, l.cancel
	if l.outlive {
		l.stop = context.AfterFunc(req, l.leave)
		return
	}
	l.stop = context.AfterFunc(req, func() { cancel(context.Cause(req)) })
}

// unlink ends the link for good: the request's end no longer cancels the run, and a later
// wait (a breakpoint, a stall of a stream taken over) does not link it again. A request
// that has ended already cancels the run now, linked or not (or, for a run that outlives
// its client, notes that it left).
func (l *requestLink) unlink() {
	l.unlinked = true
	if l.stop != nil {
		l.stop()
	}
	switch {
	case l.req.Err() == nil:
	case l.outlive:
		l.leave()
	default:
		l.cancel(context.Cause(l.req))
	}
}

// leave notes that the client of a run that outlives it has left.
func (l *requestLink) leave() {
	if !l.left.Swap(true) && l.onLeave != nil {
		l.onLeave()
	}
}
