package docs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/internal/cmd"
	"github.com/agui-mock/agui-mock/internal/testkit"
	"github.com/agui-mock/agui-mock/scenarios"
	"go.yaml.in/yaml/v3"
)

// TestMain runs the tests from the repository's root, whence the documents name files
// (docs/scenarios.md, examples, e2e/agents/…) and their commands run.
func TestMain(m *testing.M) {
	if err := os.Chdir(".."); err != nil {
		fmt.Fprintln(os.Stderr, "docs tests:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// docBlock is a fenced yaml code block of a document.
type docBlock struct {
	file string
	line int // of the block's first line of YAML
	text string
}

// yamlBlocks returns the ```yaml blocks of a Markdown file, de-indented as far as their
// fence is indented. Blocks fenced ```yaml excerpt are shortened on purpose (with …)
// and left out.
func yamlBlocks(t *testing.T, file string) []docBlock {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []docBlock
	var cur *docBlock
	indent := ""
	for i, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && trimmed == "```yaml excerpt":
			// an excerpt, shortened with …: not meant to load
		case cur == nil && trimmed == "```yaml":
			indent = line[:len(line)-len(strings.TrimLeft(line, " "))]
			cur = &docBlock{file: file, line: i + 2}
		case cur != nil && trimmed == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += strings.TrimPrefix(line, indent) + "\n"
		}
	}
	if cur != nil {
		t.Errorf("%s:%d: the yaml block is not closed", file, cur.line-1)
	}
	return blocks
}

// isScenario reports whether a block holds whole scenarios: a document whose top level
// has steps or events. Other blocks (fragments, compose files) are checked as YAML only.
func isScenario(block docBlock) (bool, error) {
	dec := yaml.NewDecoder(strings.NewReader(block.text))
	scenario := false
	for {
		var root yaml.Node
		err := dec.Decode(&root)
		if errors.Is(err, io.EOF) {
			return scenario, nil
		}
		if err != nil {
			return false, err
		}
		if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i < len(root.Content[0].Content); i += 2 {
			if k := root.Content[0].Content[i].Value; k == "steps" || k == "events" {
				scenario = true
			}
		}
	}
}

// TestDocumentedScenariosLoad loads every scenario the documentation shows with the
// real loader, as validate would, and checks that every other yaml block is valid YAML.
func TestDocumentedScenariosLoad(t *testing.T) {
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	scenarioBlocks := 0
	for _, file := range append([]string{"README.md"}, docs...) {
		for _, block := range yamlBlocks(t, file) {
			if ok, _ := isScenario(block); ok {
				scenarioBlocks++
			}
			for _, p := range checkDocBlock(block) {
				t.Errorf("%s:%d: %s", block.file, block.line+max(p.Line, 1)-1, p.Message)
			}
		}
	}
	if scenarioBlocks < 6 {
		t.Errorf("only %d scenario blocks found in the documentation", scenarioBlocks)
	}
}

// checkDocBlock returns the problems of one block, with lines counted within the block.
func checkDocBlock(block docBlock) []scenarios.Diagnostic {
	ok, err := isScenario(block)
	if !ok && err == nil {
		return nil
	}
	list, diags := scenarios.Parse("block.yaml", []byte(block.text))
	if err != nil {
		return diags[len(diags)-1:] // the syntax error, which ends the parse
	}
	if len(diags) > 0 {
		return diags
	}
	var le *scenarios.LoadError
	if _, err := scenarios.NewSet(context.Background(), scenarios.Limits{}, list); errors.As(err, &le) {
		return le.Diagnostics
	}
	return nil
}

func TestDocBlockProblemsNameTheirLine(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "doc.md")
	testkit.WriteFile(t, doc, "# Title\n\n```yaml\nsteps:\n  - tool:\n      name: clarify\n      args: {question: Which format?, choices: [MP4]}\n```\n\n```yaml\nservices: {a: {b: c}}\n```\n")
	blocks := yamlBlocks(t, doc)
	if len(blocks) != 2 || blocks[0].line != 4 {
		t.Fatalf("blocks %+v", blocks)
	}
	problems := checkDocBlock(blocks[0])
	if len(problems) != 1 || blocks[0].line+problems[0].Line-1 != 7 || !strings.Contains(problems[0].Message, "YAML syntax") {
		t.Errorf("problems %+v", problems)
	}
	if problems := checkDocBlock(blocks[1]); len(problems) != 0 {
		t.Errorf("a valid fragment: %+v", problems)
	}
}

