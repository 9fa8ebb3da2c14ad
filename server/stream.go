package server

import (
	"context"
	"fmt"
	"net/http"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/copilotkit"
	"github.com/agui-mock/agui-mock/internal/sse"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// A stream that waits for its next event holds no goroutine of its own. At its first
// wait its connection is taken over from net/http (http.ResponseController.Hijack),
// whose goroutines for it then end: the headers have gone out, saying Connection:
// close, and the rest of the body is written in chunks by sse.Conn. A timer (the
// runtime's timer heap) wakes the stream when its next event falls due, and plays what
// is due on the timer's short-lived goroutine; cancelling the run's context (the cancel
// endpoint, the server stopping, or the server's hangup.Watcher seeing the client
// leave) wakes it at once. A breakpoint or a stall fault still waits on the goroutine
// that meets it. Streams that cannot be taken over wait on their handler's goroutine.

// stream is a run being played, and what reporting its end needs once its handler has
// returned and its echo context is gone.
type stream struct {
	server    *Server
	p         *player
	ctx       context.Context
	cancel    context.CancelCauseFunc
	route     string
	transport string
	entry     *JournalEntry // nil when the request is not journaled
	started   time.Time

	// Set when the stream is parked:
	publish   func() // publishes the journal entry, which the handler no longer does
	timer     *time.Timer
	stopWatch func() // of the hang-up watch
	stopWake  func() bool
	wakes     atomic.Int32 // wakes asked for and not yet played; above 0 while one plays
}

// canPark reports whether a run's stream can wait without its goroutine: it has waits,
// and its connection can be taken over, an HTTP/1.1 connection whose response net/http
// writes in chunks.
func canPark(c echo.Context, plan *scenarios.Plan, speed float64) bool {
	req := c.Request()
	_, hijacks := c.Response().Writer.(http.Hijacker)
	return hijacks && hasWaits(plan, speed) && req.ProtoMajor == 1 && req.ProtoMinor == 1
}

// hasWaits reports whether a run's stream waits between events at its speed.
func hasWaits(plan *scenarios.Plan, speed float64) bool {
	return speed > 0 && plan.Events[len(plan.Events)-1].At > 0
}

// park takes the stream over from its handler, to wake at due. It returns false, and
// the handler's goroutine goes on waiting, when the connection cannot be taken over.
func (st *stream) park(c echo.Context, due time.Time) bool {
	p := st.p
	if err := p.w.flushPending(); err != nil {
		return false // the wait meets the error and ends the run
	}
	// Counted before net/http lets go of the connection, so that a Shutdown that sees it
	// gone waits for the stream.
	st.server.parked.Add(1)
	conn, _, err := http.NewResponseController(c.Response()).Hijack()
	if err != nil {
		st.server.parked.Done()
		return false
	}
	// Anything the client sent after its request is dropped: the connection closes
	// after this response.
	p.w.takeOver(sse.NewConn(conn, st.server.cfg.WriteTimeout))
	st.wakes.Store(1) // as if a wake were playing, until the stream is set up
	p.link.unlink()   // if the client has already gone, the run's context says so
	st.entry, st.publish = st.server.detachEntry(c)
	st.stopWatch = func() {}
	switch {
	case !p.w.outlive: // a run that outlives its client does not stop when it leaves
		st.stopWatch = st.server.hangups.Watch(conn, func() { st.cancel(context.Canceled) })
	case p.replay != nil: // but one with cursor ids waits for it to come back
		st.stopWatch = st.server.hangups.Watch(conn, p.link.leave)
	}
	st.timer = time.AfterFunc(st.until(due), st.wake)
	st.stopWake = context.AfterFunc(st.ctx, st.wake)
	if st.wakes.Add(-1) != 0 {
		go st.play() // woken while it was set up
	}
	return true
}

// wake plays what is due, unless a wake is playing: that one then plays once more.
func (st *stream) wake() {
	if st.wakes.Add(1) == 1 {
		st.play()
	}
}

// play steps the stream for the wakes asked for, until none is left or it ends.
func (st *stream) play() {
	for {
		n := st.wakes.Load()
		if st.step() {
			return // wakes stays above 0: later wakes do nothing
		}
		if st.wakes.Add(-n) == 0 {
			return
		}
	}
}

// step plays what is due and sets the timer for what comes next, a keep-alive comment
// when that is sooner; it reports whether the stream ended.
func (st *stream) step() (ended bool) {
	p := st.p
	defer func() {
		if r := recover(); r != nil {
			st.server.cfg.Logger.Error("stream panicked", "route", st.route, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			p.run.Release()
			p.replay.end()
			p.disconnect = true
			st.close()
			ended = true
		}
	}()
	if st.ctx.Err() != nil {
		st.end(p.stop(context.Cause(st.ctx)))
		return true
	}
	outcome, due, done := p.advance(st.ctx)
	if done {
		st.end(outcome)
		return true
	}
	if err := p.w.flushPending(); err != nil {
		st.end(protocol.OutcomeCancelled)
		return true
	}
	if every := st.keepAliveEvery(); every > 0 && time.Since(p.w.flushedAt) >= every {
		if err := p.w.keepAlive(); err != nil {
			st.end(protocol.OutcomeCancelled)
			return true
		}
	}
	st.timer.Reset(st.until(due))
	return false
}

// until is how long the stream waits for an event due at due: until then, or until a
// keep-alive comment is due, if that is sooner.
func (st *stream) until(due time.Time) time.Duration {
	if every := st.keepAliveEvery(); every > 0 {
		if next := st.p.w.flushedAt.Add(every); next.Before(due) {
			due = next
		}
	}
	return time.Until(due)
}

// keepAliveEvery is how often the stream sends a keep-alive while it waits: 0 when the
// server sends none, or the stream's transport has none (protobuf).
func (st *stream) keepAliveEvery() time.Duration {
	if st.p.w.enc.KeepAlive() == nil {
		return 0
	}
	return st.server.cfg.KeepAlive
}

// finish records how a run ended in its thread, and counts, journals and logs it.
func (st *stream) finish(outcome protocol.Outcome) {
	next := st.p.plan.Next
	if outcome != protocol.OutcomeInterrupt && outcome != protocol.OutcomeSuccess {
		next = nil // a run cut short abandons the rest of the conversation
	}
	if st.p.runtime != nil { // kept as the runtime keeps a run cut short
		st.p.run.Append(copilotkit.Incomplete(st.p.run.Live().Events())...)
	}
	st.p.run.Finish(outcome, next)
	st.p.replay.end() // its readers get the rest, and its frames wait out the grace
	st.server.reportRun(st, outcome, next.Awaiting())
}

// end finishes a parked stream: it reports the run, publishes the journal entry, and
// ends the response (or drops the connection, for a disconnect fault).
func (st *stream) end(outcome protocol.Outcome) {
	st.finish(outcome)
	st.close()
}

// close ends the response of a parked stream and lets go of what it holds.
func (st *stream) close() {
	st.timer.Stop()
	st.stopWake()
	st.stopWatch()
	// The journal has the run before its client sees the response end, as it has the
	// runs net/http ends: a test that reads the journal once its run is over finds it.
	st.publish()
	if st.p.disconnect {
		_ = st.p.w.flushPending() // what came before the fault reaches the client
		_ = st.p.w.conn.Abort()
	} else {
		_ = st.p.w.drain() // the last events go with the end of the response
		_ = st.p.w.conn.Close()
	}
	st.cancel(nil)
	st.server.streams.Add(-1)
	st.server.parked.Done()
}
