package docs_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// mappedPackages are the packages whose package comment, in their doc.go, is their
// map: what `go doc` shows of them.
var mappedPackages = []string{"protocol", "recorder", "scenarios", "server", "verify"}

// goFileName is a Go file of the package named in its map: a bare file name, not a path
// into another package (server/run.go).
var goFileName = regexp.MustCompile(`(?:^|[^/\w.])(\w+\.go)\b`)

// TestPackageMapsNameEveryFile checks that each mapped package has its package comment
// in doc.go alone, and that the comment names every Go file of the package (tests
// aside) and no file the package lacks: a file added, split or renamed without its line
// in the map fails here.
func TestPackageMapsNameEveryFile(t *testing.T) {
	for _, pkg := range mappedPackages {
		entries, err := os.ReadDir(pkg)
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		var doc string
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			files = append(files, name)
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(pkg, name), nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case f.Doc != nil && name != "doc.go":
				t.Errorf("%s/%s has a package comment: the package's map is doc.go's alone", pkg, name)
			case name == "doc.go" && f.Doc != nil:
				doc = f.Doc.Text()
			}
		}
		if doc == "" {
			t.Errorf("%s has no doc.go with its map as the package comment", pkg)
			continue
		}
		var named []string
		for _, m := range goFileName.FindAllStringSubmatch(doc, -1) {
			named = append(named, m[1])
		}
		for _, file := range files {
			if file != "doc.go" && !slices.Contains(named, file) {
				t.Errorf("go doc ./%s: the map does not name %s", pkg, file)
			}
		}
		for _, file := range named {
			if !slices.Contains(files, file) {
				t.Errorf("go doc ./%s: the map names %s, which the package does not have", pkg, file)
			}
		}
	}
}
