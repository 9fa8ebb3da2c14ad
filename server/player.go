package server

import (
	"context"
	"errors"
	"time"

	"github.com/agui-mock/agui-mock/copilotkit"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/testctl"
	"github.com/agui-mock/agui-mock/threads"
)

// player streams one run's plan to its client and records it in the thread.
type player struct {
	server      *Server
	w           *eventWriter
	peer        protocol.Peer
	run         *threads.Run
	plan        *scenarios.Plan
	speed       float64
	threadID    string
	runID       string
	testID      string
	fault       *scenarios.Fault     // asked for by the request
	open        protocol.RuleChecker // what is open, to close it if the run is cut short; see opened
	tracked     int                  // the plan's events open has followed
	sent        int
	next        int           // the index in the plan of the next event to play
	start       time.Time     // when the run's timeline began
	playedAt    time.Time     // when the last event was played
	clockWrites int           // the writer's writes when the clock was last read (clock)
	at          time.Duration // the offset in the plan of the event being played
	disconnect  bool          // the run ends by dropping the connection
	timer       *time.Timer   // reused for every wait of the run
	rec         *runRecord    // nil when no run is kept
	link        *requestLink  // to the request, made at the run's first wait
	requestID   string        // names the run in the journal stream's progress
	reported    time.Time     // when the journal stream last heard of its progress
	runtime     *runtimeRun   // nil unless the run is one the CopilotKit runtime keeps
	replay      *replayRun    // nil unless the ids are cursors (reconnect.go)

	// ending is a fault step's that rewrites the run's RUN_FINISHED (faultrules.go).
	ending *scenarios.Fault
}

// runtimeRun is what a run of the CopilotKit runtime's routes sends besides its plan:
// its RUN_STARTED carries its input, as the runtime's runner adds it, with the messages
// the thread did not hold before.
type runtimeRun struct {
	input    map[string]any
	historic map[string]bool
}

// started is a run's RUN_STARTED as the runtime relays and keeps it.
func (rt *runtimeRun) started(ev protocol.Event) protocol.Event {
	return copilotkit.StartedWithInput(ev, rt.input, func(id string) bool { return rt.historic[id] })
}

// play writes the plan's events on their timeline, measured from the start of the run
// so that lateness never accumulates, and returns how the run ended: as its last event
// says (protocol.OutcomeOf) when it played to the end; cancelled (by the cancel endpoint
// or the client going away), fault (a fault broke the stream) or error when the server
// shuts down when it did not. It waits on the calling goroutine; given park, it offers
// the stream to it at every wait, and returns parked once park has taken it: the stream
// then goes on without this goroutine (stream.go).
func (p *player) play(ctx context.Context, park func(due time.Time) bool) (outcome protocol.Outcome, parked bool) {
	// The fault's hook is looked up where it is needed, not kept: the player lives on its
	// goroutine's stack, which must stay within 8 KiB (BenchmarkOpenStreams).
	if wait := hookOf(p.fault).wait; wait != nil {
		p.link.link()
		if err := p.server.sleep(ctx, wait(*p.fault)); err != nil {
			return p.stop(err), false
		}
	}
	p.start = time.Now()
	p.w.begin(p.server.dates.at(p.start))
	if p.rec != nil {
		p.rec.started = p.start
	}
	p.reported = p.start // a run that ends within progressEvery has its start and its entry only
	for {
		outcome, due, done := p.advance(ctx)
		if done {
			return outcome, false
		}
		if park != nil && park(due) {
			return "", true
		}
		p.link.link()
		if err := p.waitUntil(ctx, due); err != nil {
			return p.stop(err), false
		}
	}
}

// advance plays every event that is due, from the next one on, and returns when the
// run has ended (done, with its outcome) or when the next event is not due yet (due:
// when it is).
func (p *player) advance(ctx context.Context) (outcome protocol.Outcome, due time.Time, done bool) {
	plan := p.plan
	for ; p.next < len(plan.Events); p.next++ {
		i, t := p.next, plan.Events[p.next]
		now := p.clock(i)
		if due := p.due(i); now.Before(due) {
			return "", due, false
		}
		p.playedAt, p.at = now, t.At
		if bp := p.server.tests.Breakpoints.Hit(p.testID, plan.Scenario.ID, t.Step, i, p.threadID, p.runID); bp != nil {
			paused, outcome, err := p.pause(ctx, bp)
			if err != nil {
				return outcome, time.Time{}, true
			}
			p.start = p.start.Add(paused) // the rest keeps its rhythm
			now = time.Now()
			p.playedAt = now
		}
		// After the breakpoint, so that a test can pause a run at the event a fault breaks.
		if f := p.fault; f != nil && strikesAt(f) == i {
			if outcome, done := p.strikeFault(ctx, f); done {
				return outcome, time.Time{}, true
			}
		}
		if t.Fault != nil { // a scenario's fault step: its kind strikes
			if outcome, done := p.strikeFault(ctx, t.Fault); done {
				return outcome, time.Time{}, true
			}
			continue
		}
		if err := p.sendPlanned(t.Event, now); err != nil {
			return protocol.OutcomeCancelled, time.Time{}, true
		}
	}
	// A broken scenario may end its stream without a terminal event, as truncate does: fault.
	return protocol.OutcomeOf(plan.Events[len(plan.Events)-1].Event), time.Time{}, true
}

