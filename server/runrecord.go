package server

import (
	"container/list"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unsafe"

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
	// bytes is what its events take (protocol.Event.Footprint); past maxBytes (0: no
	// bound) later events are not kept, and clipped counts them.
	bytes, maxBytes int64
	clipped         int
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

// runRecords keeps the records of the latest runs by the journal number of their
// entry, within a count (0: none) and a byte budget: past either, the least recently
// used record is evicted (reading a run counts as using it). It remembers why the
// records of recent runs are gone, for the journal to say.
type runRecords struct {
	mu       sync.Mutex
	limit    int
	maxBytes int64 // 0: no byte budget
	bytes    int64
	bySeq    map[int64]*list.Element // of lru, holding a *keptRecord
	lru      *list.List              // least recently used first
	// gone says why the records of runs no longer kept went, for as many runs as the
	// journal lists; goneOrder is their numbers, oldest first.
	gone      map[int64]string
	goneOrder []int64
	remember  int
	// why records go past the count and past the byte budget: said once, for every
	// record that goes
	pastLimit, pastBytes string
}

// keptRecord is a run's record in the list, under its entry's number.
type keptRecord struct {
	seq int64
	rec *runRecord
}

// DefaultJournalMaxBytes is the default of Config.JournalMaxBytes: 32 MiB, the events of
// 200 ordinary runs many times over, within what a 512 MiB container can keep for good
// (threads.DefaultMaxBytes).
const DefaultJournalMaxBytes = 32 << 20

// newRunRecords keeps the records of up to limit runs within maxBytes, and why those of
// the last remember runs went.
func newRunRecords(limit int, maxBytes int64, remember int) *runRecords {
	r := &runRecords{limit: max(limit, 0), maxBytes: max(maxBytes, 0), bySeq: map[int64]*list.Element{}, lru: list.New(),
		gone: map[int64]string{}, remember: max(remember, 1)}
	r.pastLimit = fmt.Sprintf("the journal keeps the events of the latest %d runs (--journal-events)", r.limit)
	r.pastBytes = fmt.Sprintf("the journal's run records keep at most %d bytes together (--journal-max-bytes), and runs played or viewed since took their place", r.maxBytes)
	return r
}

// recordShare is the part of the byte budget one run's record may take, so that one
// run never evicts the records of all others: a run's later events are not kept past it.
const recordShare = 4

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
	rec := &runRecord{scenario: sc, headers: headers, agent: req.Agent, events: make([]recordedEvent, 0, events)}
	if r.maxBytes > 0 {
		rec.maxBytes = r.maxBytes / recordShare
	}
	return rec
}

// put keeps a run's record under its entry's number, evicting the least recently used
// past the limits; a nil record is not kept.
func (r *runRecords) put(seq int64, rec *runRecord) {
	if rec == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bySeq[seq] = r.lru.PushBack(&keptRecord{seq: seq, rec: rec})
	r.bytes += rec.bytes
	for r.lru.Len() > r.limit {
		r.evict(r.pastLimit)
	}
	for r.maxBytes > 0 && r.bytes > r.maxBytes {
		r.evict(r.pastBytes)
	}
}

// evict forgets the least recently used record, and says why. The caller holds r.mu.
func (r *runRecords) evict(why string) {
	oldest := r.lru.Remove(r.lru.Front()).(*keptRecord)
	delete(r.bySeq, oldest.seq)
	r.bytes -= oldest.rec.bytes
	r.gone[oldest.seq] = why
	r.goneOrder = append(r.goneOrder, oldest.seq)
	if len(r.goneOrder) > r.remember {
		delete(r.gone, r.goneOrder[0])
		r.goneOrder = r.goneOrder[1:]
	}
}

// get returns a run's record, nil when none is kept, and then why it went ("" when it
// was never kept).
func (r *runRecords) get(seq int64) (*runRecord, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.bySeq[seq]; ok {
		r.lru.MoveToBack(e)
		return e.Value.(*keptRecord).rec, ""
	}
	return nil, r.gone[seq]
}

// event records an event written at now; past the record's share of the byte budget it
// is counted, not kept.
func (rec *runRecord) event(ev protocol.Event, now time.Time) {
	if rec == nil {
		return
	}
	size := ev.Footprint() + recordedEventSize
	if rec.maxBytes > 0 && (rec.clipped > 0 || rec.bytes+size > rec.maxBytes) {
		rec.clipped++
		return
	}
	rec.bytes += size
	rec.events = append(rec.events, recordedEvent{At: now.Sub(rec.started), Event: ev})
}

// recordedEventSize is what a recordedEvent takes besides its event's values.
const recordedEventSize = int64(unsafe.Sizeof(recordedEvent{}))

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
	Kept bool `json:"kept"`
	// Gone says why the run's events are no longer kept, when they were; Clipped, why
	// the record keeps only its run's first events.
	Gone    string    `json:"gone,omitempty"`
	Clipped string    `json:"clipped,omitempty"`
	Events  []eventAt `json:"events"`
	Pauses  []pauseAt `json:"pauses"`
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
	entry, found := s.tests.Journal.Get(seq)
	if !found {
		return apiError(http.StatusNotFound, "unknown_entry", "the journal has no entry "+strconv.FormatInt(seq, 10)+": it was reset, or more requests came since (-journal-size)")
	}
	d := runDetail{Entry: entry, Events: []eventAt{}, Pauses: []pauseAt{}, Interrupts: []map[string]any{}}
	rec, gone := s.runs.get(seq)
	d.Gone = gone
	if rec != nil {
		d.Kept, d.Fault, d.Source = true, rec.fault, rec.scenario.Source.String()
		if rec.clipped > 0 {
			d.Clipped = fmt.Sprintf("the record keeps the first %d of the run's %d events: one run's record keeps at most %d bytes, a quarter of --journal-max-bytes",
				len(rec.events), len(rec.events)+rec.clipped, rec.maxBytes)
		}
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
