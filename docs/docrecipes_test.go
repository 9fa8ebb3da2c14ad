package docs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// excerptPrefix opens a js block of the docs that is an excerpt of one of the real
// agents the end-to-end suite runs: the rest of the block must be in that file as shown.
const excerptPrefix = "// e2e/agents/"

// TestRecordingRecipesAreTheTestedAgents checks that every excerpt of e2e/agents that
// docs/recording.md shows is in its file word for word, so that the recipes are the code
// the end-to-end suite records, replays and verifies.
func TestRecordingRecipesAreTheTestedAgents(t *testing.T) {
	const doc = "docs/recording.md"
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	excerpts := 0
	for _, block := range fencedBlocks(string(data), "js") {
		first, body, _ := strings.Cut(block.text, "\n")
		file, ok := strings.CutPrefix(first, excerptPrefix)
		if !ok {
			continue
		}
		excerpts++
		source, err := os.ReadFile(filepath.Join("e2e", "agents", file))
		if err != nil {
			t.Errorf("%s:%d: the excerpt names a file that cannot be read: %v", doc, block.line, err)
			continue
		}
		if !strings.Contains(string(source), body) {
			t.Errorf("%s:%d: the excerpt is not in e2e/agents/%s as shown: copy it from the file again", doc, block.line, file)
		}
	}
	if excerpts == 0 {
		t.Errorf("%s shows no excerpt of e2e/agents (a js block whose first line is %q)", doc, excerptPrefix+"…")
	}
}

// fencedBlocks returns the blocks of a Markdown text fenced ```lang, each with the line
// of its first line.
func fencedBlocks(text, lang string) []docBlock {
	var blocks []docBlock
	var cur *docBlock
	for i, line := range strings.Split(text, "\n") {
		switch {
		case cur == nil && line == "```"+lang:
			cur = &docBlock{line: i + 2}
		case cur != nil && line == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	return blocks
}
