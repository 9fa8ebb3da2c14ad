package docs_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// frontendDocs are the documents written for frontend developers, who get the mock from
// npm in their project rather than on their PATH: its commands there must run as
// `npx agui-mock …`. The others (architecture, performance, scaling, security,
// installing, docker) are for those who build, measure or deploy the mock, with Go or
// the image, and run it as `agui-mock …`.
var frontendDocs = []string{
	"docs/conversations.md",
	"docs/copilotkit.md",
	"docs/e2e-testing.md",
	"docs/generative-ui.md",
	"docs/inspector.md",
	"docs/protobuf.md",
	"docs/recording.md",
	"docs/scenarios.md",
}

// shellLangs are the info strings of the fenced blocks that hold shell commands.
var shellLangs = []string{"sh", "bash", "shell", "zsh", "console"}

// TestFrontendDocsRunTheMockWithNpx checks the rule that frontendDocs show the mock's
// commands as a frontend project runs them. The rule, precisely: in a fenced block whose
// info string is one of shellLangs, after joining lines continued with a trailing
// backslash and dropping a leading "$ " prompt, every simple command — the text between
// the separators ; & | && || ( ) and $( — whose first word, past any NAME=value
// assignments, is agui-mock breaks it; `npx agui-mock …` starts with npx and keeps it.
// Other words that contain agui-mock are not commands of it and pass: the image of a
// `docker run`, a path such as /usr/local/bin/agui-mock inside a container, `go run .`
// in a clone. Prose and blocks of other languages (yaml, ts, json) are not checked.
func TestFrontendDocsRunTheMockWithNpx(t *testing.T) {
	for _, doc := range frontendDocs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bareAguiMockCommands(string(data)) {
			t.Errorf("%s:%d: runs the mock as a bare agui-mock; a frontend project has it from npm: write npx agui-mock …", doc, line)
		}
	}
}

// TestTheNpxRuleCatchesBareCommands keeps the rule honest on examples of each case.
func TestTheNpxRuleCatchesBareCommands(t *testing.T) {
	for _, c := range []struct {
		block string
		bare  []int
	}{
		{"```sh\nagui-mock --scenarios ./scenarios\n```\n", []int{2}},
		{"```console\n$ agui-mock record --upstream http://x\n```\n", []int{2}},
		{"```sh\nAGUI_MOCK_SPEED=0 agui-mock &\ncurl x && agui-mock verify \\\n  --upstream u p\n```\n", []int{2, 3}},
		{"```sh\nnpx agui-mock --scenarios s\nnpx agui-mock record --upstream u\n```\n", nil},
		{"```sh\ndocker run --rm \\\n  -v \"$PWD:/s\" agui-mock\ngo run . record --upstream u\n```\n", nil},
		{"```yaml\ntest: [\"CMD\", \"agui-mock\", \"healthcheck\"]\n```\nand `agui-mock serve` in prose\n", nil},
	} {
		if got := bareAguiMockCommands(c.block); !equalInts(got, c.bare) {
			t.Errorf("%q: bare commands on lines %v, want %v", c.block, got, c.bare)
		}
	}
}

// bareAguiMockCommands returns the lines of a Markdown text on which a shell block runs
// agui-mock as a bare command (see TestFrontendDocsRunTheMockWithNpx), once each.
func bareAguiMockCommands(text string) []int {
	separators := regexp.MustCompile(`&&|\|\||\$\(|[;&|()]`)
	assignment := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=\S*$`)
	var lines []int
	for _, lang := range shellLangs {
		for _, block := range fencedBlocks(text, lang) {
			start := 0 // the first line of the command being read, in the block
			command := ""
			for i, line := range strings.Split(strings.TrimSuffix(block.text, "\n"), "\n") {
				if command == "" {
					start = i
				}
				if continued, ok := strings.CutSuffix(line, "\\"); ok {
					command += continued + " "
					continue
				}
				command += line
				for _, simple := range separators.Split(strings.TrimPrefix(strings.TrimSpace(command), "$ "), -1) {
					words := strings.Fields(simple)
					for len(words) > 0 && assignment.MatchString(words[0]) {
						words = words[1:]
					}
					if len(words) > 0 && words[0] == "agui-mock" {
						lines = append(lines, block.line+start)
						break
					}
				}
				command = ""
			}
		}
	}
	return lines
}

// equalInts reports whether two lists hold the same numbers in the same order.
func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestReadmeSetUpLeadsWithNpm checks that the README's set-up offers the npm route first,
// says where its packages come from while the registry does not have them, and keeps
// the Go route after it; and that installing.md has the npm section it links to, before
// the Go one.
func TestReadmeSetUpLeadsWithNpm(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, setUp, _ := strings.Cut(string(data), "\n## Set up\n")
	setUp, _, _ = strings.Cut(setUp, "\n## ")
	blocks := fencedBlocks(setUp, "sh")
	if len(blocks) < 2 || !strings.HasPrefix(blocks[0].text, "npm i -D agui-mock\nnpx agui-mock ") {
		t.Fatalf("the README's set-up does not lead with npm i -D agui-mock and npx agui-mock:\n%s", setUp)
	}
	if !strings.Contains(blocks[len(blocks)-1].text, "go run .") {
		t.Errorf("the README's set-up lost the Go route after the npm one:\n%s", setUp)
	}
	for _, want := range []string{"not on the registry", "make npm NPM_PLATFORMS=", "(docs/installing.md#npm)", "#docker"} {
		if !strings.Contains(setUp, want) {
			t.Errorf("the README's set-up lacks %q", want)
		}
	}
	installing, err := os.ReadFile("docs/installing.md")
	if err != nil {
		t.Fatal(err)
	}
	npm, goRoute := strings.Index(string(installing), "\n## npm\n"), strings.Index(string(installing), "\n## With Go\n")
	if npm < 0 || goRoute < 0 || npm > goRoute {
		t.Errorf("docs/installing.md has no npm section before its Go one (at %d and %d)", npm, goRoute)
	}
	if !strings.Contains(string(installing), "make npm NPM_PLATFORMS=") {
		t.Error("docs/installing.md does not say to build only your platform with NPM_PLATFORMS")
	}
}
