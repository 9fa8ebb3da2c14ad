package server

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// Every kind of the table has a hook, and uses the points of a run its scope allows:
// a request kind answers instead of a stream or waits before it, a stream kind writes
// the stream, a step kind strikes at an event.
func TestEveryFaultKindHasAHookThatFitsItsScope(t *testing.T) {
	for _, k := range scenarios.FaultKindTable() {
		h := faultHookFor(k.Name)
		points := map[string]bool{"answer": h.answer != nil, "wait": h.wait != nil, "write": h.write != nil, "strike": h.strike != nil,
			"insert": h.insert != nil, "end": h.end != nil, "admit": h.admit != nil}
		allowed := map[scenarios.FaultScope][]string{
			scenarios.FaultScopeRequest: {"answer", "wait"},
			scenarios.FaultScopeStream:  {"write"},
			scenarios.FaultScopeStep:    {"strike"},
			scenarios.FaultScopeEvent:   {"insert"},
			scenarios.FaultScopeEnd:     {"end", "admit"},
		}[k.Scope]
		used := 0
		for point, set := range points {
			if !set {
				continue
			}
			used++
			if !slices.Contains(allowed, point) {
				t.Errorf("%s: its hook uses %s, which its scope does not allow", k.Name, point)
			}
		}
		if used == 0 {
			t.Errorf("%s: no hook", k.Name)
		}
	}
	if h := hookOf(nil); h.answer != nil || h.wait != nil || h.write != nil || h.strike != nil || h.insert != nil || h.end != nil || h.admit != nil {
		t.Error("a request without a fault has a hook")
	}
}

// What each step kind does where it strikes, as the player is to carry it out.
func TestEachStepFaultSaysWhatThePlayerDoes(t *testing.T) {
	for _, tt := range []struct {
		fault scenarios.Fault
		want  string // the strike, in short
	}{
		{scenarios.Fault{Kind: scenarios.FaultRunError}, "event RUN_ERROR an injected error injected_fault; outcome error"},
		{scenarios.Fault{Kind: scenarios.FaultRunError, Message: "m", Code: "c"}, "event RUN_ERROR m c; outcome error"},
		{scenarios.Fault{Kind: scenarios.FaultDisconnect}, "disconnect; outcome fault"},
		{scenarios.Fault{Kind: scenarios.FaultStall}, "stall; outcome "},
		{scenarios.Fault{Kind: scenarios.FaultStall, KeepAlive: true}, "stall with keep-alives; outcome "},
		{scenarios.Fault{Kind: scenarios.FaultMalformed}, "malformed frame; outcome fault"},
		{scenarios.Fault{Kind: scenarios.FaultTruncate}, "outcome fault"},
	} {
		s := faultHookFor(tt.fault.Kind).strike(tt.fault)
		var got []string
		if s.event != nil {
			got = append(got, "event "+s.event.Type+" "+s.event.Str("message")+" "+s.event.Str("code"))
		}
		if s.malformed {
			got = append(got, "malformed frame")
		}
		if s.disconnect {
			got = append(got, "disconnect")
		}
		switch {
		case s.stall && s.keepAlive:
			got = append(got, "stall with keep-alives")
		case s.stall:
			got = append(got, "stall")
		case s.keepAlive:
			got = append(got, "keep-alives without a stall")
		}
		if got := strings.Join(append(got, "outcome "+string(s.outcome)), "; "); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.fault, got, tt.want)
		}
	}
}

// A scenario that asks for a request-only fault is told the server's header for it.
func TestAScenarioIsToldTheFaultHeader(t *testing.T) {
	err := scenarios.Fault{Kind: scenarios.FaultSplit}.Check(true)
	if err == nil || !strings.Contains(err.Error(), "use the "+FaultHeader+" header") {
		t.Errorf("got %v, want the %s header named", err, FaultHeader)
	}
}

// The split fault writes pieces of 1, 2, 3 and 5 bytes in turn, each flushed.
func TestSplitWritesPiecesInTurn(t *testing.T) {
	rec := &piecesRecorder{ResponseRecorder: httptest.NewRecorder()}
	w := &eventWriter{}
	w.reset(rec, protocol.SSEEncoder{}, time.Second, false, faultHookFor(scenarios.FaultSplit).write)
	if err := w.write([]byte("data: é\n\n")); err != nil { // 10 bytes: 1+2+3+4
		t.Fatal(err)
	}
	if got, want := strings.Join(rec.pieces, "|"), "d|at|a: |\xc3\xa9\n\n"; got != want {
		t.Errorf("pieces %q, want %q", got, want)
	}
	if rec.flushes != 4 {
		t.Errorf("%d flushes, want 4", rec.flushes)
	}
}

// piecesRecorder records each write, and counts flushes.
type piecesRecorder struct {
	*httptest.ResponseRecorder
	pieces  []string
	flushes int
}

func (r *piecesRecorder) Write(b []byte) (int, error) {
	r.pieces = append(r.pieces, string(b))
	return r.ResponseRecorder.Write(b)
}

func (r *piecesRecorder) Flush() {
	r.flushes++
	r.ResponseRecorder.Flush()
}
