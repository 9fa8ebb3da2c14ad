package scenarios

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Hints for the usual causes of YAML syntax errors in scenarios, each recognized on the
// line of the error: a template as an unquoted value, a quoted value that goes on after
// its closing quote (a quote inside it that is not escaped), and an unquoted regular
// expression in a flow mapping.
var (
	unquotedTemplateValue = regexp.MustCompile(`(?:^\s*-\s+|:\s+|[\[,]\s*)\{\{`)
	quoteInsideQuotes     = regexp.MustCompile(`(?:^\s*-\s+|:\s+)(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*')[ \t]*[^\s#,:\]}]`)
	// a plain value in a flow mapping or sequence ({…}, […]) holding characters of a
	// regular expression that YAML reads as its own, such as (?i) or a class [a-z]
	unquotedPatternInFlow = regexp.MustCompile(`[{\[,]\s*[\w-]+:\s+(?:\(\?|[^\s'"\[{,}\]][^,}\]]*?(?:\(\?|[\[{]))`)
)

// yamlDiagnostic turns a yaml syntax error into a diagnostic on the line where the
// problem is. The YAML decoder reports no column, so the diagnostic has none.
func yamlDiagnostic(file string, data []byte, err error) Diagnostic {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	reported := 0
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		reported, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	line := syntaxErrorLine(lines, reported, msg)
	d := Diagnostic{File: file, Line: line, Message: "YAML syntax: " + msg}
	if line > 0 && line <= len(lines) {
		switch text := lines[line-1]; {
		case unquotedTemplateValue.MatchString(text):
			d.Hint = `quote values that start with "{{", e.g. text: "{{ .message }}"`
		case quoteInsideQuotes.MatchString(text):
			d.Hint = `a quoted value ends at its closing quote: write \" inside double quotes and '' inside single quotes, or quote the value with the other kind`
		case unquotedPatternInFlow.MatchString(text):
			d.Hint = `quote a regular expression inside { } or [ ]: characters such as (? [ ] { } mean something to YAML there, e.g. match: {message: '(?i)hello'}`
		case strings.Contains(leadingSpace(text), "\t"):
			d.Hint = fmt.Sprintf("line %d is indented with a tab: YAML indents with spaces only", line)
		default:
			d.Hint = genericSyntaxHint(line, msg)
		}
	}
	return d
}

// genericSyntaxHint is the hint of a syntax error none of the usual causes explains.
// Most such errors in hand-written scenarios come from a line indented one level too
// deep or too shallow, an unclosed quote or bracket, or an unquoted value holding what
// YAML reads as its own syntax, so the hint says what to check on the line, as every
// other load problem says what to do.
func genericSyntaxHint(line int, problem string) string {
	switch {
	case strings.HasPrefix(problem, "did not find expected ',' or"):
		return fmt.Sprintf("close the { or [ that line %d opens or continues, separate its items with commas, and quote an item there that holds : [ ] { } or #", line)
	case problem == "found unexpected end of stream":
		return fmt.Sprintf("close the quote or bracket that line %d opens, or check the indentation of the lines after it", line)
	}
	return fmt.Sprintf(`check the indentation of line %d against the lines above it (a key lines up with the other keys of its mapping, a step's keys with the first one after its "- "), and quote a value there that holds ": " or " #" or starts with [ { > | * & ! %% or @`, line)
}

// leadingSpace returns the blanks a line starts with.
func leadingSpace(line string) string {
	return line[:len(line)-len(strings.TrimLeft(line, " \t"))]
}

// syntaxErrorLine finds the line of a YAML syntax error: the first line at which the
// text up to it already fails with the same problem. The line the decoder reports is
// not it: it counts from 0 for most errors, and names where the enclosing mapping or
// sequence starts rather than where the problem is, so it serves only as the lower
// bound of the search.
func syntaxErrorLine(lines []string, reported int, problem string) int {
	if len(lines) == 0 {
		return 1
	}
	lo := max(reported, 1)
	if lo > len(lines) {
		lo = 1 // reported at the end of the input: the problem began earlier
	}
	fails := func(n int) bool { return yamlProblem(strings.Join(lines[:n], "")) == problem }
	hi := len(lines)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// yamlProblem returns the syntax problem of a YAML text without its position, or "".
func yamlProblem(text string) string {
	dec := yaml.NewDecoder(strings.NewReader(text))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return ""
		}
		if err != nil {
			msg := strings.TrimPrefix(err.Error(), "yaml: ")
			if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
				msg = m[2]
			}
			return msg
		}
	}
}

