package docs_test

import (
	"os"
	"strings"
	"testing"
)

// The files the Playwright snippets of the documentation are taken from: each is
// type-checked by the example app's typecheck (make example-test), the example's
// specs also run.
var typeCheckedSources = []string{
	"examples/playwright-app/playwright.config.ts",
	"examples/playwright-app/tests/chat.spec.ts",
	"internal/starter/files/playwright.config.ts",
	"internal/starter/files/tests/chat.spec.ts",
}

// TestPlaywrightSnippetsAreExcerptsOfTypeCheckedFiles fails when a TypeScript snippet of
// the Playwright documentation says something the type-checked files do not: every line
// of it must be a line of one of them.
func TestPlaywrightSnippetsAreExcerptsOfTypeCheckedFiles(t *testing.T) {
	lines := map[string]bool{}
	for _, file := range typeCheckedSources {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			lines[strings.TrimSpace(line)] = true
		}
	}
	snippets := 0
	for _, doc := range []struct{ file, section string }{
		{"README.md", "## E2E testing"},
		{"docs/e2e-testing.md", "## Playwright"},
		{"clients/playwright/README.md", ""},
	} {
		for _, block := range tsBlocks(t, doc.file, doc.section) {
			snippets++
			for i, line := range strings.Split(block.text, "\n") {
				if trimmed := strings.TrimSpace(line); trimmed != "" && !lines[trimmed] {
					t.Errorf("%s:%d: %q is in no type-checked file (%s)", doc.file, block.line+i, trimmed, strings.Join(typeCheckedSources, ", "))
				}
			}
		}
	}
	if snippets < 5 {
		t.Errorf("found only %d Playwright snippets", snippets)
	}
}

// tsBlocks returns the ```ts blocks of a Markdown file's section (the whole file when
// section is empty), up to the next heading of the same level.
func tsBlocks(t *testing.T, file, section string) []docBlock {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	offset := 0
	if section != "" {
		start := strings.Index(text, "\n"+section+"\n")
		if start < 0 {
			t.Fatalf("%s has no section %q", file, section)
		}
		level := section[:strings.Index(section, " ")+1]
		offset = strings.Count(text[:start+1], "\n")
		text = text[start+1:]
		if end := strings.Index(text[len(section):], "\n"+level); end >= 0 {
			text = text[:len(section)+end]
		}
	}
	var blocks []docBlock
	var cur *docBlock
	for i, line := range strings.Split(text, "\n") {
		switch trimmed := strings.TrimSpace(line); {
		case cur == nil && trimmed == "```ts":
			cur = &docBlock{file: file, line: offset + i + 2}
		case cur != nil && trimmed == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	return blocks
}
