package docs_test

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const architectureDoc = "docs/architecture.md"

var (
	// codeSpan is a name written as code.
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	// docLink is the target of a Markdown link, without its fragment.
	docLink = regexp.MustCompile(`\]\(([^)#\s]+)`)
	// mermaidName is a name in a diagram's labels: a path or a file name.
	mermaidName = regexp.MustCompile(`[\w.*-]+(?:/[\w.*-]+)*/?`)
	// bareFile is a file name without its directory, such as plan.go.
	bareFile = regexp.MustCompile(`^[\w.-]*\w\.(go|md|json|js|mjs|ts|yaml|yml|sh|proto|html|png|txt)$`)
)

// docSection is the text of a document from one heading to the next.
type docSection struct {
	heading string
	text    string
}

// architectureSections reads docs/architecture.md as its sections.
func architectureSections(t *testing.T) []docSection {
	t.Helper()
	data, err := os.ReadFile(architectureDoc)
	if err != nil {
		t.Fatal(err)
	}
	sections := []docSection{{heading: "(the introduction)"}}
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if strings.HasPrefix(line, "#") {
			sections = append(sections, docSection{heading: strings.TrimSpace(line)})
		}
		sections[len(sections)-1].text += line
	}
	return sections
}

// namesIn returns the names a section writes as code, in its diagrams' labels and as
// link targets (these resolved from docs/, where the document is).
func namesIn(section docSection) []string {
	var names []string
	for _, m := range codeSpan.FindAllStringSubmatch(section.text, -1) {
		names = append(names, m[1])
	}
	inDiagram := false
	for _, line := range strings.Split(section.text, "\n") {
		switch trimmed := strings.TrimSpace(line); {
		case trimmed == "```mermaid":
			inDiagram = true
		case trimmed == "```":
			inDiagram = false
		case inDiagram:
			names = append(names, mermaidName.FindAllString(strings.ReplaceAll(line, "<br/>", " "), -1)...)
		}
	}
	for _, m := range docLink.FindAllStringSubmatch(section.text, -1) {
		if !strings.Contains(m[1], ":") {
			names = append(names, path.Join("docs", m[1]))
		}
	}
	return names
}

// TestArchitectureNamesOnlyFilesThatExist checks that every file and directory
// docs/architecture.md names is one of the repository: a path from the root, written as
// code (server/routes.go, internal/cmd, e2e/test/real-*.test.js), in a diagram or as a
// link; and a file or directory written without its directory (plan.go, inspector/),
// found at the root or in a directory its section names. The map is followed to find
// code.
func TestArchitectureNamesOnlyFilesThatExist(t *testing.T) {
	checked := 0
	for _, section := range architectureSections(t) {
		names := namesIn(section)
		dirs := []string{"."}
		var bare []string
		for _, name := range names {
			first, _, nested := strings.Cut(strings.TrimSuffix(name, "/"), "/")
			switch {
			case strings.ContainsAny(name, " \t") || strings.HasPrefix(name, ".."):
				// a command or a path outside the repository
			case nested && exists(first):
				checked++
				matches, _ := filepath.Glob(strings.TrimSuffix(name, "/"))
				if len(matches) == 0 {
					t.Errorf("%s (%s) names %s, which does not exist", architectureDoc, section.heading, name)
				}
				for _, m := range matches {
					if isDir(m) {
						dirs = append(dirs, m)
					} else {
						dirs = append(dirs, filepath.Dir(m))
					}
				}
			case !nested && isDir(first):
				dirs = append(dirs, first) // a package named as code: `recorder`
			case bareFile.MatchString(name) || (!nested && strings.HasSuffix(name, "/")):
				bare = append(bare, name)
			}
		}
		slices.Sort(dirs)
		dirs = slices.Compact(dirs)
		for _, name := range bare {
			checked++
			found := false
			for _, dir := range dirs {
				found = found || exists(filepath.Join(dir, name))
			}
			if !found {
				t.Errorf("%s (%s) names %s, which is in no directory the section names (%s)",
					architectureDoc, section.heading, name, strings.Join(dirs, ", "))
			}
		}
	}
	if checked < 150 {
		t.Fatalf("%s names %d paths: has the way it writes them changed?", architectureDoc, checked)
	}
}

// TestArchitectureMapsEveryPackage checks that the map of docs/architecture.md (the
// table of packages under "The house") names every directory of Go files and every
// directory at the root: itself, or, for one that holds only directories, by them.
func TestArchitectureMapsEveryPackage(t *testing.T) {
	mapped := map[string]bool{}
	inMap := false
	var house string
	for _, section := range architectureSections(t) {
		if section.heading == "## The house" {
			house = section.text
		}
	}
	for _, line := range strings.Split(house, "\n") {
		switch {
		case strings.HasPrefix(line, "| package |"):
			inMap = true
		case inMap && strings.HasPrefix(line, "|"):
			cell, _, _ := strings.Cut(strings.TrimPrefix(line, "|"), "|")
			for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
				mapped[strings.TrimSuffix(m[1], "/")] = true
			}
		default:
			inMap = false
		}
	}
	if !mapped["main"] || len(mapped) < 20 {
		t.Fatalf("%s: no map of packages found (its first column names %d)", architectureDoc, len(mapped))
	}
	out, err := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files, to list the repository's files: %v", err)
	}
	goDirs := map[string]bool{}
	rootDirs := map[string]bool{} // each directory at the root: whether it holds files
	for _, file := range strings.Fields(string(out)) {
		if !exists(file) {
			continue // deleted from the work tree
		}
		dir := path.Dir(file)
		if strings.HasSuffix(file, ".go") && dir != "." {
			goDirs[dir] = true
		}
		if root, rest, nested := strings.Cut(file, "/"); nested {
			rootDirs[root] = rootDirs[root] || !strings.Contains(rest, "/")
		}
	}
	for dir := range goDirs {
		if !mapped[dir] {
			t.Errorf("%s: the map names no package %s", architectureDoc, dir)
		}
	}
	for dir, holdsFiles := range rootDirs {
		byItsOwn := false
		for name := range mapped {
			byItsOwn = byItsOwn || strings.HasPrefix(name, dir+"/")
		}
		if !mapped[dir] && (holdsFiles || !byItsOwn) {
			t.Errorf("%s: the map names no %s/", architectureDoc, dir)
		}
	}
}

// exists reports whether a file or directory of that name exists.
func exists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// isDir reports whether name is a directory.
func isDir(name string) bool {
	info, err := os.Stat(name)
	return err == nil && info.IsDir()
}