// duplicateKeys reports every key written twice in one mapping, anywhere in a document:
// YAML forbids it, and the loader would take the last silently. It runs before aliases
// and merge keys (<<) are resolved: what an alias names is checked where it is written,
// and a key given next to a merge key overrides the merged one, as YAML intends.
func (l *fileLoader) duplicateKeys(n *yaml.Node) {
	var first map[string]int // the line of each key of a mapping
	if n.Kind == yaml.MappingNode {
		first = make(map[string]int, len(n.Content)/2)
	}
	for i, c := range n.Content { // in document order: each key, then what it holds
		if first != nil && i%2 == 0 && c.Kind == yaml.ScalarNode && (c.Value != "<<" || c.Style != 0) {
			if line, ok := first[c.Value]; ok {
				l.diag.add(l.pos(c), "", "duplicate key %q (first at line %d)", c.Value, line)
			} else {
				first[c.Value] = c.Line
			}
		}
		if c.Kind != yaml.AliasNode {
			l.duplicateKeys(c)
		}
	}
}

// MaxAliasNodes bounds the nodes that aliases add to one file: an alias adds every node
// of what it names each time it is written, and the loader walks the result. Aliases of
// a few step lists or mappings stay far below it; an alias bomb — ten levels of ten
// aliases, 10⁹ nodes from a few hundred bytes — is refused when it reaches it, after a
// few milliseconds, at the alias that went past it.
const MaxAliasNodes = 100_000

// aliasesChecked is how many nodes aliases add between two looks at the load's context.
const aliasesChecked = 1 << 12

// resolveAliases replaces aliases with copies of what they name and expands merge keys
// (<<), so the rest of the loader sees plain mappings, sequences and scalars. It reports
// false, with a diagnostic, when the aliases add more than MaxAliasNodes nodes to the
// file or the load's context is done; the document is then left half resolved, and is
// not to be read.
func (l *fileLoader) resolveAliases(n *yaml.Node) bool {
	return l.resolveNode(n, nil)
}

// resolveNode resolves the aliases under n, which is reached through the alias via (nil
// when n is written where it stands).
func (l *fileLoader) resolveNode(n, via *yaml.Node) bool {
	if via != nil {
		l.aliasNodes++
		switch {
		case l.aliasNodes > MaxAliasNodes:
			l.diag.add(l.pos(via), "an alias adds every node of what it names each time it is written: alias less, or write the repeated part out",
				"the aliases of this file add more than %d nodes (the alias *%s here goes past it)", MaxAliasNodes, via.Value)
			return false
		case l.aliasNodes%aliasesChecked == 0 && l.ctx.Err() != nil:
			l.diag.add(l.pos(via), "", "reading the file stopped: %v", context.Cause(l.ctx))
			return false
		}
	}
	for i, c := range n.Content {
		from := via
		if c.Kind == yaml.AliasNode && c.Alias != nil {
			clone := *c.Alias
			clone.Anchor = ""
			n.Content[i] = &clone
			if from == nil {
				from = c
			}
		}
		if !l.resolveNode(n.Content[i], from) {
			return false
		}
	}
	mergeKeys(n)
	return true
}

// mergeKeys expands the merge keys (<<) of a mapping whose aliases are resolved: a key
// given next to a merge key overrides the merged one.
func mergeKeys(n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		return
	}
	var kept, merged []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Value != "<<" || k.Style != 0 {
			kept = append(kept, k, v)
			continue
		}
		sources := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			sources = v.Content
		}
		for _, src := range sources {
			if src.Kind == yaml.MappingNode {
				merged = append(merged, src.Content...)
			}
		}
	}
	if merged == nil {
		return
	}
	have := map[string]bool{}
	for i := 0; i < len(kept); i += 2 {
		have[kept[i].Value] = true
	}
	for i := 0; i+1 < len(merged); i += 2 {
		if !have[merged[i].Value] {
			have[merged[i].Value] = true
			kept = append(kept, merged[i], merged[i+1])
		}
	}
	n.Content = kept
}
