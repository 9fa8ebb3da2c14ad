package scenarios

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"
)

// suiteFile is a scenario file of a random suite: a scenario answering ^word-N$ with an
// example saying word-N, now and then something that breaks the set or steals examples.
func suiteFile(r *rand.Rand, n int, clean bool) string {
	id := fmt.Sprintf("s%d", n)
	pattern, example, priority := fmt.Sprintf("^word-%d$", n), fmt.Sprintf("word-%d", n), 0
	kind := r.IntN(6)
	if clean {
		kind = 5
	}
	switch kind {
	case 0: // takes the examples of word-1, word-10…
		pattern, priority = "(?i)word-1", 1
	case 1: // an example another scenario answers
		example = fmt.Sprintf("word-%d", r.IntN(n+1))
	case 2: // an id another file may have
		id = fmt.Sprintf("s%d", r.IntN(n+1))
	case 3: // a scenario of no example
		example = ""
	case 4: // a higher priority, the same match
		priority = 2
	}
	doc := fmt.Sprintf("id: %s\npriority: %d\nmatch: {message: '%s'}\nsteps: [{text: hi %d}]\n", id, priority, pattern, n)
	if example != "" {
		doc += fmt.Sprintf("examples: [{message: %s}]\n", example)
	}
	return doc
}

// TestAReloadFindsWhatAFullLoadFinds is the memory's property: after any series of
// edits, a load that reuses what the loads before it kept builds the set a load from
// nothing builds, or fails with the same problems, in the same order. -short tries 6 of
// the 16 series.
func TestAReloadFindsWhatAFullLoadFinds(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 2))
	valid, failed, rounds := 0, 0, 16
	if testing.Short() {
		rounds = 6
	}
	for round := range rounds {
		fsys := fstest.MapFS{}
		next := 0
		add := func() {
			fsys[fmt.Sprintf("d/f%03d.yaml", next)] = &fstest.MapFile{Data: []byte(suiteFile(r, next, true))}
			next++
		}
		for range 40 {
			add()
		}
		src := Source{FS: fsys, Root: "d", Label: "d"}
		// defaults, one of whose examples is taken by the other unless a file of the
		// suite answers it first
		builtin := Source{FS: fstest.MapFS{"b/fb.yaml": {Data: []byte(`id: fb-b
priority: 1
match: {message: '^word-2$'}
steps: [{text: b}]
---
id: fb-a
match: {message: '^word-(1|2)$'}
examples: [{message: word-2}]
steps: [{text: a}]
`)}}, Root: "b", Label: "builtin", Fallback: true}
		mem := NewMemory(8)
		for edit := range 30 {
			reloaded, err := LoadRemembering(context.Background(), Limits{}, mem, nil, src, builtin)
			full, fullErr := Load(src, builtin)
			if fmt.Sprint(err) != fmt.Sprint(fullErr) {
				t.Fatalf("round %d, edit %d: the reload says %v\na full load says %v", round, edit, err, fullErr)
			}
			if err == nil {
				valid++
				if got, want := scenarioIDs(reloaded.Scenarios()), scenarioIDs(full.Scenarios()); !slices.Equal(got, want) {
					t.Fatalf("round %d, edit %d: the reload's order %v, a full load's %v", round, edit, got, want)
				}
			} else {
				failed++
			}
			names := slices.Sorted(func(yield func(string) bool) {
				for name := range fsys {
					if !yield(name) {
						return
					}
				}
			})
			switch victim := names[r.IntN(len(names))]; r.IntN(4) {
			case 0:
				add()
			case 1:
				delete(fsys, victim)
			case 2: // rewrite a file as another scenario, which may break the set
				fsys[victim] = &fstest.MapFile{Data: []byte(suiteFile(r, r.IntN(next+1), false))}
			default: // or mend it
				fsys[victim] = &fstest.MapFile{Data: []byte(suiteFile(r, next+r.IntN(1000), true))}
			}
		}
	}
	if valid < 40*rounds/16 || failed < 60*rounds/16 {
		t.Errorf("%d valid and %d refused loads: the property says too little of one of them", valid, failed)
	}
}

func scenarioIDs(list []*Scenario) []string {
	out := make([]string, len(list))
	for i, sc := range list {
		out[i] = sc.ID
	}
	return out
}

// openCounter is a file system that counts the files opened to be read.
type openCounter struct {
	fs.FS
	mu     sync.Mutex
	opened map[string]int
}

