// Package starter holds the folder `agui-mock init` writes: scenarios to start from (a
// greeting with the schema modeline, an interrupt, a frontend tool) and a Playwright
// spec and config that use @agui-mock/playwright; for a CopilotKit app (init
// --copilotkit), a spec and config of an app whose runtimeUrl is the mock's CopilotKit
// routes, which seed the threads the app restores.
package starter

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

//go:embed files copilotkit
var embedded embed.FS

// Flavour is the kind of app a starter folder is for.
type Flavour int

// The flavours of starter folder.
const (
	// AGUI is for an app whose AG-UI agent (an HttpAgent) points at the mock.
	AGUI Flavour = iota
	// CopilotKit is for a CopilotKit app whose runtimeUrl points at the mock's CopilotKit
	// routes: the scenarios of AGUI, its own spec and config.
	CopilotKit
)

// Files is the starter folder of a flavour, its paths relative to the folder.
func Files(flavour Flavour) fs.FS {
	files := sub("files")
	if flavour == AGUI {
		return files
	}
	scenarios, err := fs.Sub(files, "scenarios")
	if err != nil {
		panic(err) // the embedded tree always has it
	}
	return overlay{base: sub("copilotkit"), dir: "scenarios", extra: scenarios}
}

// sub is a directory of the embedded tree.
func sub(dir string) fs.FS {
	f, err := fs.Sub(embedded, dir)
	if err != nil {
		panic(err) // the embedded tree always has it
	}
	return f
}

// overlay is base with extra's files in its directory dir besides its own.
type overlay struct {
	base  fs.FS
	dir   string
	extra fs.FS
}

// Open opens a file of dir from extra when base lacks it.
func (o overlay) Open(name string) (fs.File, error) {
	f, err := o.base.Open(name)
	if rest, inDir := strings.CutPrefix(name, o.dir+"/"); err != nil && inDir {
		return o.extra.Open(rest)
	}
	return f, err
}

// ReadDir lists dir with extra's files, every other directory as base has it.
func (o overlay) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(o.base, name)
	if name != o.dir {
		return entries, err
	}
	extra, xerr := fs.ReadDir(o.extra, ".")
	if xerr != nil {
		return nil, xerr
	}
	return append(entries, extra...), nil
}

// ExistsError is the refusal to write over files that exist: nothing was written.
type ExistsError struct {
	Dir   string
	Paths []string // the files that exist, relative to Dir
}

// Error names the files that exist.
func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s already holds %s: nothing written (move them away, or init another directory)",
		e.Dir, strings.Join(e.Paths, ", "))
}

// Write writes the starter folder of a flavour into dir, creating the directories it
// needs, and returns the paths it wrote, relative to dir. It writes nothing when one of
// its files exists already (an *ExistsError), and never writes over a file, even one
// created while it writes.
func Write(dir string, flavour Flavour) ([]string, error) {
	files := Files(flavour)
	var paths, existing []string
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		paths = append(paths, p)
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); err == nil {
			existing = append(existing, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("checking %s: %w", p, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(existing) > 0 {
		return nil, &ExistsError{Dir: dir, Paths: existing}
	}
	for i, p := range paths {
		if err := writeNew(files, dir, p); err != nil {
			return paths[:i], err
		}
	}
	return paths, nil
}

// writeNew writes one file of the starter folder, failing if it exists.
func writeNew(files fs.FS, dir, p string) error {
	content, err := fs.ReadFile(files, p)
	if err != nil {
		return err
	}
	target := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		os.Remove(target) // not left half-written
		return fmt.Errorf("writing %s: %w", p, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(target)
		return fmt.Errorf("writing %s: %w", p, err)
	}
	return nil
}