// clock is the time at which event i plays: the time event i-1 played at, when i falls
// due at the same moment at the run's speed and nothing has been written since (events
// due together play together, and a burst, or any run at speed 0, reads the clock once
// a write, not once an event); else the clock, read now.
func (p *player) clock(i int) time.Time {
	events := p.plan.Events
	if i > 0 && scenarios.Scale(events[i].At, p.speed) == scenarios.Scale(events[i-1].At, p.speed) && p.w.writes == p.clockWrites {
		return p.playedAt
	}
	p.clockWrites = p.w.writes
	return time.Now()
}

// due is when event i falls due: at its offset on the run's timeline, measured from the
// run's start so that lateness does not accumulate; but after an event that went out
// late, no sooner than half its planned gap after that one, unless that would leave it
// more than a whole gap behind its own time. A stream that fell behind (a busy machine,
// a start among a thousand) catches up over its next events, each gap at least half of
// what the scenario says and none more than a gap late, instead of sending them in a
// bunch; events planned together still go together.
func (p *player) due(i int) time.Time {
	events := p.plan.Events
	due := p.start.Add(scenarios.Scale(events[i].At, p.speed))
	if i == 0 {
		return due
	}
	gap := scenarios.Scale(events[i].At-events[i-1].At, p.speed)
	soonest := p.playedAt.Add(gap / 2)
	if latest := due.Add(gap); soonest.After(latest) {
		soonest = latest
	}
	if gap > 0 && soonest.After(due) {
		return soonest
	}
	return due
}

// pause waits at a breakpoint until it is released, and returns how long it waited; or
// the outcome of a run that must stop, with the cause. It is a function of its own so
// that play's frame, on the stack of every open stream, stays small.
//
//go:noinline
func (p *player) pause(ctx context.Context, bp *testctl.Breakpoint) (time.Duration, protocol.Outcome, error) {
	paused := time.Now()
	if err := p.w.flushPending(); err != nil {
		return 0, protocol.OutcomeCancelled, err
	}
	p.server.publishProgress(runProgress{RequestID: p.requestID, Events: p.sent, PausedAt: bp.ID})
	p.link.link()
	if err := await(ctx, p.server.stopping, bp.Resumed()); err != nil {
		return 0, p.stop(err), err
	}
	now := time.Now()
	p.rec.pause(bp.ID, paused, now)
	p.server.publishProgress(runProgress{RequestID: p.requestID, Events: p.sent})
	return now.Sub(paused), "", nil
}

// opened returns what the run has open, having followed the plan's events played so
// far: only a run cut short needs it, so a run that plays to its end never pays for it.
func (p *player) opened() *protocol.RuleChecker {
	for ; p.tracked < p.next; p.tracked++ {
		_ = p.open.Track(p.plan.Events[p.tracked].Event) // scenarios marked broken may violate the rules; tracking goes on
	}
	return &p.open
}

// send records an event that is not the plan's (a fault's, a closer, the end of a run
// cut short) in the thread and writes it as the peer understands it, now.
func (p *player) send(ev protocol.Event) error {
	_ = p.opened().Track(ev)
	return p.sendAt(ev, time.Now())
}

// sendAt records an event in the thread and writes it at now, read by the caller: an
// event reads the clock once, for its timeline, its timestamp and its record alike.
func (p *player) sendAt(ev protocol.Event, now time.Time) error {
	if p.runtime != nil && ev.Type == protocol.RunStarted {
		ev = p.runtime.started(ev)
	}
	p.run.Apply(ev)
	adapted, ok := p.peer.Adapt(ev)
	if !ok {
		return nil
	}
	if err := p.w.event(adapted, p.timestamp(now)); err != nil {
		return err
	}
	p.sent++
	if p.rec != nil || p.server.feed.Active() {
		p.recordSent(adapted, now)
	}
	return nil
}

// recordSent keeps an event sent at now in the run's record and, at most every
// progressEvery, tells the journal stream how far the run has come.
func (p *player) recordSent(ev protocol.Event, now time.Time) {
	p.rec.event(ev, now)
	if p.server.feed.Active() && now.Sub(p.reported) >= progressEvery {
		p.reported = now
		p.server.publishProgress(runProgress{RequestID: p.requestID, Events: p.sent})
	}
}

