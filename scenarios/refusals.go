package scenarios

import (
	"context"
	"crypto/sha256"
	"slices"
	"sync"
)

// Refusals remembers the scenario files that loads refused, by their content, so that a
// later load refuses a file unchanged since with the same problems without parsing it
// again: a server reloads every file of a directory when any of them is saved, and
// parsing a file near MaxFileBytes can take a second and a few hundred MiB.
//
// What is remembered is what reading a file found (its YAML, its keys and values, a
// run past MaxRunEvents by the count of its steps), not what the dry runs of a set
// find, nor the problems of a load that stopped. A load forgets the files it no longer
// reads and those whose content changed. At most a bounded number of files, each with
// a bounded number of problems, are remembered; past that the oldest is forgotten.
//
// A Refusals is safe for concurrent use, but is meant for one series of loads at a
// time, over the same sources, as a server's reloads are: each load forgets the files
// the one before it read and it did not.
type Refusals struct {
	mu    sync.Mutex
	max   int
	files map[string]refusal // by the file's name as the load shows it
	load  uint64             // the load under way, counted from 1
	added uint64             // how many refusals were ever remembered, to forget the oldest
	// parse is ParseContext; tests count its calls.
	parse func(ctx context.Context, file string, data []byte) ([]*Scenario, []Diagnostic)
}

// refusal is what one refused file was refused for.
type refusal struct {
	sum   [sha256.Size]byte // of the file's content
	diags []Diagnostic
	load  uint64 // the latest load that read the file
	added uint64 // when it was remembered
}

// maxRefusalProblems is the most problems of one file that Refusals remembers; a file
// with more is parsed again each time.
const maxRefusalProblems = 1000

// NewRefusals returns a memory of at most limit refused files (at least one).
func NewRefusals(limit int) *Refusals {
	return &Refusals{max: max(limit, 1), files: map[string]refusal{}, parse: ParseContext}
}

// startLoad begins a load that reads files through r.
func (r *Refusals) startLoad() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.load++
}

// endLoad forgets the files that the load just ended did not read: removed, or no
// longer readable.
func (r *Refusals) endLoad() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, f := range r.files {
		if f.load != r.load {
			delete(r.files, name)
		}
	}
}

// parseFile parses a file's data, or, when r remembers that the file was refused with
// this very content, returns the problems it was refused for. It remembers the refusal
// of a file parsed with problems, unless ctx is done (the problems may only say that
// the parse stopped); a file parsed without problems is forgotten. A nil r parses.
func (r *Refusals) parseFile(ctx context.Context, name string, data []byte) ([]*Scenario, []Diagnostic) {
	if r == nil {
		return ParseContext(ctx, name, data)
	}
	sum := sha256.Sum256(data)
	r.mu.Lock()
	f, ok := r.files[name]
	if ok && f.sum == sum {
		f.load = r.load
		r.files[name] = f
		r.mu.Unlock()
		return nil, f.diags
	}
	load := r.load
	r.mu.Unlock()

	list, diags := r.parse(ctx, name, data)

	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.files, name)
	if len(diags) == 0 || len(diags) > maxRefusalProblems || ctx.Err() != nil {
		return list, diags
	}
	if len(r.files) >= r.max {
		r.forgetOldest()
	}
	r.added++
	r.files[name] = refusal{sum: sum, diags: slices.Clip(diags), load: load, added: r.added}
	return list, diags
}

// forgetOldest forgets the refusal remembered first; the caller holds r.mu.
func (r *Refusals) forgetOldest() {
	oldest, at := "", uint64(0)
	for name, f := range r.files {
		if oldest == "" || f.added < at {
			oldest, at = name, f.added
		}
	}
	delete(r.files, oldest)
}