// TestReadmeValidateSamplesAreTrue runs each validate command the README shows, after
// writing the files its here-documents create, and compares the output with the block
// that follows it.
func TestReadmeValidateSamplesAreTrue(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(data), "```")
	samples := 0
	for i := 1; i+2 < len(blocks); i += 2 {
		script, ok := strings.CutPrefix(blocks[i], "sh\n")
		if !ok || !strings.Contains(script, "go run . validate") {
			continue
		}
		samples++
		args, created := readmeScript(t, script)
		var out strings.Builder
		code := cmd.Run(t.Context(), append([]string{"validate"}, args...), nil, &out, io.Discard)
		got := out.String()
		if valid := strings.HasSuffix(got, ": valid\n"); valid != (code == 0) {
			t.Errorf("README.md: validate %s exits %d after\n%s", strings.Join(args, " "), code, got)
		}
		for name, p := range created {
			got = strings.ReplaceAll(got, p, name)
		}
		if want := strings.TrimPrefix(blocks[i+2], "\n"); got != want {
			t.Errorf("README.md: validate %s prints\n%s\nthe README shows\n%s", strings.Join(args, " "), got, want)
		}
	}
	if samples != 2 {
		t.Errorf("found %d validate samples in README.md, want 2", samples)
	}
}

// readmeScript writes the files a README shell block creates with cat > NAME <<'EOF'
// into a temporary directory, and returns the arguments of its go run . validate, with
// those files' paths, and the paths by name.
func readmeScript(t *testing.T, script string) ([]string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	created := map[string]string{}
	var args []string
	lines := strings.Split(script, "\n")
	for i := 0; i < len(lines); i++ {
		if name, ok := strings.CutPrefix(lines[i], "cat > "); ok {
			name = strings.TrimSuffix(name, " <<'EOF'")
			var body strings.Builder
			for i++; i < len(lines) && lines[i] != "EOF"; i++ {
				body.WriteString(lines[i] + "\n")
			}
			created[name] = filepath.Join(dir, name)
			testkit.WriteFile(t, created[name], body.String())
		} else if rest, ok := strings.CutPrefix(lines[i], "go run . validate "); ok {
			args = strings.Fields(rest)
		}
	}
	for i, a := range args {
		if p, ok := created[a]; ok {
			args[i] = p
		}
	}
	return args, created
}

// TestEveryTemplateFunctionIsDocumented checks that the scenario reference names every
// function templates may call, written as code.
func TestEveryTemplateFunctionIsDocumented(t *testing.T) {
	data, err := os.ReadFile("docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range scenarios.TemplateFuncs() {
		if !strings.Contains(string(data), "`"+name+"`") && !strings.Contains(string(data), "`"+name+" ") {
			t.Errorf("docs/scenarios.md does not document the template function %s", name)
		}
	}
}

// TestEveryFaultKindIsDocumented checks that every fault kind has its row in the fault
// catalogue and that the scenario reference names the kinds a fault step takes (the
// schema and the Testcontainers client follow the table through go generate).
func TestEveryFaultKindIsDocumented(t *testing.T) {
	read := func(file string) string {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	catalogue, reference := read("docs/e2e-testing.md"), read("docs/scenarios.md")
	for _, k := range scenarios.FaultKindTable() {
		if !strings.Contains(catalogue, "\n| `"+k.Name+"` |") {
			t.Errorf("docs/e2e-testing.md has no row for the fault kind %s", k.Name)
		}
		if !k.RequestOnly() && !strings.Contains(reference, "`"+k.Name+"`") {
			t.Errorf("docs/scenarios.md does not name the fault step kind %s", k.Name)
		}
	}
}

// TestDocumentedScenarioMountsLoad checks that a directory of this repository that a
// docs' shell command mounts at /scenarios, pasted at the repository's root, holds
// scenarios that load without a problem.
func TestDocumentedScenarioMountsLoad(t *testing.T) {
	docs, _ := filepath.Glob("docs/*.md")
	command := regexp.MustCompile(`(?m)^docker run (?:.*\\\n)*.*`)
	mount := regexp.MustCompile(`\$PWD/([\w./-]+):/scenarios`)
	checked := 0
	for _, doc := range append([]string{"README.md"}, docs...) {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mount.FindAllStringSubmatch(strings.Join(command.FindAllString(string(data), -1), "\n"), -1) {
			if _, err := os.Stat(m[1]); err != nil {
				continue // a directory of the reader's own project
			}
			checked++
			// as the container serves it: with the built-in scenarios; and some of its own
			if rep, own := validated(t, m[1], true), validated(t, m[1], false); !rep.Valid || own.Scenarios == 0 {
				t.Errorf("%s mounts %s at /scenarios: %d scenario(s), %d problem(s), first %v",
					doc, m[1], rep.Scenarios, len(rep.Problems), rep.Problems[:min(1, len(rep.Problems))])
			}
		}
	}
	if checked == 0 {
		t.Error("no doc mounts a directory of this repository at /scenarios (the README's docker run should)")
	}
}

// validated is what agui-mock validate -format json reports of path, with the built-in
// scenarios or, as with -no-builtin, without them.
func validated(t *testing.T, path string, builtin bool) (rep struct {
	Valid     bool
	Scenarios int
	Problems  []scenarios.Diagnostic
}) {
	t.Helper()
	args := []string{"validate", "-format", "json", "-no-builtin=" + strconv.FormatBool(!builtin), path}
	var out, errs strings.Builder
	if code := cmd.Run(t.Context(), args, nil, &out, &errs); code > 1 {
		t.Fatalf("validate %s: exit %d: %s", path, code, errs.String())
	}
	if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
		t.Fatalf("validate %s printed %q: %v", path, out.String(), err)
	}
	return rep
}

