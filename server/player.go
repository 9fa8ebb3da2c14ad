package server

import (
	"context"
	"errors"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/threads"
)

// player streams one run's plan to its client and records it in the thread.
type player struct {
	server *Server
	w      *eventWriter
	peer   protocol.Peer
	run    *threads.Run
	input  *protocol.RunAgentInput
	open   protocol.Verifier // tracks what is open, to close it if the run is cut short
	sent   int
}

// play writes the plan's events on their timeline, measured from the start of the run
// so that lateness never accumulates, and returns how the run ended: success,
// interrupt, error (RUN_ERROR), cancelled (by the cancel endpoint or the client going
// away) or error when the server shuts down.
func (p *player) play(ctx context.Context, plan *scenarios.Plan, speed float64) string {
	if err := p.w.begin(); err != nil {
		return "cancelled"
	}
	start := time.Now()
	for _, t := range plan.Events {
		due := start.Add(time.Duration(float64(t.At) * speed))
		if err := p.server.waitUntil(ctx, p.w, due); err != nil {
			return p.stop(err)
		}
		if err := p.send(t.Event); err != nil {
			return "cancelled"
		}
	}
	last := plan.Events[len(plan.Events)-1].Event
	switch {
	case last.Type == protocol.RunError:
		return "error"
	case plan.Next != nil && len(plan.Next.Interrupts) > 0:
		return "interrupt"
	}
	return "success"
}

// send records an event in the thread and writes it as the peer understands it.
func (p *player) send(ev protocol.Event) error {
	_ = p.open.Check(ev) // scenarios marked broken may violate the rules; tracking goes on
	p.run.Apply(ev)
	adapted, ok := p.peer.Adapt(ev)
	if !ok {
		return nil
	}
	if err := p.w.event(adapted); err != nil {
		return err
	}
	p.sent++
	return nil
}

// stop ends a run cut short. A cancelled run closes what it has open and finishes with
// a cancelled outcome (RUN_ERROR with code cancelled for 0.0.x clients); a stopping
// server ends it with RUN_ERROR; a client that went away gets nothing more.
func (p *player) stop(cause error) string {
	switch {
	case errors.Is(cause, threads.ErrCancelled):
		for _, ev := range p.open.Closers() {
			_ = p.send(ev)
		}
		_ = p.send(protocol.NewEvent(protocol.RunFinished, "threadId", p.input.ThreadID, "runId", p.input.RunID, "outcome", map[string]any{"type": "cancelled"}))
		return "cancelled"
	case errors.Is(cause, errShutdown):
		_ = p.send(protocol.NewEvent(protocol.RunError, "message", "the mock server is shutting down", "code", "server_shutdown"))
		return "error"
	}
	return "cancelled"
}

// waitUntil sleeps until due, writing keep-alive comments during long waits. It returns
// nil when due, or the cause that stops the run.
func (s *Server) waitUntil(ctx context.Context, w *eventWriter, due time.Time) error {
	for {
		d := time.Until(due)
		if d <= 0 {
			return nil
		}
		keepAlive := s.cfg.KeepAlive > 0 && d > s.cfg.KeepAlive
		if keepAlive {
			d = s.cfg.KeepAlive
		}
		timer := time.NewTimer(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			return context.Cause(ctx)
		case <-s.stopping:
			timer.Stop()
			return errShutdown
		case <-timer.C:
		}
		if keepAlive {
			if err := w.comment(); err != nil {
				return err
			}
		}
	}
}