func (c *openCounter) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opened[name]++
	c.mu.Unlock()
	return c.FS.Open(name)
}

// Stat and ReadDir are not counted: they read no file.
func (c *openCounter) Stat(name string) (fs.FileInfo, error) { return fs.Stat(c.FS, name) }

func (c *openCounter) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(c.FS, name) }

func (c *openCounter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.opened
	c.opened = map[string]int{}
	return out
}

// TestAReloadReadsOnlyWhatChanged checks what a reload after one edit does: it reads
// the edited file alone (the others' stamps say they have not changed since they were
// read, long after they were written), parses it alone, and dry-runs its scenario alone.
func TestAReloadReadsOnlyWhatChanged(t *testing.T) {
	dir := t.TempDir()
	for i := range 50 {
		body := fmt.Sprintf("id: s%d\nmatch: {message: '^word-%d$'}\nexamples: [{message: word-%d}]\nsteps: [{text: hi}]\n", i, i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.yaml", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := &openCounter{FS: os.DirFS(dir), opened: map[string]int{}}
	src := Source{FS: files, Root: ".", Label: dir}
	mem := NewMemory(8)
	mem.now = func() time.Time { return time.Now().Add(time.Hour) } // every file written long before it is read
	parses := countParses(mem.refused)
	first, err := LoadRemembering(context.Background(), Limits{}, mem, nil, src)
	if err != nil {
		t.Fatal(err)
	}
	files.take()

	edited := "id: s7\nmatch: {message: '^word-7 again$'}\nexamples: [{message: word-7 again}]\nsteps: [{text: edited}]\n"
	if err := os.WriteFile(filepath.Join(dir, "f07.yaml"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := LoadRemembering(context.Background(), Limits{}, mem, nil, src)
	if err != nil {
		t.Fatal(err)
	}
	if opened := files.take(); len(opened) != 1 || opened["f07.yaml"] != 1 {
		t.Errorf("the reload opened %v, want f07.yaml alone", opened)
	}
	if parses(filepath.Join(dir, "f07.yaml")) != 2 || parses(filepath.Join(dir, "f08.yaml")) != 1 {
		t.Errorf("f07.yaml parsed %d times, f08.yaml %d: want 2 and 1", parses(filepath.Join(dir, "f07.yaml")), parses(filepath.Join(dir, "f08.yaml")))
	}
	for i, sc := range second.Scenarios() {
		if reused := sc == first.Scenarios()[i]; reused == (sc.ID == "s7") {
			t.Errorf("scenario %s reused: %v", sc.ID, reused)
		}
	}
	if sel, _ := second.Select(request(t, "/agui/chat", `{"messages":[{"role":"user","content":"word-7 again"}]}`)); sel == nil || sel.Scenario.ID != "s7" {
		t.Errorf("the edit is not served: %v", sel)
	}

	// on the clock: every file was written within the margin, so no stamp is trusted
	// and each is read again, but none is parsed again
	fresh := NewMemory(8)
	parsesOnTheClock := countParses(fresh.refused)
	for range 2 {
		if _, err := LoadRemembering(context.Background(), Limits{}, fresh, nil, src); err != nil {
			t.Fatal(err)
		}
	}
	if opened := files.take(); len(opened) != 50 || opened["f07.yaml"] != 2 || parsesOnTheClock(filepath.Join(dir, "f07.yaml")) != 1 {
		t.Errorf("files written within the margin: %d opened, f07.yaml %d times, parsed %d times; want 50, 2, 1", len(opened), opened["f07.yaml"], parsesOnTheClock(filepath.Join(dir, "f07.yaml")))
	}
}

// TestTheExampleCheckStopsWithItsContext: a load stopped while it checks examples fails
// with the stop's cause rather than going on through thousands of them.
func TestTheExampleCheckStopsWithItsContext(t *testing.T) {
	set, err := loadOne(t, "id: a\nmatch: {message: '^a$'}\nexamples: [{message: a}]\nsteps: [{text: hi}]\n")
	if err != nil {
		t.Fatal(err)
	}
	stopped, stop := context.WithCancelCause(context.Background())
	stop(errors.New("SIGTERM"))
	if _, err := set.checkExamples(stopped, nil); err == nil || !strings.Contains(err.Error(), "SIGTERM") {
		t.Errorf("the stopped check: %v", err)
	}
}
