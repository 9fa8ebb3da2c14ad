package testctl

import (
	"fmt"
	"strings"
	"testing"
)

type entry struct {
	seq  int64
	path string
}

func paths(entries []entry) string {
	var out []string
	for _, e := range entries {
		out = append(out, e.path)
	}
	return strings.Join(out, ",")
}

func all(entry) bool { return true }

func TestTheJournalKeepsTheLatestEntries(t *testing.T) {
	j := NewJournal(3, func(e *entry, seq int64) { e.seq = seq })
	for i := range 7 {
		j.Add([]string{"a", "b"}[i%2], entry{path: fmt.Sprint(i)})
	}
	got := j.List("", all)
	if paths(got) != "4,5,6" || got[0].seq != 5 || got[2].seq != 7 {
		t.Errorf("kept %+v", got)
	}
	if got := paths(j.List("b", all)); got != "5" {
		t.Errorf("test b's entries: %s", got)
	}
	if got := paths(j.List("", func(e entry) bool { return e.path != "4" })); got != "5,6" {
		t.Errorf("filtered: %s", got)
	}
	j.Reset("a", false)
	if got := paths(j.List("", all)); got != "5" {
		t.Errorf("after resetting a: %s", got)
	}
	j.Add("", entry{path: "7"})
	if got := paths(j.List("", all)); got != "5,7" {
		t.Errorf("after adding again: %s", got)
	}
	j.Reset("", false) // the untagged entries only
	if got := paths(j.List("", all)); got != "5" {
		t.Errorf("after resetting the untagged entries: %s", got)
	}
	j.Reset("", true)
	if got := j.List("", all); len(got) != 0 {
		t.Errorf("after resetting everything: %+v", got)
	}
}

func TestTheJournalPagesByNumber(t *testing.T) {
	j := NewJournal(5, func(e *entry, seq int64) { e.seq = seq })
	for i := range 8 { // 1 to 3 are forgotten: the ring keeps 4 to 8, its start mid-slice
		j.Add([]string{"a", "b"}[i%2], entry{path: fmt.Sprint(i + 1)})
	}
	for _, c := range []struct {
		testID string
		after  int64
		limit  int
		want   string
		more   bool
	}{
		{"", 0, 0, "4,5,6,7,8", false},
		{"", 0, 2, "4,5", true},
		{"", 5, 2, "6,7", true},
		{"", 7, 2, "8", false},
		{"", 6, 2, "7,8", false}, // a full page with nothing after it
		{"", 8, 2, "", false},
		{"", 100, 2, "", false},
		{"", 2, 1, "4", true},   // a number the ring forgot starts at the oldest kept
		{"a", 0, 1, "5", true},  // test a's entries are the odd i: 1, 3, 5, 7
		{"a", 5, 1, "7", false}, // its last: nothing of a's follows, though 8 does
		{"b", 4, 5, "6,8", false},
	} {
		page, more := j.Page(c.testID, all, c.after, c.limit)
		if paths(page) != c.want || more != c.more {
			t.Errorf("test %q after %d, limit %d: %q more=%v, want %q more=%v", c.testID, c.after, c.limit, paths(page), more, c.want, c.more)
		}
	}
	if page, more := j.Page("", func(e entry) bool { return e.path != "7" }, 5, 1); paths(page) != "6" || !more {
		t.Errorf("filtered, 8 follows: %q %v", paths(page), more)
	}
	if page, more := j.Page("", func(e entry) bool { return e.path != "8" }, 6, 1); paths(page) != "7" || more {
		t.Errorf("filtered, nothing follows: %q %v", paths(page), more)
	}
	for seq := range int64(10) {
		e, ok := j.Get(seq)
		if kept := seq >= 4 && seq <= 8; ok != kept || ok && (e.seq != seq || e.path != fmt.Sprint(seq)) {
			t.Errorf("Get(%d) = %+v, %v", seq, e, ok)
		}
	}
	j.Reset("a", false) // leaves 4, 6, 8 at the slice's start
	j.Add("", entry{path: "9"})
	if page, more := j.Page("", all, 4, 2); paths(page) != "6,8" || !more {
		t.Errorf("after a reset: %q %v", paths(page), more)
	}
	if e, ok := j.Get(9); !ok || e.path != "9" {
		t.Errorf("Get(9) after a reset: %+v %v", e, ok)
	}
	if _, ok := j.Get(5); ok {
		t.Error("Get(5): an entry of the reset test")
	}
}

// TestAPageExaminesOnlyTheEntriesItCovers: a page after a number is found by a binary
// search, so that the filter sees the entries of the page and the one that says more
// follow, not the journal's.
func TestAPageExaminesOnlyTheEntriesItCovers(t *testing.T) {
	const size = 100_000
	j := NewJournal(size, func(e *entry, seq int64) { e.seq = seq })
	for range size + size/2 { // the ring has gone round: its start is mid-slice
		j.Add("", entry{})
	}
	examined := 0
	counting := func(entry) bool { examined++; return true }
	page, more := j.Page("", counting, size, 10)
	if len(page) != 10 || page[0].seq != size+1 || !more {
		t.Fatalf("page of %d from %d, more=%v", len(page), page[0].seq, more)
	}
	if examined != 11 {
		t.Errorf("the filter examined %d entries for a page of 10, want 11", examined)
	}
}
