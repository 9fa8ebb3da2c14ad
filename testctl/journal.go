package testctl

import "sync"

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

type tagged[E any] struct {
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
	j.entries[i] = tagged[E]{testID: testID, entry: e}
	j.number(&j.entries[i].entry, j.seq) // numbered in place: a pointer to e would move it to the heap
	return j.seq
}

// List returns, oldest first, the entries of a test (every test's when testID is "")
// that keep accepts.
func (j *Journal[E]) List(testID string, keep func(E) bool) []E {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := []E{}
	for _, t := range j.ordered() {
		if (testID == "" || t.testID == testID) && keep(t.entry) {
			out = append(out, t.entry)
		}
	}
	return out
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
