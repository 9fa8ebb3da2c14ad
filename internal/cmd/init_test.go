package cmd

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/internal/starter"
)

func TestInitWritesAStarterFolderThatValidates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mock")
	var stdout, stderr strings.Builder
	if code := run(t.Context(), []string{"init", dir}, env(nil), &stdout, &stderr); code != 0 {
		t.Fatalf("init: exit %d: %s", code, stderr.String())
	}
	for _, p := range []string{"scenarios/hello.yaml", "scenarios/approval.yaml", "scenarios/frontend-tool.yaml", "tests/chat.spec.ts", "playwright.config.ts"} {
		written, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatalf("init did not write %s: %v", p, err)
		}
		// the embedded files are what the example app type-checks and validate checks
		if embedded, _ := fs.ReadFile(starter.Files(starter.AGUI), p); string(embedded) != string(written) {
			t.Errorf("%s differs from the starter folder's", p)
		}
		if !strings.Contains(stdout.String(), filepath.Join(dir, p)) {
			t.Errorf("init did not say it wrote %s:\n%s", p, stdout.String())
		}
	}
	hello, _ := os.ReadFile(filepath.Join(dir, "scenarios/hello.yaml"))
	if !strings.HasPrefix(string(hello), "# yaml-language-server: $schema=") {
		t.Errorf("hello.yaml has no schema modeline:\n%s", hello)
	}
	stdout.Reset()
	if code := run(t.Context(), []string{"validate", filepath.Join(dir, "scenarios")}, env(nil), &stdout, &stderr); code != 0 {
		t.Fatalf("validate of the starter scenarios: exit %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "3 scenario(s)") || !strings.Contains(stdout.String(), ": valid") {
		t.Errorf("validate: %s", stdout.String())
	}
	for _, want := range []string{"interrupt:", "tools: [pick_colour]"} {
		if !strings.Contains(readAll(t, filepath.Join(dir, "scenarios")), want) {
			t.Errorf("no starter scenario has %q", want)
		}
	}
}

func readAll(t *testing.T, dir string) string {
	t.Helper()
	var all strings.Builder
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	return all.String()
}

func TestInitRefusesToOverwriteAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "tests"), 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "tests", "chat.spec.ts")
	if err := os.WriteFile(mine, []byte("// mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	code := run(t.Context(), []string{"init", dir}, env(nil), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "already holds tests/chat.spec.ts: nothing written") {
		t.Errorf("init over an existing file: exit %d, %q", code, stderr.String())
	}
	if b, _ := os.ReadFile(mine); string(b) != "// mine\n" {
		t.Errorf("init changed an existing file: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "scenarios")); !os.IsNotExist(err) {
		t.Errorf("init wrote part of the folder: %v", err)
	}
	if code := run(t.Context(), []string{"init", dir, "other"}, env(nil), &stdout, &stderr); code != 2 {
		t.Errorf("init with two directories: exit %d", code)
	}
}

func TestInitForCopilotKitWritesItsSpecAndAThreadDocument(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr strings.Builder
	if code := run(t.Context(), []string{"init", "--copilotkit", dir}, env(nil), &stdout, &stderr); code != 0 {
		t.Fatalf("init --copilotkit: exit %d: %s", code, stderr.String())
	}
	for _, p := range []string{"scenarios/hello.yaml", "scenarios/approval.yaml", "scenarios/frontend-tool.yaml", "scenarios/welcome-back.yaml", "tests/copilotkit.spec.ts", "playwright.config.ts"} {
		written, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatalf("init --copilotkit did not write %s: %v", p, err)
		}
		if embedded, _ := fs.ReadFile(starter.Files(starter.CopilotKit), p); string(embedded) != string(written) {
			t.Errorf("%s differs from the starter folder's", p)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "tests", "chat.spec.ts")); err == nil {
		t.Error("init --copilotkit wrote the AG-UI app's spec too")
	}
	config, _ := os.ReadFile(filepath.Join(dir, "playwright.config.ts"))
	for _, want := range []string{"appOrigins: app", "/copilotkit"} {
		if !strings.Contains(string(config), want) {
			t.Errorf("the config lacks %q", want)
		}
	}
	stdout.Reset()
	if code := run(t.Context(), []string{"validate", filepath.Join(dir, "scenarios")}, env(nil), &stdout, &stderr); code != 0 {
		t.Fatalf("validate of the starter scenarios: exit %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	var usage strings.Builder
	if code := run(t.Context(), []string{"init", "--copilotkitt", dir}, env(nil), &usage, &usage); code != 2 || !strings.Contains(usage.String(), `unknown flag "--copilotkitt"`) {
		t.Errorf("a misspelt flag: exit %d, %q", code, usage.String())
	}
}

// TestInitNamesThePackagesItsSpecNeeds checks that init's advice installs every package
// the files it wrote import, and agui-mock, which the config starts: without them the
// first `npx playwright test` fails on a missing module.
func TestInitNamesThePackagesItsSpecNeeds(t *testing.T) {
	imported := regexp.MustCompile(`from "(@[^/"]+/[^/"]+|[^@./"][^/"]*)`)
	for _, flavour := range []struct {
		args  []string
		files fs.FS
	}{{[]string{"init"}, starter.Files(starter.AGUI)}, {[]string{"init", "--copilotkit"}, starter.Files(starter.CopilotKit)}} {
		var stdout, stderr strings.Builder
		if code := run(t.Context(), append(flavour.args, t.TempDir()), env(nil), &stdout, &stderr); code != 0 {
			t.Fatalf("%q: exit %d: %s", flavour.args, code, stderr.String())
		}
		_, next, _ := strings.Cut(stdout.String(), "Next:")
		install := regexp.MustCompile(`npm i -D ([^\n]+)`).FindStringSubmatch(next)
		if install == nil {
			t.Fatalf("%q: Next: names no packages to install:\n%s", flavour.args, next)
		}
		want := []string{"agui-mock"}
		for _, spec := range []string{"tests/chat.spec.ts", "tests/copilotkit.spec.ts", "playwright.config.ts"} {
			src, err := fs.ReadFile(flavour.files, spec)
			if err != nil {
				continue // each flavour has one of the two specs
			}
			for _, m := range imported.FindAllStringSubmatch(string(src), -1) {
				want = append(want, m[1])
			}
		}
		if len(want) < 3 {
			t.Fatalf("%q: found only %q imported", flavour.args, want)
		}
		for _, pkg := range want {
			if !slices.Contains(strings.Fields(install[1]), pkg) {
				t.Errorf("%q: `npm i -D %s` lacks %s", flavour.args, install[1], pkg)
			}
		}
	}
}