// TestCopilotKitComposeRunsBesideItsFile: compose resolves the relative paths of
// docs/copilotkit/compose.yaml (the app's build context, ./scenarios) against the file's
// directory, so the page must have the reader run it from a copy beside the app, not
// name the file in docs/ from elsewhere with a relative APP_DIR.
func TestCopilotKitComposeRunsBesideItsFile(t *testing.T) {
	compose, err := os.ReadFile("docs/copilotkit/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(compose), "context: ${APP_DIR:-.}") || !strings.Contains(string(compose), "- ./scenarios:/scenarios:ro") {
		t.Fatal("docs/copilotkit/compose.yaml no longer builds ${APP_DIR:-.} and mounts ./scenarios: revise this test")
	}
	for _, doc := range []string{"docs/copilotkit.md", "docs/copilotkit/compose.yaml"} {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		commands := regexp.MustCompile(`(?m)^[#\s]*(?:\w+=\S+ )*docker[ -]compose\b.*$`).FindAllString(string(data), -1)
		if len(commands) == 0 {
			t.Errorf("%s shows no docker compose command", doc)
		}
		for _, c := range commands {
			if strings.Contains(c, " -f ") || strings.Contains(c, "APP_DIR=.") {
				t.Errorf("%s: %q resolves the file's relative paths against docs/copilotkit/, not the app", doc, strings.TrimSpace(c))
			}
		}
	}
}

// TestConversationsResumeRequestAnswers plays the first scenario of docs/conversations.md,
// then sends the resume request the page shows, as written: it answers the interrupt.
func TestConversationsResumeRequestAnswers(t *testing.T) {
	data, err := os.ReadFile("docs/conversations.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := yamlBlocks(t, "docs/conversations.md")
	request := regexp.MustCompile("(?s)```json\n(\\{\n  \"threadId\": \"thread-1\".*?\n\\})\n```").FindSubmatch(data)
	if len(blocks) == 0 || request == nil {
		t.Fatal("docs/conversations.md lost its first scenario or its resume request")
	}
	dir := t.TempDir()
	scenario := "id: trim\nmatch: {message: Trim}\n" + blocks[0].text
	if err := os.WriteFile(filepath.Join(dir, "trim.yaml"), []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	url := testkit.Start(t, cmd.Run, []string{"--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", dir, "--speed", "0"}, nil, io.Discard)
	post := func(body string) string {
		t.Helper()
		resp, err := http.Post(url+"/agui/chat", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %s", resp.StatusCode, out)
		}
		return string(out)
	}
	first := post(`{"threadId":"thread-1","runId":"run-1","messages":[{"id":"m1","role":"user","content":"Trim the first 10 seconds"}]}`)
	if !strings.Contains(first, `"interruptId-001"`) {
		t.Fatalf("the first run raised no interruptId-001:\n%s", first)
	}
	answered := post(string(request[1]))
	for _, want := range []string{`"type":"TOOL_CALL_RESULT"`, `"delta":"Trimmed`, `"delta":"Anything `} {
		if !strings.Contains(answered, want) {
			t.Errorf("the resume run lacks %s:\n%s", want, answered)
		}
	}
}

// TestInstallingPutsTheCommandOnPath runs what docs/installing.md shows from a clone:
// go install . writes agui-mock to GOBIN, which then runs as the docs call it; and the
// go install of the module names this module.
func TestInstallingPutsTheCommandOnPath(t *testing.T) {
	data, err := os.ReadFile("docs/installing.md")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	module := strings.TrimPrefix(strings.SplitN(string(mod), "\n", 2)[0], "module ")
	for _, want := range []string{"go install " + module + "@latest", "go install .", `export PATH="$(go env GOPATH)/bin:$PATH"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("docs/installing.md lacks %q", want)
		}
	}
	if testing.Short() {
		return
	}
	gobin := t.TempDir()
	install := exec.Command("go", "install", ".")
	install.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install .: %v\n%s", err, out)
	}
	t.Setenv("PATH", gobin+string(os.PathListSeparator)+os.Getenv("PATH"))
	run := exec.Command("agui-mock", "validate", "examples")
	if out, err := run.CombinedOutput(); err != nil || !strings.Contains(string(out), "valid") {
		t.Errorf("agui-mock validate examples from PATH: %v\n%s", err, out)
	}
}
