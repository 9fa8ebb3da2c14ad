package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// make fuzz runs every fuzz target of the module, so that none can rot unnoticed: a
// target added without its line in the Makefile fails here.
func TestMakeFuzzRunsEveryFuzzTarget(t *testing.T) {
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	declared := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	found := 0
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range declared.FindAllSubmatch(src, -1) {
			found++
			line := "-fuzz '^" + string(m[1]) + "$$' -fuzztime $(FUZZTIME) ./" + filepath.ToSlash(filepath.Dir(path))
			if !strings.Contains(string(makefile), line) {
				t.Errorf("%s declares %s, which make fuzz does not run: add a line with %s to the fuzz target", path, m[1], line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("found no fuzz target in the module's tests")
	}
}
