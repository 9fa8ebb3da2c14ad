// Package starter holds the folder `agui-mock init` writes: scenarios to start from (a
// greeting with the schema modeline, an interrupt, a frontend tool) and a Playwright
// spec and config that use @agui-mock/playwright.
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

//go:embed files
var embedded embed.FS

// Files is the starter folder, its paths relative to the folder.
func Files() fs.FS {
	sub, err := fs.Sub(embedded, "files")
	if err != nil {
		panic(err) // the embedded tree always has "files"
	}
	return sub
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

// Write writes the starter folder into dir, creating the directories it needs, and
// returns the paths it wrote, relative to dir. It writes nothing when one of its files
// exists already (an *ExistsError), and never writes over a file, even one created
// while it writes.
func Write(dir string) ([]string, error) {
	files := Files()
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
