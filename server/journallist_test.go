package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// journalPage is an answer of GET /_mock/journal.
type journalPage struct {
	Entries []JournalEntry
	Next    *int64
}

// listPage answers GET /_mock/journal with query, as the test testID.
func listPage(t *testing.T, s *Server, query, testID string) journalPage {
	t.Helper()
	header := map[string]string{}
	if testID != "" {
		header[TestIDHeader] = testID
	}
	status, body := call(t, s, http.MethodGet, AdminPrefix+"/journal?"+query, "", header)
	var page journalPage
	if err := json.Unmarshal([]byte(body), &page); err != nil || status != http.StatusOK {
		t.Fatalf("GET /_mock/journal?%s: %d %s %v", query, status, body, err)
	}
	return page
}

// missRequests sends the requests numbered from to to-1 to no endpoint, each
// journaled with its 404 under its path /nowhere/N, as the tests of tests in turn (each
// its X-Test-Id; "" for none).
func missRequests(t *testing.T, s *Server, from, to int, tests ...string) {
	t.Helper()
	if len(tests) == 0 {
		tests = []string{""}
	}
	for i := from; i < to; i++ {
		header := map[string]string{}
		if id := tests[i%len(tests)]; id != "" {
			header[TestIDHeader] = id
		}
		if status, _ := call(t, s, http.MethodPost, "/nowhere/"+strconv.Itoa(i), "{}", header); status != http.StatusNotFound {
			t.Fatalf("request %d: %d", i, status)
		}
	}
}

// allPages follows the pages of GET /_mock/journal with query from its first, as a
// client does, and returns the numbers N of the entries' paths /nowhere/N, joined by
// commas, and how many pages there were.
func allPages(t *testing.T, s *Server, query, testID string) (numbers string, pages int) {
	t.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		page := listPage(t, s, q.Encode(), testID)
		pages++
		for _, e := range page.Entries {
			got = append(got, strings.TrimPrefix(e.Path, "/nowhere/"))
		}
		if page.Next == nil {
			return strings.Join(got, ","), pages
		}
		if len(page.Entries) == 0 || *page.Next != page.Entries[len(page.Entries)-1].Seq {
			t.Fatalf("next %d is not the seq of the page's last entry: %+v", *page.Next, page.Entries)
		}
		q.Set("after", strconv.FormatInt(*page.Next, 10))
		if pages > 100 {
			t.Fatal("no end of pages")
		}
	}
}

// numbers joins the numbers from to to-1 that keep accepts, with commas.
func numbers(from, to int, keep func(int) bool) string {
	var all []string
	for i := from; i < to; i++ {
		if keep(i) {
			all = append(all, strconv.Itoa(i))
		}
	}
	return strings.Join(all, ",")
}

func every(int) bool { return true }

// TestTheJournalIsOnePageUpToAThousandEntries: a journal of the default page's size
// (--journal-size's default) is one answer without next, as before pages; one more entry
// and the answer says where the next page starts.
func TestTheJournalIsOnePageUpToAThousandEntries(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.JournalSize = 2500 })
	missRequests(t, s, 0, defaultJournalPage)
	if page := listPage(t, s, "", ""); len(page.Entries) != defaultJournalPage || page.Next != nil {
		t.Errorf("a journal of the default page's size: %d entries, next %v; want them all, no next", len(page.Entries), page.Next)
	}
	missRequests(t, s, defaultJournalPage, defaultJournalPage+1)
	page := listPage(t, s, "", "")
	if len(page.Entries) != defaultJournalPage || page.Next == nil || *page.Next != defaultJournalPage {
		t.Fatalf("%d entries, next %v; want %d and next %d", len(page.Entries), page.Next, defaultJournalPage, defaultJournalPage)
	}
	if got, pages := allPages(t, s, "", ""); got != numbers(0, defaultJournalPage+1, every) || pages != 2 {
		t.Errorf("%d pages: %s", pages, got)
	}
	if page := listPage(t, s, "limit="+strconv.Itoa(maxJournalPage), ""); len(page.Entries) != defaultJournalPage+1 || page.Next != nil {
		t.Errorf("limit %d: %d entries, next %v", maxJournalPage, len(page.Entries), page.Next)
	}
}

// TestTheJournalsPagesFollowTheFilters: following next through the pages of a filtered
// journal lists what the filters select, each entry once, in order, while the ring
// forgets its oldest entries and requests come between pages.
func TestTheJournalsPagesFollowTheFilters(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.JournalSize = 40 })
	missRequests(t, s, 0, 50, "a", "b", "") // the ring keeps 10 to 49
	for _, c := range []struct {
		query, testID, want string
	}{
		{"limit=7", "", numbers(10, 50, every)},
		{"limit=3", "a", numbers(10, 50, func(i int) bool { return i%3 == 0 })},
		{"limit=3&testId=b", "a", numbers(10, 50, func(i int) bool { return i%3 == 1 })},
		{"limit=1&route=/nowhere/12", "", "12"},
		{"limit=2&after=40", "", numbers(40, 50, every)},
		{"limit=2&after=5", "b", numbers(10, 50, func(i int) bool { return i%3 == 1 })}, // from the oldest kept
		{"after=50", "", ""},
	} {
		if got, _ := allPages(t, s, c.query, c.testID); got != c.want {
			t.Errorf("%s as %q: %s, want %s", c.query, c.testID, got, c.want)
		}
	}

	first := listPage(t, s, "limit=5", "")
	missRequests(t, s, 50, 55) // the ring forgets 10 to 14, which the first page listed
	rest, _ := allPages(t, s, "limit=5&after="+strconv.FormatInt(*first.Next, 10), "")
	if rest != numbers(15, 55, every) {
		t.Errorf("the pages after the first, while requests came: %s", rest)
	}
}

