package scenarios

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// MaxFileBytes is the largest scenario file the loader reads.
const MaxFileBytes = 4 << 20

// Source is a tree of scenario files.
type Source struct {
	FS    fs.FS
	Root  string // the directory inside FS to walk
	Label string // how file names are shown: Label joined with the path below Root
	// Omit lists ids of the source's scenarios that a set leaves out.
	Omit []string
	// Fallback marks a source whose scenarios give way to scenarios of the same id in
	// the other sources, as the built-in set does; elsewhere a repeated id is an error.
	Fallback bool
}

// IsScenarioFile reports whether a file name is one the loader reads: YAML files that
// are not hidden (editors' temporary and backup files start with a dot or end otherwise).
func IsScenarioFile(name string) bool {
	base := path.Base(name)
	return !strings.HasPrefix(base, ".") && (strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml"))
}

// SkipsDir reports whether the loader skips a directory of this name below a root:
// hidden ones hold editor state, version control, or Kubernetes' ..data indirection,
// whose files are also reachable through the visible symlinks; node_modules holds the
// packages of a frontend project, whose YAML files are no scenarios.
func SkipsDir(name string) bool { return strings.HasPrefix(name, ".") || name == "node_modules" }

// ReadFiles walks a source and parses every scenario file in it, but for the
// directories SkipsDir names.
func ReadFiles(src Source) ([]*Scenario, []Diagnostic) {
	return readFiles(context.Background(), nil, src)
}

// readFiles is ReadFiles whose parsing stops when ctx is done, and that recalls what
// the files mem remembers gave (nil: none).
func readFiles(ctx context.Context, mem *Memory, src Source) ([]*Scenario, []Diagnostic) {
	var files []string
	var diags []Diagnostic
	err := fs.WalkDir(src.FS, src.Root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			diags = append(diags, Diagnostic{File: display(src, p), Message: err.Error()})
		case d.IsDir() && p != src.Root && SkipsDir(d.Name()):
			return fs.SkipDir
		case !d.IsDir() && IsScenarioFile(p):
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		diags = append(diags, Diagnostic{File: src.Label, Message: err.Error()})
	}
	// Files parse independently, so they parse in parallel; results keep file order.
	lists := make([][]*Scenario, len(files))
	fileDiags := make([][]Diagnostic, len(files))
	parallel(len(files), func(i int) {
		if ctx.Err() == nil {
			lists[i], fileDiags[i] = mem.readFile(ctx, src.FS, files[i], display(src, files[i]))
		}
	})

	var all []*Scenario
	for i := range files {
		all = append(all, lists[i]...)
		diags = append(diags, fileDiags[i]...)
	}
	return all, diags
}

// parallel calls work for every index from 0 to n-1, on as many goroutines as there are
// processors, and returns when all calls have.
func parallel(n int, work func(i int)) {
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				work(i)
			}
		})
	}
	wg.Wait()
}

func display(src Source, p string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(p, src.Root), "/")
	if src.Label == "" {
		return rel
	}
	if rel == "" {
		return src.Label
	}
	return path.Join(src.Label, rel)
}

// ReadFile reads a scenario file, or another file the loader's tools read, within
// MaxFileBytes. Only regular files (symbolic links followed) are opened: opening a named
// pipe would wait for a writer for good, and a device may never end.
func ReadFile(fsys fs.FS, name string) ([]byte, error) {
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s, not a regular file", fileKind(info.Mode()))
	}
	tooLarge := fmt.Errorf("the file is larger than the limit of %d MiB", MaxFileBytes>>20)
	if info.Size() > MaxFileBytes {
		return nil, tooLarge
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Read it whole in one call, and see EOF; the limit holds if the file grew since.
	// ReadFrom grows a buffer that has less than MinRead bytes free before each read.
	buf := bytes.NewBuffer(make([]byte, 0, info.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxFileBytes+1)); err != nil {
		return nil, err
	}
	if buf.Len() > MaxFileBytes {
		return nil, tooLarge
	}
	return buf.Bytes(), nil
}

// fileKind names what a file that is not a regular one is.
func fileKind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
