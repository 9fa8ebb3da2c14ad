package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"
)

// The entries one answer of GET /_mock/journal lists: by default, and at most.
//
// The default is --journal-size's default, so that a journal of the default size is
// one page, as the whole journal was one answer before there were pages: a caller that
// knows nothing of pages still gets every entry of such a journal. The most bounds one
// answer: the journal's lock is held while the page's entries are copied out, and each
// entry carries its request body, up to 64 KiB, so that a page of 10,000 is 20 MB of
// typical run inputs (640 MB at worst) and 13 to 40 ms of the server's CPU
// (BenchmarkJournalPage). A journal of 100,000 entries in one answer took 9.6 s.
const (
	defaultJournalPage = 1000
	maxJournalPage     = 10000
)

// listJournal answers GET /_mock/journal: a page of the journal's entries, oldest
// first, that pass the filters (route, thread, scenario, and testId, which defaults to
// the caller's X-Test-Id), numbered after ?after= (0: from the oldest) and at most
// ?limit= of them. When more follow, the answer's next is the after of the next page:
// {"entries": […], "next": seq}. Numbers are never reused, so a page follows its
// predecessor whatever was added or forgotten between the two.
func (s *Server) listJournal(c echo.Context) error {
	q := c.QueryParams()
	after, err := journalParam(q, "after", 0, 0, math.MaxInt64, "the seq of the last entry read, 0 or more")
	if err != nil {
		return err
	}
	limit, err := journalParam(q, "limit", defaultJournalPage, 1, maxJournalPage, fmt.Sprintf("a number of entries from 1 to %d", maxJournalPage))
	if err != nil {
		return err
	}
	f := JournalFilter{TestID: q.Get("testId"), Path: q.Get("route"), ThreadID: q.Get("thread"), Scenario: q.Get("scenario")}
	if f.TestID == "" {
		f.TestID = c.Request().Header.Get(TestIDHeader)
	}
	page, more := s.tests.Journal.Page(f.TestID, f.matches, after, int(limit))
	return writeJournalPage(c.Response(), page, more)
}

// journalParam reads an integer query parameter of GET /_mock/journal: def when it is
// absent, or an invalid_input error naming it when it is not a whole number from least
// to most.
func journalParam(q url.Values, name string, def, least, most int64, what string) (int64, error) {
	if !q.Has(name) {
		return def, nil
	}
	v := q.Get(name)
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < least || n > most {
		return 0, &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Field: name,
			Message: name + " must be " + what + ", got " + strconv.Quote(v)}}
	}
	return n, nil
}

// writeJournalPage writes a page of the journal, {"entries": […], "next": seq} with
// next only when more entries follow the page, one entry at a time: a page's JSON is
// never held whole, however large the request bodies its entries keep.
func writeJournalPage(r *echo.Response, page []JournalEntry, more bool) error {
	r.Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	r.WriteHeader(http.StatusOK)
	w := bufio.NewWriterSize(r, 32<<10)
	w.WriteString(`{"entries":[`)
	var entry []byte
	for i := range page {
		if i > 0 {
			w.WriteByte(',')
		}
		var err error
		if entry, err = appendEntry(entry[:0], &page[i]); err != nil {
			return fmt.Errorf("journal entry %d: %w", page[i].Seq, err)
		}
		if _, err := w.Write(entry); err != nil {
			return fmt.Errorf("writing the journal: %w", err) // the caller went away
		}
	}
	w.WriteByte(']')
	if more {
		w.WriteString(`,"next":` + strconv.FormatInt(page[len(page)-1].Seq, 10))
	}
	w.WriteString("}\n")
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing the journal: %w", err)
	}
	return nil
}

// appendEntry appends a journal entry's JSON to dst. A request body kept as JSON goes
// out as it was sent: closeEntry kept it as JSON only when the handler had decoded it
// or json.Valid passed it, and encoding/json would check and compact it once more, at
// about 200 MB/s, most of what a page of large bodies costs. It differs from
// encoding/json's form only in what JSON does not mind: the spaces the body was sent
// with, and <, > and & unescaped.
func appendEntry(dst []byte, e *JournalEntry) ([]byte, error) {
	raw, isJSON := e.Request.(json.RawMessage)
	without := *e
	if isJSON {
		without.Request = nil
	}
	b, err := json.Marshal(&without)
	if err != nil {
		return dst, err
	}
	if !isJSON {
		return append(dst, b...), nil
	}
	dst = append(dst, b[:len(b)-1]...) // without its closing brace: seq and the rest are never omitted
	dst = append(dst, `,"request":`...)
	dst = append(dst, raw...)
	return append(dst, '}'), nil
}
