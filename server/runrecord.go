package server

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// selection says how a run's scenario was chosen.
type selection string

const (
	selectedByMatch  selection = "matched"   // the first scenario whose match criteria hold
	selectedByForce  selection = "forced"    // forced by the admin API or X-Agui-Mock-Scenario
	selectedByResume selection = "continued" // the thread's paused conversation continued
)

// runRecord is what the inspector shows of a run besides its journal entry: the events
// as the client got them with their offsets, the pauses at breakpoints, the fault that
// struck, and the request as its scenario was selected with, to explain the match.
type runRecord struct {
	started  time.Time // when the first event could be written
	events   []recordedEvent
	pauses   []recordedPause
	fault    string
	scenario *scenarios.Scenario
	// headers is the check of the header criteria of the scenario's match, made as the
	// run started: the request's headers are not kept, so that a credential they carry is
	// kept nowhere and an open stream holds no more than it did. Nil when the match names
	// no header.
	headers *scenarios.CriterionCheck
	agent   string // of a run of the CopilotKit runtime's routes, which its match may name
}

// recordedEvent is an event of a run and when it was written, from the run's start.
type recordedEvent struct {
	At    time.Duration
	Event protocol.Event
}

// recordedPause is a wait of a run at a breakpoint.
type recordedPause struct {
	At, For    time.Duration
	Breakpoint string
}

// runRecords keeps the records of the latest runs, up to a limit (0: none), by the
// journal number of their entry.
type runRecords struct {
	mu    sync.Mutex
	limit int
	bySeq map[int64]*runRecord
	order []int64 // oldest first
}

func newRunRecords(limit int) *runRecords {
	return &runRecords{limit: max(limit, 0), bySeq: map[int64]*runRecord{}}
}

// newRecord starts the record of a run that plays sc for req, events long, or returns
// nil when no run is kept. waits says whether its events arrive over time.
func (r *runRecords) newRecord(sc *scenarios.Scenario, req *scenarios.Request, events int, waits bool) *runRecord {
	if r.limit == 0 {
		return nil
	}
	var headers *scenarios.CriterionCheck
	if check, ok := sc.Match.ExplainHeaders(req); ok {
		headers = &check
	}
	// A run that waits has room for its first events only: an open stream holds its
	// record, and a long run's events arrive over time. One that does not has room for
	// them all: they arrive at once, and the record is kept as it ends.
	if waits {
		events = min(events, 8)
	}
	return &runRecord{scenario: sc, headers: headers, agent: req.Agent, events: make([]recordedEvent, 0, events)}
}

// put keeps a run's record under its entry's number, forgetting the oldest past the
// limit; a nil record is not kept.
func (r *runRecords) put(seq int64, rec *runRecord) {
	if rec == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bySeq[seq] = rec
	r.order = append(r.order, seq)
	if len(r.order) > r.limit {
		delete(r.bySeq, r.order[0])
		r.order = r.order[1:]
	}
}

func (r *runRecords) get(seq int64) *runRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bySeq[seq]
}

// event records an event written at now.
func (rec *runRecord) event(ev protocol.Event, now time.Time) {
	if rec != nil {
		rec.events = append(rec.events, recordedEvent{At: now.Sub(rec.started), Event: ev})
	}
}

// pause records a wait at a breakpoint from paused until now.
func (rec *runRecord) pause(bp string, paused, now time.Time) {
	if rec != nil {
		rec.pauses = append(rec.pauses, recordedPause{At: paused.Sub(rec.started), For: now.Sub(paused), Breakpoint: bp})
	}
}

// struck records the kind of the fault that struck.
func (rec *runRecord) struck(kind string) {
	if rec != nil {
		rec.fault = kind
	}
}

