package scenarios

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestYAMLSyntaxErrorsNameTheirLine(t *testing.T) {
	const (
		templateHint = `quote values that start with "{{", e.g. text: "{{ .message }}"`
		quoteHint    = `a quoted value ends at its closing quote: write \" inside double quotes and '' inside single quotes, or quote the value with the other kind`
		patternHint  = `quote a regular expression inside { } or [ ]: characters such as (? [ ] { } mean something to YAML there, e.g. match: {message: '(?i)hello'}`
	)
	// every other syntax error still gets a hint at its line, as every other load
	// problem has one: about indentation and quoting, the usual causes
	indentHint := func(line int) string {
		return fmt.Sprintf(`check the indentation of line %d against the lines above it (a key lines up with the other keys of its mapping, a step's keys with the first one after its "- "), and quote a value there that holds ": " or " #" or starts with [ { > | * & ! %% or @`, line)
	}
	flowHint := func(line int) string {
		return fmt.Sprintf("close the { or [ that line %d opens or continues, separate its items with commas, and quote an item there that holds : [ ] { } or #", line)
	}
	tests := []struct {
		name, yaml string
		line       int
		message    string
		hint       string
	}{
		{"flow mapping on the last line", "id: a\nmatch:\n  message: hi\nsteps:\n  - text: hello\n  - tool:\n      args: {question: Which format?, choices: [MP4]}\n", 7, "did not find expected ',' or '}'", flowHint(7)},
		{"a quote inside double quotes", "id: b\nsteps:\n  - text: \"say \"hi\" now\"\n", 3, "did not find expected key", quoteHint},
		{"a quote inside single quotes", "id: b\nsteps:\n  - text: 'it's'\n", 3, "did not find expected key", quoteHint},
		{"deep in a mapping", "id: c\nsteps:\n  - text: a\n    delay: 1s\n    chunk: \"a\"b\n", 5, "did not find expected key", quoteHint},
		{"in the top-level mapping", "id: d\ndescription: x\npriority: 1\nsteps: \"a\"b\n", 4, "did not find expected key", quoteHint},
		{"an unquoted template with text after it", "steps:\n  - text: a\n  - text: {{ .message }} there\n", 3, "did not find expected key", templateHint},
		{"a quoted template is no template problem", "steps:\n  - text: \"{{ .message }}\" there\n", 2, "did not find expected key", quoteHint},
		{"an unquoted (?i) in a flow mapping", "id: e\nmatch: {message: (?i)hello}\nsteps: [{text: hi}]\n", 2, "did not find expected ',' or '}'", patternHint},
		{"an unquoted class in a flow mapping", "id: e\nmatch: {tools: [x], message: order [0-9]+}\nsteps: [{text: hi}]\n", 2, "did not find expected ',' or '}'", patternHint},
		{"a tab", "steps:\n\t- text: a\n", 2, "found character that cannot start any token", "line 2 is indented with a tab: YAML indents with spaces only"},
		{"an unterminated quote", "steps:\n  - text: 'open\n", 2, "found unexpected end of stream", "close the quote or bracket that line 2 opens, or check the indentation of the lines after it"},
		{"on the first line", "a: b: c\n", 1, "mapping values are not allowed in this context", indentHint(1)},
		{"a key indented too deep", "id: f\nmatch:\n  message: hi\n    tools: [x]\n", 4, "mapping values are not allowed in this context", indentHint(4)},
		{"a step's key indented too shallow", "id: f\nsteps:\n  - text: a\n delay: 1s\n", 4, "did not find expected key", indentHint(4)},
		{"a step's key indented too deep", "id: f\nsteps:\n  - text: a\n   delay: 1s\n", 4, "did not find expected '-' indicator", indentHint(4)},
		{"in a later document", "steps: [{text: a}]\n---\nsteps:\n  - text: [x\n", 4, "did not find expected ',' or ']'", flowHint(4)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := Parse("f.yaml", []byte(tt.yaml))
			if len(diags) != 1 {
				t.Fatalf("diagnostics %v", diags)
			}
			want := Diagnostic{File: "f.yaml", Line: tt.line, Message: "YAML syntax: " + tt.message, Hint: tt.hint}
			if diags[0] != want {
				t.Errorf("got  %+v\nwant %+v", diags[0], want)
			}
			if !strings.HasPrefix(diags[0].Error(), fmt.Sprintf("f.yaml:%d: YAML syntax: ", tt.line)) {
				t.Errorf("printed as %q", diags[0].Error())
			}
		})
	}
}

