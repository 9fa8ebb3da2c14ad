package testctl

import (
	"sort"
	"sync"
)

// Journal keeps the latest entries, up to a limit, in a ring: each under the test id of
// its request, numbered in the order they were added.
type Journal[E any] struct {
	mu      sync.Mutex
	limit   int
	number  func(e *E, seq int64) // writes an entry's number into it
	seq     int64
	entries []tagged[E] // oldest at start once full
	start   int
}

// tagged is an entry with its test id and its number, which rise from the ring's start
// to its end: a page starts where a binary search finds it.
type tagged[E any] struct {
	seq    int64
	testID string
	entry  E
}

// NewJournal returns a journal that keeps up to limit entries (at least one); number
// writes an entry's number, from 1 up, into the entry as it is added.
func NewJournal[E any](limit int, number func(e *E, seq int64)) *Journal[E] {
	return &Journal[E]{limit: max(limit, 1), number: number}
}

// Add numbers an entry of a test's request and keeps it, forgetting the oldest entry
// once the journal is full. It returns the entry's number.
func (j *Journal[E]) Add(testID string, e E) int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	i := len(j.entries)
	if i < j.limit {
		j.entries = append(j.entries, tagged[E]{})
	} else {
		i = j.start // overwrite the oldest
		j.start = (j.start + 1) % len(j.entries)
	}
	j.entries[i] = tagged[E]{seq: j.seq, testID: testID, entry: e}
	j.number(&j.entries[i].entry, j.seq) // numbered in place: a pointer to e would move it to the heap
	return j.seq
}

// List returns, oldest first, the entries of a test (every test's when testID is "")
// that keep accepts.
func (j *Journal[E]) List(testID string, keep func(E) bool) []E {
	out, _ := j.Page(testID, keep, 0, 0)
	return out
}

// Page returns, oldest first, up to limit entries (every one with limit 0) numbered
// after after, of a test (every test's when testID is ""), that keep accepts; and
// whether more such entries follow the last of them. It finds the first entry after
// after by a binary search and copies no entry past the page, so that a page costs its
// own entries, not the journal's, besides the calls of keep that find the next one.
func (j *Journal[E]) Page(testID string, keep func(E) bool, after int64, limit int) (page []E, more bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := len(j.entries)
	at := func(i int) *tagged[E] { return &j.entries[(j.start+i)%n] } // the i-th oldest
	page = []E{}
	for i := sort.Search(n, func(i int) bool { return at(i).seq > after }); i < n; i++ {
		t := at(i)
		if (testID != "" && t.testID != testID) || !keep(t.entry) {
			continue
		}
		if limit > 0 && len(page) == limit {
			return page, true
		}
		page = append(page, t.entry)
	}
	return page, false
}

// Get returns the entry numbered seq, and whether the journal still keeps it.
func (j *Journal[E]) Get(seq int64) (E, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := len(j.entries)
	i := sort.Search(n, func(i int) bool { return j.entries[(j.start+i)%n].seq >= seq })
	if i < n && j.entries[(j.start+i)%n].seq == seq {
		return j.entries[(j.start+i)%n].entry, true
	}
	var none E
	return none, false
}

// Reset forgets a test's entries (testID "" names the requests without one), or all of
// them.
func (j *Journal[E]) Reset(testID string, all bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var kept []tagged[E]
	for _, t := range j.ordered() {
		if !all && t.testID != testID {
			kept = append(kept, t)
		}
	}
	j.entries, j.start = kept, 0
}

// ordered returns the entries oldest first; the caller holds j.mu.
func (j *Journal[E]) ordered() []tagged[E] {
	return append(append([]tagged[E](nil), j.entries[j.start:]...), j.entries[:j.start]...)
}
