package docs_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestCopilotKitVersionsAreThoseTheTestsPin checks the "Tested with" paragraph of
// docs/copilotkit.md against the package files of the suites it names: every CopilotKit
// package they pin appears there with its version, and every version the paragraph
// claims is one they install. A reader picks versions by it, so it must not round
// versions together or name one that no test ran.
func TestCopilotKitVersionsAreThoseTheTestsPin(t *testing.T) {
	const doc = "docs/copilotkit.md"
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "\nTested with ")
	if !ok {
		t.Fatalf("%s lost its \"Tested with\" paragraph", doc)
	}
	paragraph, _, _ := strings.Cut(rest, "\n\n")
	paragraph = strings.Join(strings.Fields(paragraph), " ")

	installed := map[string]bool{} // "name version" of every CopilotKit package installed
	for _, dir := range []string{"e2e", "e2e/copilotkit-app"} {
		for name, version := range copilotKitPins(t, dir+"/package.json") {
			installed[name+" "+version] = true
			if !strings.Contains(paragraph, "`"+name+"` "+version) {
				t.Errorf("%s does not say that %s pins %s %s:\n%s", doc, dir, name, version, paragraph)
			}
		}
		for name, version := range copilotKitLocked(t, dir+"/package-lock.json") {
			installed[name+" "+version] = true
		}
	}
	claims := regexp.MustCompile("`(@copilotkit/[a-z-]+)` ([0-9]+\\.[0-9]+\\.[0-9]+)").FindAllStringSubmatch(paragraph, -1)
	if len(claims) == 0 {
		t.Fatalf("%s names no CopilotKit version where it says what is tested", doc)
	}
	for _, c := range claims {
		if !installed[c[1]+" "+c[2]] {
			t.Errorf("%s says it is tested with %s %s, which no suite installs", doc, c[1], c[2])
		}
	}
}

// copilotKitPins returns the @copilotkit packages a package.json depends on, and their
// versions; @copilotkit/aimock is another mock, which the benchmarks compare against.
func copilotKitPins(t *testing.T, file string) map[string]string {
	t.Helper()
	var pkg struct {
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	readJSON(t, file, &pkg)
	pins := map[string]string{}
	for _, deps := range []map[string]string{pkg.Dependencies, pkg.DevDependencies} {
		for name, version := range deps {
			if strings.HasPrefix(name, "@copilotkit/") && name != "@copilotkit/aimock" {
				pins[name] = version
			}
		}
	}
	if len(pins) == 0 {
		t.Fatalf("%s pins no CopilotKit package", file)
	}
	return pins
}

// copilotKitLocked returns the @copilotkit packages a lockfile installs at the top of
// node_modules, and their versions.
func copilotKitLocked(t *testing.T, file string) map[string]string {
	t.Helper()
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	readJSON(t, file, &lock)
	locked := map[string]string{}
	for p, v := range lock.Packages {
		if name, ok := strings.CutPrefix(p, "node_modules/"); ok && strings.HasPrefix(name, "@copilotkit/") && !strings.Contains(name, "/node_modules/") {
			locked[name] = v.Version
		}
	}
	return locked
}

// readJSON decodes a JSON file of the repository into v.
func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}