func TestEveryDuplicateKeyIsReportedOnce(t *testing.T) {
	_, diags := Parse("f.yaml", []byte("id: a\nid: b\nid: c\nsteps:\n  - state: &s {x: 1, x: 2}\n  - state: *s\n  - state: {<<: *s, y: 1}\n"))
	want := []string{
		`f.yaml:2:1: duplicate key "id" (first at line 1)`,
		`f.yaml:3:1: duplicate key "id" (first at line 1)`,
		`f.yaml:5:22: duplicate key "x" (first at line 5)`,
	}
	var got []string
	for _, d := range diags {
		got = append(got, d.Error())
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestAKeyNextToAMergeKeyIsNoDuplicate(t *testing.T) {
	if _, diags := Parse("f.yaml", []byte("steps:\n  - state: &s {x: 1, y: 2}\n  - state: {<<: *s, x: 3}\n  - state: {<<: [*s, *s]}\n")); diags != nil {
		t.Errorf("diagnostics %v", diags)
	}
}

// TestAMisplacedOnSaysWhereItGoes: "on" written as a step of its own, below the
// interrupt it answers, is told where it belongs rather than "did you mean id?".
func TestAMisplacedOnSaysWhereItGoes(t *testing.T) {
	_, err := loadOne(t, "id: approve\nmatch: {message: delete}\nsteps:\n  - interrupt:\n      id: x\n      message: Sure?\n  - on:\n      resolved: [{text: ok}]\n")
	if err == nil || !strings.Contains(err.Error(), `unknown key "on" in a step (hint: "on" goes inside an interrupt, beside its id and message`) {
		t.Errorf("got %v", err)
	}
}

// aliasBomb is a scenario file of ten levels of ten aliases: a few hundred bytes that
// name 10¹⁰ nodes once resolved. Its first level's aliases are on line 3.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("id: bomb\nsteps:\n  - text: a\n")
	b.WriteString("x0: &x0 [a, a, a, a, a, a, a, a, a, a]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "x%d: &x%d [*x%d, *x%[3]d, *x%[3]d, *x%[3]d, *x%[3]d, *x%[3]d, *x%[3]d, *x%[3]d, *x%[3]d, *x%[3]d]\n", i, i, i-1)
	}
	return b.String()
}

// TestAnAliasBombIsRefusedQuicklyAtItsAlias: the bomb is refused at the alias that takes
// it past the budget, before it is expanded, so refusing it costs a small part of what
// reading a file of as many nodes as the budget allows does (counted in bytes allocated,
// which the machine's load does not change).
func TestAnAliasBombIsRefusedQuicklyAtItsAlias(t *testing.T) {
	var diags []Diagnostic
	refusing := allocated(func() { _, diags = Parse("bomb.yaml", []byte(aliasBomb())) })
	var budget strings.Builder
	budget.WriteString("id: many\nsteps:\n  - text: a\nlist: &list [a, b]\nuses:\n")
	for range MaxAliasNodes / 3 { // each alias adds the list's three nodes
		budget.WriteString("  - *list\n")
	}
	var within []Diagnostic
	reading := allocated(func() { _, within = Parse("many.yaml", []byte(budget.String())) })
	for _, d := range within {
		if strings.Contains(d.Message, "aliases") {
			t.Fatalf("a file within the budget is refused: %v", d)
		}
	}
	if refusing > reading/10 {
		t.Errorf("refusing the bomb allocated %d bytes, more than a tenth of what reading a file at the budget does (%d)", refusing, reading)
	}
	if len(diags) != 1 {
		t.Fatalf("diagnostics %v", diags)
	}
	d := diags[0]
	if d.File != "bomb.yaml" || d.Line < 5 || !strings.Contains(d.Message, fmt.Sprintf("add more than %d nodes", MaxAliasNodes)) {
		t.Errorf("diagnostic %+v, want one of bomb.yaml at an alias's line naming the limit", d)
	}
}

func TestAliasesWithinTheBudgetResolve(t *testing.T) {
	// Each alias of the three-node list adds three nodes: as many aliases as the budget
	// allows resolve, and one more is refused.
	file := func(aliases int) string {
		var b strings.Builder
		b.WriteString("id: many\nsteps:\n  - text: a\nlist: &list [a, b]\nuses:\n")
		for range aliases {
			b.WriteString("  - *list\n")
		}
		return b.String()
	}
	_, diags := Parse("ok.yaml", []byte(file(MaxAliasNodes/3)))
	for _, d := range diags {
		if strings.Contains(d.Message, "aliases") {
			t.Errorf("within the budget: %v", d)
		}
	}
	_, diags = Parse("over.yaml", []byte(file(MaxAliasNodes/3+1)))
	if len(diags) != 1 || diags[0].Line != 6+MaxAliasNodes/3 || !strings.Contains(diags[0].Message, "*list") {
		t.Errorf("one alias past the budget: %v", diags)
	}
}

func TestResolvingAliasesStopsWhenTheLoadIsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(errors.New("the server is stopping"))
	_, diags := ParseContext(ctx, "bomb.yaml", []byte(aliasBomb()))
	if len(diags) != 1 || !strings.Contains(diags[0].Message, "reading the file stopped: the server is stopping") {
		t.Errorf("diagnostics %v", diags)
	}
}
