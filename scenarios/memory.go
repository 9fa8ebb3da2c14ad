package scenarios

import (
	"context"
	"crypto/sha256"
	"io/fs"
	"sync"
	"time"

	"github.com/agui-mock/agui-mock/internal/filestamp"
)

// Memory is what a series of loads over the same sources keeps from one load to the
// next, so that a reload after an edit costs about what the edit changed rather than
// what the whole suite costs: a team's recorded suite holds thousands of files, and a
// saved edit must be served in milliseconds.
//
//   - A file whose stamp says it has not changed since it was read (see filestamp) is
//     not read again; one read again with the same content is not parsed again. Either
//     way the load gets the very scenarios the file gave before.
//   - A scenario of the last good set is not dry-run again (its dry runs depend on
//     itself and the limits alone), and its examples are checked again only when their
//     outcome can have changed: when a scenario new to the set matches one, or the
//     scenario one selected left the set.
//   - The files loads refused are remembered as Refusals says.
//
// A Memory is meant for one series of loads at a time, as a server's reloads are; the
// loads must not overlap.
type Memory struct {
	refused *Refusals
	mu      sync.Mutex
	files   map[string]parsedFile // the files read without problems, by the name a load shows
	load    uint64                // the load under way, counted from 1
	last    *Set                  // the set the last successful load built
	now     func() time.Time      // the clock a read is stamped with; tests move it
}

// parsedFile is what reading a file without problems gave.
type parsedFile struct {
	read      filestamp.Read
	sum       [sha256.Size]byte
	scenarios []*Scenario
	load      uint64 // the latest load that read the file
}

// DefaultRefusals is how many refused files a server's memory keeps.
const DefaultRefusals = 64

// NewMemory returns a memory that keeps every file read without problems and at most
// refusedFiles of the files refused (see NewRefusals).
func NewMemory(refusedFiles int) *Memory {
	return &Memory{refused: NewRefusals(refusedFiles), files: map[string]parsedFile{}, now: time.Now}
}

// startLoad begins a load that reads through m.
func (m *Memory) startLoad() {
	if m == nil {
		return
	}
	m.refused.startLoad()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.load++
}

// endLoad forgets the files the load just ended did not read.
func (m *Memory) endLoad() {
	if m == nil {
		return
	}
	m.refused.endLoad()
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, f := range m.files {
		if f.load != m.load {
			delete(m.files, name)
		}
	}
}

// readFile reads and parses one scenario file, or recalls what it gave when it has not
// changed since. A nil m reads and parses.
func (m *Memory) readFile(ctx context.Context, fsys fs.FS, file, name string) ([]*Scenario, []Diagnostic) {
	if m == nil {
		data, err := ReadFile(fsys, file)
		if err != nil {
			return nil, []Diagnostic{{File: name, Message: err.Error()}}
		}
		return ParseContext(ctx, name, data)
	}
	statAt := m.now() // before the stat: a write after it must not pass for one before the read
	info, err := fs.Stat(fsys, file)
	if err != nil {
		return nil, []Diagnostic{{File: name, Message: err.Error()}}
	}
	stamp := filestamp.Of(info)
	m.mu.Lock()
	known, ok := m.files[name]
	if ok && known.read.Unchanged(stamp) {
		known.load = m.load
		m.files[name] = known
		m.mu.Unlock()
		return known.scenarios, nil
	}
	m.mu.Unlock()

	data, err := ReadFile(fsys, file)
	if err != nil {
		return nil, []Diagnostic{{File: name, Message: err.Error()}}
	}
	sum := sha256.Sum256(data)
	list, diags := known.scenarios, []Diagnostic(nil)
	if !ok || known.sum != sum {
		list, diags = m.refused.parseFile(ctx, name, data)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.files, name)
	if len(diags) == 0 && ctx.Err() == nil {
		m.files[name] = parsedFile{read: filestamp.Read{Stamp: stamp, At: statAt}, sum: sum, scenarios: list, load: m.load}
	}
	return list, diags
}

// lastSet is the set the last successful load built, or nil.
func (m *Memory) lastSet() *Set {
	if m == nil {
		return nil
	}
	return m.last
}

// remember keeps the set a load built, for the next load to reuse.
func (m *Memory) remember(set *Set) {
	if m != nil {
		m.last = set
	}
}