// timestamp is the time the event being sent at now carries, in milliseconds: now or,
// with a fixed time, the fixed time plus the offset in the plan of the event being
// played.
func (p *player) timestamp(now time.Time) int64 {
	if fixed := p.server.cfg.FixedTime; !fixed.IsZero() {
		return fixed.Add(p.at).UnixMilli()
	}
	return now.UnixMilli()
}

// stop ends a run cut short. A cancelled run closes what it has open and finishes with
// a cancelled outcome (RUN_ERROR with code cancelled for 0.0.x clients); a stopping
// server ends it with RUN_ERROR; a client that went away gets nothing more.
func (p *player) stop(cause error) protocol.Outcome {
	switch {
	case errors.Is(cause, threads.ErrCancelled):
		for _, ev := range p.opened().Closers() {
			_ = p.send(ev)
		}
		end := protocol.NewEvent(protocol.RunFinished, "threadId", p.threadID, "runId", p.runID, "outcome", map[string]any{"type": "cancelled"})
		ending := describeEnd(p.peer, end)
		if err := p.send(end); err != nil {
			ending = "no terminal event: the client had gone away"
		}
		p.run.Cancelled(ending)
		return protocol.OutcomeCancelled
	case errors.Is(cause, threads.ErrStopped):
		// Ended as a runtime in front of an AG-UI agent ends a run its stop route stopped.
		_ = p.send(copilotkit.Stopped())
		p.run.Cancelled("stopped through the runtime's stop route")
		return protocol.OutcomeCancelled
	case errors.Is(cause, errShutdown):
		_ = p.send(protocol.NewEvent(protocol.RunError, "message", "the mock server is shutting down", "code", "server_shutdown"))
		return protocol.OutcomeError
	}
	return protocol.OutcomeCancelled
}

// describeEnd says in words what a terminal event becomes on the peer's wire.
func describeEnd(peer protocol.Peer, end protocol.Event) string {
	adapted, _ := peer.Adapt(end)
	if adapted.Type == protocol.RunError {
		return "RUN_ERROR with code " + adapted.Str("code") + " (the client sent no protocolVersion, and 0.0.x clients reject a cancelled outcome)"
	}
	return "RUN_FINISHED with outcome cancelled"
}

// strike carries out what a fault does where it strikes, and returns the run's outcome.
func (p *player) strike(ctx context.Context, s faultStrike) protocol.Outcome {
	if s.event != nil {
		_ = p.send(*s.event)
	}
	if s.malformed {
		_ = p.w.malformed()
	}
	p.disconnect = s.disconnect
	if !s.stall {
		return s.outcome
	}
	if err := p.w.flushPending(); err != nil {
		return protocol.OutcomeCancelled
	}
	for {
		interval := time.Hour
		if s.keepAlive && p.server.cfg.KeepAlive > 0 {
			interval = p.server.cfg.KeepAlive
		}
		p.link.link()
		if err := p.server.sleep(ctx, interval); err != nil {
			return p.stop(err)
		}
		if err := p.w.keepAlive(); err != nil || p.w.gone {
			return protocol.OutcomeCancelled // nobody waits for what a stall holds back
		}
	}
}

// sleep waits for d, or until the run must stop.
func (s *Server) sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	return await(ctx, s.stopping, timer.C)
}

// await waits for ready, or until the run must stop (the client went away, the run was
// cancelled, the server is stopping): it returns the cause.
func await[T any](ctx context.Context, stopping <-chan struct{}, ready <-chan T) error {
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-stopping:
		return errShutdown
	case <-ready:
		return nil
	}
}

// waitUntil sleeps until due, first sending what is written, and writing keep-alives
// during long waits. It returns nil when due, or the cause that stops the run.
func (p *player) waitUntil(ctx context.Context, due time.Time) error {
	keepAliveEvery := p.server.cfg.KeepAlive
	for {
		if err := p.w.flushPending(); err != nil {
			return err
		}
		d := time.Until(due) // after the flush, which may have taken a while
		if d <= 0 {
			return nil
		}
		keepAlive := keepAliveEvery > 0 && d > keepAliveEvery
		if keepAlive {
			d = keepAliveEvery
		}
		if p.timer == nil {
			p.timer = time.NewTimer(d)
		} else {
			p.timer.Reset(d)
		}
		select {
		case <-ctx.Done():
			p.timer.Stop()
			return context.Cause(ctx)
		case <-p.server.stopping:
			p.timer.Stop()
			return errShutdown
		case <-p.timer.C:
		}
		if keepAlive {
			if err := p.w.keepAlive(); err != nil {
				return err
			}
		}
	}
}
