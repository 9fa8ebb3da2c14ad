package server

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// TestIDHeader scopes a request to one test: its threads, journal entries, forced
// scenarios, faults and breakpoints are its own.
const TestIDHeader = "X-Test-Id"

// JournalEntry is one request the server answered, for tests to assert what their
// frontend sent.
type JournalEntry struct {
	Seq        int64            `json:"seq"`
	RequestID  string           `json:"requestId,omitempty"` // the X-Request-Id answer header, which names the request before it ends
	Time       time.Time        `json:"time"`
	TestID     string           `json:"testId,omitempty"`
	Method     string           `json:"method"`
	Path       string           `json:"path"`
	ThreadID   string           `json:"threadId,omitempty"`
	RunID      string           `json:"runId,omitempty"`
	Scenario   string           `json:"scenario,omitempty"`
	Selection  selection        `json:"selection,omitempty"` // how the scenario was chosen
	Transport  string           `json:"transport,omitempty"` // of a run's events: sse or proto
	Status     int              `json:"status"`
	Error      string           `json:"error,omitempty"`   // an error answer's code, e.g. unauthorized
	Reason     string           `json:"reason,omitempty"`  // why: an error answer's message, or the injected fault
	Details    any              `json:"details,omitempty"` // an error answer's details, e.g. the near misses of no_scenario
	Outcome    protocol.Outcome `json:"outcome,omitempty"`
	Awaiting   int              `json:"awaiting,omitempty"` // interrupts the run left waiting for an answer (threads.RunRecord)
	Events     int              `json:"events,omitempty"`
	DurationMs int64            `json:"durationMs"`
	Request    any              `json:"request,omitempty"` // the body as JSON, or as text when it is not

	// NearMisses, when a built-in scenario answered while scenarios of the
	// developer's own are loaded, are the nearest of theirs and why each missed.
	NearMisses []scenarios.Candidate `json:"nearMisses,omitempty"`

	body       []byte     // what the handler read of the body, up to maxJournaledBody
	bodyCut    bool       // the body was longer than what body keeps
	bodyIsJSON bool       // the handler decoded the body, so it needs no second check
	record     *runRecord // what the inspector keeps of a run, moved to the server's run records when the entry is added
}

// JournalFilter selects journal entries; empty fields match anything.
type JournalFilter struct {
	TestID, Path, ThreadID, Scenario string
}

// matches reports whether an entry passes the filter, its test id aside: the journal
// keeps entries under their test id.
func (f JournalFilter) matches(e JournalEntry) bool {
	return (f.Path == "" || samePath(e.Path, f.Path)) && (f.ThreadID == "" || e.ThreadID == f.ThreadID) &&
		(f.Scenario == "" || e.Scenario == f.Scenario)
}

// samePath compares request paths as the router does, ignoring a trailing slash.
func samePath(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// maxJournaledBody bounds the request body a journal entry keeps.
const maxJournaledBody = 64 << 10

// journaledContext is the context of a journaled request: it carries the request's
// entry, which its handlers add to through note.
type journaledContext struct {
	echo.Context
	entry    JournalEntry
	detached bool // a stream that outlives its handler publishes the entry (detachEntry)
}

// journaled answers every request, and records it in the journal unless it belongs to
// the admin API or /metrics, which serve the test and its tools rather than the
// frontend under test. It runs before any route's own middleware, so no answer escapes
// it: a handler's error (authentication's 401 included) and a panic become their error
// answer here, with the status and reason the entry keeps. Handlers add what they learn
// (thread, scenario, outcome) through note.
func (s *Server) journaled(next echo.HandlerFunc) echo.HandlerFunc {
	return func(ec echo.Context) error {
		req := ec.Request()
		if isAdminPath(req.URL.Path) {
			s.answer(ec, next)
			return nil
		}
		c := &journaledContext{Context: ec, entry: JournalEntry{Time: time.Now(), TestID: req.Header.Get(TestIDHeader), Method: req.Method, Path: req.URL.Path,
			RequestID: ec.Response().Header().Get(echo.HeaderXRequestID)}}
		entry := &c.entry
		defer func() { // also when the handler drops the connection on purpose
			if !c.detached {
				s.closeEntry(entry, c.Response().Status)
			}
		}()
		s.answer(c, next)
		return nil
	}
}

// closeEntry completes a request's journal entry with its status and duration, adds it
// to the journal, keeps its run's record, and publishes it to the journal stream.
func (s *Server) closeEntry(entry *JournalEntry, status int) {
	entry.Status = status
	entry.DurationMs = time.Since(entry.Time).Milliseconds()
	if raw := entry.body; len(raw) > 0 {
		if entry.bodyIsJSON && !entry.bodyCut || json.Valid(raw) && utf8.Valid(raw) {
			entry.Request = json.RawMessage(raw) // kept as sent; decoded only if read
		} else {
			entry.Request = string(raw)
		}
		entry.body = nil
	}
	rec := entry.record
	entry.record = nil // the journal keeps entries; the run records, bounded apart, keep records
	entry.Seq = s.tests.Journal.Add(entry.TestID, *entry)
	s.runs.put(entry.Seq, rec)
	s.publishEntry(*entry)
}

// entryOf returns the request's journal entry, or nil when it is not journaled.
func entryOf(c echo.Context) *JournalEntry {
	if jc, ok := c.(*journaledContext); ok {
		return &jc.entry
	}
	return nil
}

// detachEntry hands the publication of the request's journal entry to a stream that
// goes on after its handler returns, with the status answered so far. It returns the
// entry, moved out of the request's context so that the stream does not hold the
// context (and through it the request and net/http's buffers), and the function that
// publishes it; a nil entry when the request is not journaled.
func (s *Server) detachEntry(c echo.Context) (entry *JournalEntry, publish func()) {
	jc, ok := c.(*journaledContext)
	if !ok {
		return nil, func() {}
	}
	jc.detached = true
	entry, status := new(JournalEntry), jc.Response().Status
	*entry = jc.entry
	return entry, func() { s.closeEntry(entry, status) }
}

// note adds to the request's journal entry.
func note(c echo.Context, update func(e *JournalEntry)) {
	if e := entryOf(c); e != nil {
		update(e)
	}
}

// noteError records an error answer in the request's journal entry.
func noteError(c echo.Context, he *httpError) {
	note(c, func(e *JournalEntry) { e.Error, e.Reason, e.Details = he.body.Error, he.body.Message, he.body.Details })
}
