package recorder

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/agui-mock/agui-mock/internal/sse"
	"github.com/agui-mock/agui-mock/protocol"
)

// relay copies upstream events to the client in the upstream's transport, flushing
// each, and checks them against
// the protocol. It keeps the events with their timing in kept, within its bounds, and
// returns what went wrong, if anything. Once kept keeps nothing, the events are only
// relayed, and the stream checked for a terminal event at its end: what the checker
// remembers of a run would grow with whatever the agent sends. The upstream request
// ends with ctx, so once the client has gone a read error is its leaving, not the
// upstream's failure.
func (r *Recorder) relay(ctx context.Context, w http.ResponseWriter, frames upstreamFrames, started time.Time, in *protocol.RunAgentInput, kept *capture) string {
	out := sse.NewWriter(w, 0)
	out.Begin(frames.encoder().ContentType())
	_ = out.Flush()
	fail := func(code, msg string) {
		frame, _ := frames.encoder().AppendFrame(nil, protocol.NewEvent(protocol.RunError, "message", msg, "code", code), time.Now().UnixMilli())
		_, _ = out.Write(frame)
		_ = out.Flush()
	}
	// Agents that mint their own thread and run ids (instead of echoing the request's)
	// are still recorded: the fixture echoes whatever request replays it.
	verify := protocol.RuleChecker{Tolerate: protocol.MarkableRules()} // a break is recorded as sent, and marked
	defer func() { kept.breaks = verify.Breaks }()
	last := started
	ended := false // by a terminal event
	for {
		f, err := frames.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && ctx.Err() != nil {
			return clientGone
		}
		if err != nil {
			fail("upstream_stream_broken", "the upstream stream broke off: "+err.Error())
			return "the upstream stream broke off: " + err.Error()
		}
		ev, err := f.event, f.err
		if err == nil && kept.passed == "" {
			err = verify.Check(ev)
		}
		ended = ev.Type == protocol.RunFinished || ev.Type == protocol.RunError
		verify.Warnings = verify.Warnings[:0] // not needed here, and they would pile up
		if err != nil {
			fail("upstream_protocol_error", "the upstream agent broke the AG-UI protocol: "+err.Error())
			return "the upstream agent broke the AG-UI protocol: " + err.Error()
		}
		now := time.Now()
		if kept.add(capturedEvent{gap: now.Sub(last), at: now, event: ev}, f.size) {
			r.cfg.Logger.Warn("not recording a run past the recording limit: what was kept of it is dropped, and no file is written; the run is still relayed to the client",
				"thread", in.ThreadID, "run", in.RunID, "limit", kept.passed, "events", kept.count, "bytes", kept.bytes)
		}
		last = now
		if _, err := out.Write(f.wire); err != nil {
			return clientGone
		}
		_ = out.Flush()
	}
	var early error
	switch {
	case kept.passed == "":
		early = verify.End()
	case !ended:
		early = errors.New("the stream ended without a terminal event (RUN_FINISHED or RUN_ERROR)")
	}
	if early != nil {
		fail("upstream_stream_broken", "the upstream stream ended early: "+early.Error())
		return "the upstream stream ended early: " + early.Error()
	}
	return ""
}