// runDetail is a run as GET /_mock/journal/:seq answers it.
type runDetail struct {
	Entry JournalEntry `json:"entry"`
	// Kept says whether the run's events were kept (-journal-events): older runs, and
	// requests that played nothing, have their entry alone.
	Kept   bool      `json:"kept"`
	Events []eventAt `json:"events"`
	Pauses []pauseAt `json:"pauses"`
	// Interrupts are those the run raised, in either dialect (protocol.Awaited): on
	// its RUN_FINISHED outcome, or as on_interrupt custom events.
	Interrupts []map[string]any           `json:"interrupts"`
	Fault      string                     `json:"fault,omitempty"`
	Source     string                     `json:"source,omitempty"` // where the scenario is written
	Match      []scenarios.CriterionCheck `json:"match,omitempty"`  // the criteria of a matched scenario, checked again
}

type eventAt struct {
	AtMs  float64        `json:"atMs"`
	Event protocol.Event `json:"event"`
	// Stream is the logical stream an event's delta belongs to (protocol.StreamTracker),
	// and the member that holds the delta, so that the page joins a message's text as a
	// client does.
	Stream *streamAt `json:"stream,omitempty"`
}

type streamAt struct {
	protocol.StreamKey
	Delta string `json:"delta"`
}

type pauseAt struct {
	AtMs       float64 `json:"atMs"`
	Ms         float64 `json:"ms"`
	Breakpoint string  `json:"breakpoint"`
}

// explainMatch checks the match criteria of a run's scenario against its request, as
// the journal keeps its body; nil when the body was not kept whole.
func (s *Server) explainMatch(e JournalEntry, rec *runRecord) []scenarios.CriterionCheck {
	body, ok := e.Request.(json.RawMessage)
	if !ok {
		return nil
	}
	in, err := protocol.DecodeRunAgentInput(body, protocol.DecodeOptions{NewID: s.newID})
	if err != nil {
		return nil
	}
	checks := rec.scenario.Match.Explain(&scenarios.Request{Route: routeOf(e.Path), Agent: rec.agent, Input: in})
	for i := range checks {
		if rec.headers != nil && checks[i].Criterion == rec.headers.Criterion {
			checks[i] = *rec.headers
		}
	}
	return checks
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// getRun answers a journal entry by its number, with what the run records kept of it.
func (s *Server) getRun(c echo.Context) error {
	seq, err := strconv.ParseInt(c.Param("seq"), 10, 64)
	if err != nil || seq < 1 {
		return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Field: "seq",
			Message: "a journal entry is named by its number (seq), 1 or more, got " + strconv.Quote(c.Param("seq"))}}
	}
	found := s.tests.Journal.List("", func(e JournalEntry) bool { return e.Seq == seq })
	if len(found) == 0 {
		return apiError(http.StatusNotFound, "unknown_entry", "the journal has no entry "+strconv.FormatInt(seq, 10)+": it was reset, or more requests came since (-journal-size)")
	}
	d := runDetail{Entry: found[0], Events: []eventAt{}, Pauses: []pauseAt{}, Interrupts: []map[string]any{}}
	if rec := s.runs.get(seq); rec != nil {
		d.Kept, d.Fault, d.Source = true, rec.fault, rec.scenario.Source.String()
		var streams protocol.StreamTracker
		for _, e := range rec.events {
			at := eventAt{AtMs: ms(e.At), Event: e.Event}
			if key, s, ok := streams.Next(e.Event); ok {
				at.Stream = &streamAt{StreamKey: key, Delta: s.DeltaField}
			}
			d.Events = append(d.Events, at)
		}
		if raised, _ := protocol.Awaited(rec.events, func(e recordedEvent) protocol.Event { return e.Event }); raised != nil {
			d.Interrupts = raised
		}
		for _, p := range rec.pauses {
			d.Pauses = append(d.Pauses, pauseAt{AtMs: ms(p.At), Ms: ms(p.For), Breakpoint: p.Breakpoint})
		}
		if d.Entry.Selection != selectedByResume {
			d.Match = s.explainMatch(d.Entry, rec)
		}
	}
	return c.JSON(http.StatusOK, d)
}