func TestTheJournalRefusesBadPageParameters(t *testing.T) {
	s := newServer(t, "", nil)
	for _, c := range []struct{ query, field, value string }{
		{"after=-1", "after", "-1"},
		{"after=seven", "after", "seven"},
		{"after=", "after", ""},
		{"after=1.5", "after", "1.5"},
		{"after=99999999999999999999", "after", "99999999999999999999"},
		{"limit=0", "limit", "0"},
		{"limit=-3", "limit", "-3"},
		{"limit=ten", "limit", "ten"},
		{"limit=", "limit", ""},
		{"limit=" + strconv.Itoa(maxJournalPage+1), "limit", strconv.Itoa(maxJournalPage + 1)},
	} {
		status, body := call(t, s, http.MethodGet, AdminPrefix+"/journal?"+c.query, "", nil)
		var answer struct{ Error, Message, Field string }
		if err := json.Unmarshal([]byte(body), &answer); err != nil || status != http.StatusBadRequest {
			t.Errorf("?%s: %d %s", c.query, status, body)
			continue
		}
		if answer.Error != "invalid_input" || answer.Field != c.field || !strings.HasPrefix(answer.Message, c.field+" must be ") ||
			!strings.HasSuffix(answer.Message, ", got "+strconv.Quote(c.value)) {
			t.Errorf("?%s: %+v", c.query, answer)
		}
	}
	_, body := call(t, s, http.MethodGet, AdminPrefix+"/journal?limit=0", "", nil)
	if want := fmt.Sprintf("limit must be a number of entries from 1 to %d", maxJournalPage); !strings.Contains(body, want) {
		t.Errorf("the limit's message: %s", body)
	}
}

// BenchmarkJournalPage answers a page of GET /_mock/journal from the middle of a
// journal of 100,000 runs, each with a body of 2 KiB (a run input of a few messages) or
// 64 KiB (the most an entry keeps): what a page costs does not grow with the journal.
func BenchmarkJournalPage(b *testing.B) {
	const size = 100_000
	for _, bodyBytes := range []int{2 << 10, maxJournaledBody} {
		s := newServer(b, "", func(c *Config) { c.JournalSize = size })
		body, _ := json.Marshal(map[string]any{"threadId": "t", "runId": "r",
			"messages": []any{map[string]any{"id": "u", "role": "user", "content": strings.Repeat("x", bodyBytes-100)}}})
		for i := range size {
			s.tests.Journal.Add("", JournalEntry{Method: http.MethodPost, Path: "/agui/chat", ThreadID: "t" + strconv.Itoa(i), RunID: "r",
				Scenario: "showcase", Status: http.StatusOK, Outcome: "success", Events: 40, Request: json.RawMessage(body)})
		}
		for _, limit := range []int{defaultJournalPage, maxJournalPage} {
			b.Run(fmt.Sprintf("body=%dB/limit=%d", len(body), limit), func(b *testing.B) {
				path := fmt.Sprintf("%s/journal?after=%d&limit=%d", AdminPrefix, size/2, limit)
				for b.Loop() {
					s.Handler().ServeHTTP(discardStream{http.Header{}}, httptest.NewRequest(http.MethodGet, path, nil))
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(limit), "µs/entry")
			})
		}
	}
}

// TestAJournalEntryKeepsItsBodyAsTheJSONItWas: a body kept as JSON is written as sent,
// spaces and all, and reads back as the value the frontend sent, within an entry whose
// other members are intact.
func TestAJournalEntryKeepsItsBodyAsTheJSONItWas(t *testing.T) {
	s := newServer(t, journalScenarios, func(c *Config) { c.Speed = 0 })
	sent := "{ \"threadId\": \"t <b>&amp;</b>\",\n  \"messages\": [{\"role\": \"user\", \"content\": \"echo \\u003c\\\"quoted\\\" \\\\ \\u2028\"}] }"
	if rec := post(t.Context(), s, "/agui/chat", sent, map[string]string{TestIDHeader: "spliced"}); rec.status != http.StatusOK {
		t.Fatalf("%d %s", rec.status, rec.body())
	}
	status, body := call(t, s, http.MethodGet, AdminPrefix+"/journal", "", map[string]string{TestIDHeader: "spliced"})
	if status != http.StatusOK || !json.Valid([]byte(body)) {
		t.Fatalf("%d %s", status, body)
	}
	var page struct{ Entries []map[string]any }
	if err := json.Unmarshal([]byte(body), &page); err != nil || len(page.Entries) != 1 {
		t.Fatal(body, err)
	}
	var want any
	if err := json.Unmarshal([]byte(sent), &want); err != nil {
		t.Fatal(err)
	}
	e := page.Entries[0]
	got, _ := json.Marshal(e["request"])
	if wantJSON, _ := json.Marshal(want); string(got) != string(wantJSON) {
		t.Errorf("request %s, want %s", got, wantJSON)
	}
	if e["threadId"] != "t <b>&amp;</b>" || e["scenario"] != "echo" || e["status"] != float64(200) || e["testId"] != "spliced" || e["seq"] != float64(1) {
		t.Errorf("entry %v", e)
	}
}
