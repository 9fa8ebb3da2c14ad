package scenarios

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

// countParses makes r count the files it parses, by name.
func countParses(r *Refusals) func(file string) int {
	var mu sync.Mutex
	parses := map[string]int{}
	r.parse = func(ctx context.Context, file string, data []byte) ([]*Scenario, []Diagnostic) {
		mu.Lock()
		parses[file]++
		mu.Unlock()
		return ParseContext(ctx, file, data)
	}
	return func(file string) int {
		mu.Lock()
		defer mu.Unlock()
		return parses[file]
	}
}

// problems returns the diagnostics of a load's error, failing without one.
func problems(t *testing.T, err error) []Diagnostic {
	t.Helper()
	le, ok := err.(*LoadError)
	if !ok {
		t.Fatalf("want a load error, got %v", err)
	}
	return le.Diagnostics
}

func TestAnUnchangedRefusedFileIsRefusedAgainWithoutBeingParsed(t *testing.T) {
	fanout := fanOut(22_000) // past the event limit by a tenth
	fsys := fstest.MapFS{"d/alpha.yaml": {Data: []byte("steps: [{text: v1}]\n")}, "d/fanout.yaml": {Data: fanout}}
	mem := NewMemory(8)
	r := mem.refused
	parses := countParses(r)
	load := func() error {
		_, err := LoadRemembering(context.Background(), Limits{}, mem, nil, Source{FS: fsys, Root: "d", Label: "d"})
		return err
	}

	refused := problems(t, load())
	if len(refused) != 1 || refused[0].File != "d/fanout.yaml" || !strings.HasPrefix(refused[0].Message, fanOutProblem) {
		t.Fatalf("refused with %v", refused)
	}
	fsys["d/alpha.yaml"] = &fstest.MapFile{Data: []byte("steps: [{text: v2}]\n")} // another file is saved
	var err error
	again := allocated(func() { err = load() })
	if got := problems(t, err); !reflect.DeepEqual(got, refused) {
		t.Errorf("refused again with %v, want %v", got, refused)
	}
	if parses("d/fanout.yaml") != 1 || parses("d/alpha.yaml") != 2 {
		t.Errorf("parsed the refused file %d times, the other %d times; want 1 and 2", parses("d/fanout.yaml"), parses("d/alpha.yaml"))
	}
	// Reading it is all that the load costs: parsing it would cost 45 times its size.
	if again > 2*uint64(len(fanout)) {
		t.Errorf("the load allocated %d MiB, for a file of %d MiB", again>>20, len(fanout)>>20)
	}

	fsys["d/fanout.yaml"] = &fstest.MapFile{Data: append(fanout, "# changed\n"...)}
	if got := problems(t, load()); !reflect.DeepEqual(got, refused) || parses("d/fanout.yaml") != 2 {
		t.Errorf("a changed file was parsed %d times in all, and refused with %v", parses("d/fanout.yaml"), got)
	}
	fsys["d/fanout.yaml"] = &fstest.MapFile{Data: fanOut(10)} // fixed
	if err := load(); err != nil {
		t.Fatal(err)
	}
	fsys["d/fanout.yaml"] = &fstest.MapFile{Data: fanout}
	if load(); parses("d/fanout.yaml") != 4 {
		t.Errorf("once fixed, a file is forgotten: parsed %d times in all, want 4", parses("d/fanout.yaml"))
	}
	delete(fsys, "d/fanout.yaml") // removed
	if err := load(); err != nil {
		t.Fatal(err)
	}
	fsys["d/fanout.yaml"] = &fstest.MapFile{Data: fanout}
	if load(); parses("d/fanout.yaml") != 5 {
		t.Errorf("once removed, a file is forgotten: parsed %d times in all, want 5", parses("d/fanout.yaml"))
	}
}

func TestWhatAStoppedLoadRefusedIsNotRemembered(t *testing.T) {
	fsys := fstest.MapFS{"d/bad.yaml": {Data: []byte("steps: [{txt: x}]\n")}}
	src := Source{FS: fsys, Root: "d", Label: "d"}
	mem := NewMemory(8)
	r := mem.refused
	parses := countParses(r)
	stopped, stop := context.WithCancel(context.Background())
	count := r.parse
	r.parse = func(ctx context.Context, file string, data []byte) ([]*Scenario, []Diagnostic) {
		defer stop() // the load stops while the file is parsed
		return count(ctx, file, data)
	}
	if _, err := LoadRemembering(stopped, Limits{}, mem, nil, src); !errors.Is(err, context.Canceled) {
		t.Fatalf("the stopped load: %v", err)
	}
	r.parse = count
	_, err := LoadRemembering(context.Background(), Limits{}, mem, nil, src)
	if d := problems(t, err); len(d) != 1 || !strings.Contains(d[0].Message, `unknown key "txt"`) || parses("d/bad.yaml") != 2 {
		t.Errorf("parsed %d times, refused with %v", parses("d/bad.yaml"), d)
	}
}

func TestRefusalsAreBounded(t *testing.T) {
	fsys := fstest.MapFS{}
	for i := range 3 {
		fsys[fmt.Sprintf("d/bad%d.yaml", i)] = &fstest.MapFile{Data: []byte("steps: [{txt: x}]\n")}
	}
	// more problems than a refusal keeps
	fsys["d/many.yaml"] = &fstest.MapFile{Data: []byte("steps: [" + strings.Repeat("{txt: x}, ", maxRefusalProblems) + "{txt: x}]\n")}
	src := Source{FS: fsys, Root: "d", Label: "d"}
	mem := NewMemory(2)
	r := mem.refused
	parses := countParses(r)
	_, err := LoadRemembering(context.Background(), Limits{}, mem, nil, src)
	if len(problems(t, err)) != 3+maxRefusalProblems+1 || len(r.files) != 2 {
		t.Fatalf("of three refused files %d are remembered, want 2", len(r.files))
	}
	for i := range 3 { // the one forgotten goes: the two remembered are not parsed again
		if name := fmt.Sprintf("bad%d.yaml", i); r.files["d/"+name].diags == nil {
			delete(fsys, "d/"+name)
		}
	}
	LoadRemembering(context.Background(), Limits{}, mem, nil, src)
	if total := parses("d/bad0.yaml") + parses("d/bad1.yaml") + parses("d/bad2.yaml"); total != 3 || parses("d/many.yaml") != 2 {
		t.Errorf("parsed the files remembered again (%d parses in all, want 3); the file of many problems %d times, want 2", total, parses("d/many.yaml"))
	}
}
