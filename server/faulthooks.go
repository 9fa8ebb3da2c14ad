package server

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// faultHook is what a fault kind does to a run, at the points where the run, its
// player and its writer call it; which points a kind may use follows from its scope in
// the table of kinds (scenarios.FaultKindTable). A nil field does nothing there: the
// zero faultHook is no fault. The hooks the player calls take no player, but say what
// it is to do: a player passed to a function value would leave the stack for the heap,
// an allocation more for every run.
type faultHook struct {
	// answer replaces the stream with an HTTP answer (request scope).
	answer func(c echo.Context, f scenarios.Fault) error
	// wait is how long the stream waits before its first byte (request scope).
	wait func(f scenarios.Fault) time.Duration
	// write writes each frame and comment of the stream in place of a plain write
	// (stream scope).
	write func(e *eventWriter, b []byte) error
	// strike breaks the stream where it stands (step scope): after the fault's number of
	// events per request, at its step in a scenario.
	strike func(f scenarios.Fault) faultStrike
	// insert is an event sent where the fault strikes, after which the run goes on
	// (event scope): per request after the fault's number of events, but never before
	// RUN_STARTED; at its step in a scenario.
	insert func(f scenarios.Fault) protocol.Event
	// end rewrites the run's RUN_FINISHED, carrying the time at, into the events sent in
	// its place (end scope).
	end func(finished protocol.Event, at time.Time) []protocol.Event
	// admit says, as an error answer before any stream, why the run planned cannot take
	// the fault.
	admit func(f scenarios.Fault, plan *scenarios.Plan) error
}

// faultStrike is what a fault does to the stream where it strikes, as the player
// carries it out: it sends event, writes a malformed frame, then stalls or ends the run with outcome.
type faultStrike struct {
	event      *protocol.Event  // sent as the run's events are
	malformed  bool             // write a frame no client can decode
	stall      bool             // send nothing more until the run must stop
	keepAlive  bool             // while stalled, keep-alive comments if the server sends them
	disconnect bool             // drop the connection once the run is reported
	outcome    protocol.Outcome // how the run ended, unless it stalls
}

// faultHookFor returns the hook of a fault kind.
func faultHookFor(kind string) faultHook {
	switch kind {
	case scenarios.FaultStatus:
		return faultHook{answer: statusFault}
	case scenarios.FaultSlowStart:
		return faultHook{wait: slowStart}
	case scenarios.FaultSplit:
		return faultHook{write: splitWrite}
	case scenarios.FaultRunError:
		return faultHook{strike: runErrorFault}
	case scenarios.FaultDisconnect:
		return faultHook{strike: disconnectFault}
	case scenarios.FaultStall:
		return faultHook{strike: stallFault}
	case scenarios.FaultMalformed:
		return faultHook{strike: malformedFault}
	case scenarios.FaultTruncate:
		return faultHook{strike: truncateFault}
	case scenarios.FaultWrongRunID:
		return faultHook{end: wrongRunID}
	case scenarios.FaultWrongThreadID:
		return faultHook{end: wrongThreadID}
	case scenarios.FaultOtherThread:
		return faultHook{end: otherThread}
	case scenarios.FaultDuplicateInterruptID:
		return faultHook{end: duplicateInterruptID, admit: needsInterrupts}
	case scenarios.FaultExpiredInterrupt:
		return faultHook{end: expiredInterrupt, admit: needsInterrupts}
	case scenarios.FaultUnknownEvent:
		return faultHook{insert: unknownEvent}
	case scenarios.FaultBadField:
		return faultHook{insert: badField}
	}
	return faultHook{}
}

// hookOf returns the hook of the fault a request asks for: the zero hook for none.
func hookOf(f *scenarios.Fault) faultHook {
	if f == nil {
		return faultHook{}
	}
	return faultHookFor(f.Kind)
}

// statusFault answers an injected HTTP error instead of a stream.
func statusFault(c echo.Context, f scenarios.Fault) error {
	if f.RetryAfter > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
	}
	he := apiError(f.Status, "injected_fault", fmt.Sprintf("an injected %d answer (%s)", f.Status, FaultHeader))
	if f.Body == "" {
		return he
	}
	noteError(c, he) // the answer is the fault's body; the journal still says what it was
	contentType := "application/json"
	if !json.Valid([]byte(f.Body)) {
		contentType = "text/plain; charset=utf-8" // a string body that is not JSON, as given
	}
	return c.Blob(f.Status, contentType, []byte(f.Body))
}

// slowStart waits for the fault's delay before the stream begins.
func slowStart(f scenarios.Fault) time.Duration { return f.Delay }

// splitWrite writes b in pieces of 1, 2, 3 and 5 bytes in turn, each flushed, to cut
// multi-byte characters, JSON escapes and the data: prefix at every position.
func splitWrite(e *eventWriter, b []byte) error {
	splitSizes := [...]int{1, 2, 3, 5}
	for i := 0; len(b) > 0; i++ {
		n := min(splitSizes[i%len(splitSizes)], len(b))
		if err := e.writeOnce(b[:n]); err != nil {
			return err
		}
		if err := e.flush(); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// runErrorFault ends the run with RUN_ERROR.
func runErrorFault(f scenarios.Fault) faultStrike {
	msg, code := f.Message, f.Code
	if msg == "" {
		msg = "an injected error"
	}
	if code == "" {
		code = "injected_fault"
	}
	ev := protocol.NewEvent(protocol.RunError, "message", msg, "code", code)
	return faultStrike{event: &ev, outcome: protocol.OutcomeError}
}

// disconnectFault drops the connection once the run is reported.
func disconnectFault(scenarios.Fault) faultStrike {
	return faultStrike{disconnect: true, outcome: protocol.OutcomeFault}
}

// malformedFault sends a frame that no client can decode (in SSE, a data: frame that is
// not JSON), and ends the stream.
func malformedFault(scenarios.Fault) faultStrike {
	return faultStrike{malformed: true, outcome: protocol.OutcomeFault}
}

// stallFault stops sending until the run must stop, with keep-alive comments if the
// fault asks for them.
func stallFault(f scenarios.Fault) faultStrike {
	return faultStrike{stall: true, keepAlive: f.KeepAlive}
}

// truncateFault ends the stream without a terminal event.
func truncateFault(scenarios.Fault) faultStrike {
	return faultStrike{outcome: protocol.OutcomeFault}
}
