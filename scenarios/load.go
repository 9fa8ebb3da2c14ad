package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"
	"time"

	"github.com/brianvoe/gofakeit/v7"
	"go.yaml.in/yaml/v3"
)

// MaxFileBytes is the largest scenario file the loader reads.
const MaxFileBytes = 4 << 20

// Source is a tree of scenario files.
type Source struct {
	FS    fs.FS
	Root  string // the directory inside FS to walk
	Label string // how file names are shown: Label joined with the path below Root
	// Omit lists ids of the source's scenarios that a set leaves out.
	Omit []string
	// Fallback marks a source whose scenarios give way to scenarios of the same id in
	// the other sources, as the built-in set does; elsewhere a repeated id is an error.
	Fallback bool
}

// IsScenarioFile reports whether a file name is one the loader reads: YAML files that
// are not hidden (editors' temporary and backup files start with a dot or end otherwise).
func IsScenarioFile(name string) bool {
	base := path.Base(name)
	return !strings.HasPrefix(base, ".") && (strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml"))
}

// ReadFiles walks a source and parses every scenario file in it. Hidden directories are
// skipped: they hold editor state, version control, or Kubernetes' ..data indirection,
// whose files are also reachable through the visible symlinks.
func ReadFiles(src Source) ([]*Scenario, []Diagnostic) {
	var files []string
	var diags []Diagnostic
	err := fs.WalkDir(src.FS, src.Root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			diags = append(diags, Diagnostic{File: display(src, p), Message: err.Error()})
		case d.IsDir() && p != src.Root && strings.HasPrefix(d.Name(), "."):
			return fs.SkipDir
		case !d.IsDir() && IsScenarioFile(p):
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		diags = append(diags, Diagnostic{File: src.Label, Message: err.Error()})
	}
	// Files parse independently, so they parse in parallel; results keep file order.
	lists := make([][]*Scenario, len(files))
	fileDiags := make([][]Diagnostic, len(files))
	parallel(len(files), func(i int) {
		name := display(src, files[i])
		data, err := ReadFile(src.FS, files[i])
		if err != nil {
			fileDiags[i] = []Diagnostic{{File: name, Message: err.Error()}}
			return
		}
		lists[i], fileDiags[i] = Parse(name, data)
	})
	var all []*Scenario
	for i := range files {
		all = append(all, lists[i]...)
		diags = append(diags, fileDiags[i]...)
	}
	return all, diags
}

// parallel calls work for every index from 0 to n-1, on as many goroutines as there are
// processors, and returns when all calls have.
func parallel(n int, work func(i int)) {
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				work(i)
			}
		})
	}
	wg.Wait()
}

func display(src Source, p string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(p, src.Root), "/")
	if src.Label == "" {
		return rel
	}
	if rel == "" {
		return src.Label
	}
	return path.Join(src.Label, rel)
}

// ReadFile reads a scenario file, or another file the loader's tools read, within
// MaxFileBytes. Only regular files (symbolic links followed) are opened: opening a named
// pipe would wait for a writer for good, and a device may never end.
func ReadFile(fsys fs.FS, name string) ([]byte, error) {
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s, not a regular file", fileKind(info.Mode()))
	}
	tooLarge := fmt.Errorf("the file is larger than the limit of %d MiB", MaxFileBytes>>20)
	if info.Size() > MaxFileBytes {
		return nil, tooLarge
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Read it whole in one call, and see EOF; the limit holds if the file grew since.
	buf := bytes.NewBuffer(make([]byte, 0, info.Size()+1))
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxFileBytes+1)); err != nil {
		return nil, err
	}
	if buf.Len() > MaxFileBytes {
		return nil, tooLarge
	}
	return buf.Bytes(), nil
}

// fileKind names what a file that is not a regular one is.
func fileKind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// Parse reads the scenarios of one YAML file; a file may hold several documents, and
// one that holds no scenario is a problem.
func Parse(file string, data []byte) ([]*Scenario, []Diagnostic) {
	l := &fileLoader{file: file, diag: &diagnostics{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var list []*Scenario
	for doc := 1; ; doc++ {
		var root yaml.Node
		err := dec.Decode(&root)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			l.diag.list = append(l.diag.list, yamlDiagnostic(file, data, err))
			break
		}
		if len(root.Content) == 0 || (root.Content[0].Kind == yaml.ScalarNode && root.Content[0].ShortTag() == "!!null") {
			continue // an empty document, e.g. after a trailing ---
		}
		l.duplicateKeys(root.Content[0])
		resolveAliases(root.Content[0], 0)
		if sc := l.scenario(root.Content[0], doc); sc != nil {
			list = append(list, sc)
		}
	}
	if len(l.diag.list) == 0 && len(list) == 0 {
		l.diag.list = append(l.diag.list, Diagnostic{File: file, Message: "the file holds no scenario",
			Hint: "it is empty, or holds only comments and empty documents; remove a file that is not needed"})
	}
	if len(l.diag.list) > 0 {
		return nil, l.diag.list
	}
	return list, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Hints for the usual causes of YAML syntax errors in scenarios, each recognized on the
// line of the error: a template as an unquoted value, and a quoted value that goes on
// after its closing quote (a quote inside it that is not escaped).
var (
	unquotedTemplateValue = regexp.MustCompile(`(?:^\s*-\s+|:\s+|[\[,]\s*)\{\{`)
	quoteInsideQuotes     = regexp.MustCompile(`(?:^\s*-\s+|:\s+)(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*')[ \t]*[^\s#,:\]}]`)
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
		}
	}
	return d
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

// maxAliasDepth bounds alias expansion; the YAML decoder already refuses documents
// that alias excessively.
const maxAliasDepth = 64

// resolveAliases replaces aliases with copies of what they name and expands merge keys
// (<<), so the rest of the loader sees plain mappings, sequences and scalars.
func resolveAliases(n *yaml.Node, depth int) {
	if depth > maxAliasDepth {
		return
	}
	for i, c := range n.Content {
		if c.Kind == yaml.AliasNode && c.Alias != nil {
			clone := *c.Alias
			clone.Anchor = ""
			n.Content[i] = &clone
		}
		resolveAliases(n.Content[i], depth+1)
	}
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

// fileLoader parses the scenarios of one file and collects its problems.
type fileLoader struct {
	file         string
	diag         *diagnostics
	templates    *template.Template // the template set of the scenario being parsed
	captureNames []string           // named groups of that scenario's message pattern
	stepIDs      []string           // ids of that scenario's steps, nested ones included
	verbatim     bool               // strings are data, not templates
	plain        map[string][]plainPart
}

func (l *fileLoader) pos(n *yaml.Node) pos { return pos{File: l.file, Line: n.Line, Column: n.Column} }

var scenarioKeys = []string{"id", "description", "priority", "broken", "match", "timing", "steps", "events", "next", "result", "examples"}

func (l *fileLoader) scenario(n *yaml.Node, doc int) *Scenario {
	f := l.fields(n, "a scenario", scenarioKeys)
	if f == nil {
		return nil
	}
	base := strings.TrimSuffix(strings.TrimSuffix(path.Base(l.file), ".yaml"), ".yml")
	sc := &Scenario{ID: base, Source: l.pos(n)}
	if doc > 1 {
		sc.ID = fmt.Sprintf("%s#%d", base, doc)
	}
	l.templates = template.New(l.file).Funcs(funcMap(gofakeit.New(1), func(string) string { return "" }))
	l.plain = map[string][]plainPart{}
	l.captureNames = nil
	l.stepIDs = nil
	if v := f["id"]; v != nil {
		sc.ID = l.str(v)
		if sc.ID == "" || strings.ContainsAny(sc.ID, " \t\n/") {
			l.diag.add(l.pos(v), "use letters, digits, dashes, dots and underscores", "invalid scenario id %q", sc.ID)
		}
	}
	if v := f["description"]; v != nil {
		sc.Description = l.str(v)
	}
	if v := f["priority"]; v != nil {
		sc.Priority = l.int(v)
	}
	if v := f["broken"]; v != nil {
		sc.Broken = l.str(v)
		if strings.TrimSpace(sc.Broken) == "" {
			l.diag.add(l.pos(v), "", "broken needs the reason the scenario breaks the protocol on purpose")
		}
	}
	if v := f["match"]; v != nil {
		sc.Match = l.match(v)
	}
	if v := f["timing"]; v != nil {
		sc.Timing = l.timing(v)
	}
	if v := f["examples"]; v != nil {
		sc.Examples = l.examples(v)
	}
	switch steps, events := f["steps"], f["events"]; {
	case steps != nil && events != nil:
		l.diag.add(l.pos(events), "use steps for scripted runs, events for an explicit event list", "a scenario has either steps or events, not both")
	case steps != nil:
		sc.steps = l.steps(steps)
	case events != nil:
		sc.run = &eventsRun{events: l.explicitEvents(events), next: l.branches(f["next"])}
	default:
		l.diag.add(l.pos(n), "", "a scenario needs steps (or an explicit events list)")
	}
	if v := f["next"]; v != nil && f["events"] == nil {
		l.diag.add(l.pos(v), "the steps form continues with interrupt and tool steps", "next belongs to the explicit events form")
	}
	if v := f["result"]; v != nil {
		if events := f["events"]; events != nil {
			l.diag.add(l.pos(v), "put the result on the RUN_FINISHED event", "result belongs to the steps form")
		}
		sc.result = l.valueFromNode(v)
	}
	addTicks(l.templates)
	sc.templates, sc.plain, sc.stepIDs = l.templates, l.plain, l.stepIDs
	return sc
}

// matchKeys are the criteria of a match; an example gives the same parts of a request,
// and its context, so examples and match read forwardedProps, state and tools alike.
var matchKeys = []string{"route", "message", "forwardedProps", "state", "tools", "headers"}

func (l *fileLoader) match(n *yaml.Node) Match {
	var m Match
	f := l.fields(n, "match", matchKeys)
	if v := f["route"]; v != nil {
		m.Routes = l.strings(v)
		for i, r := range m.Routes {
			if !strings.HasPrefix(r, "/") {
				l.diag.add(l.pos(v), "", "route %q must start with /", r)
			}
			m.Routes[i] = strings.TrimSuffix(r, "/")
			if m.Routes[i] == "" {
				m.Routes[i] = "/"
			}
		}
	}
	if v := f["message"]; v != nil {
		m.Message = l.regex(v)
		if m.Message != nil {
			m.prefix = prefixOf(m.Message)
			for _, name := range m.Message.SubexpNames() {
				if name != "" {
					l.captureNames = append(l.captureNames, name)
				}
			}
		}
	}
	if v := f["forwardedProps"]; v != nil {
		m.ForwardedProps = l.literalMapping(v, "match.forwardedProps")
	}
	if v := f["state"]; v != nil {
		m.State = l.literal(v)
	}
	if v := f["tools"]; v != nil {
		m.Tools = l.strings(v)
	}
	if v := f["headers"]; v != nil {
		hf := l.fields(v, "match.headers", nil)
		m.Headers = map[string]*regexp.Regexp{}
		for name, hv := range hf {
			if re := l.regex(hv); re != nil {
				m.Headers[strings.ToLower(name)] = re
			}
		}
	}
	return m
}

var timingKeys = []string{"firstEvent", "firstToken", "stepGap", "tokensPerSecond", "jitter"}

func (l *fileLoader) timing(n *yaml.Node) TimingOverride {
	var t TimingOverride
	f := l.fields(n, "timing", timingKeys)
	durations := map[string]**time.Duration{"firstEvent": &t.FirstEvent, "firstToken": &t.FirstToken, "stepGap": &t.StepGap}
	for key, dst := range durations {
		if v := f[key]; v != nil {
			d := l.duration(v)
			*dst = &d
		}
	}
	if v := f["tokensPerSecond"]; v != nil {
		t.TokensPerSecond = l.tokensPerSecond(v)
	}
	if v := f["jitter"]; v != nil {
		j := l.float(v)
		if j < 0 || j > 1 {
			l.diag.add(l.pos(v), "", "jitter is a fraction from 0 to 1")
		}
		t.Jitter = &j
	}
	return t
}

var (
	exampleKeys     = append(slices.Clip(matchKeys), "context")
	contextItemKeys = []string{"description", "value"}
)

func (l *fileLoader) examples(n *yaml.Node) []Example {
	if n.Kind != yaml.SequenceNode {
		l.diag.add(l.pos(n), "", "examples must be a list of requests")
		return nil
	}
	var list []Example
	for _, item := range n.Content {
		f := l.fields(item, "an example", exampleKeys)
		ex := Example{pos: l.pos(item)}
		if v := f["route"]; v != nil {
			ex.Route = l.str(v)
		}
		if v := f["message"]; v != nil {
			ex.Message = l.str(v)
		}
		if v := f["forwardedProps"]; v != nil {
			ex.ForwardedProps = l.literalMapping(v, "an example's forwardedProps")
		}
		if v := f["state"]; v != nil {
			ex.State = l.literal(v)
		}
		if v := f["tools"]; v != nil {
			ex.Tools = l.strings(v)
		}
		if v := f["headers"]; v != nil {
			ex.Headers = map[string]string{}
			for k, hv := range l.fields(v, "example headers", nil) {
				ex.Headers[k] = l.str(hv)
			}
		}
		if v := f["context"]; v != nil {
			ex.Context = l.exampleContext(v)
		}
		list = append(list, ex)
	}
	return list
}

// exampleContext reads an example's context: a list of {description, value}.
func (l *fileLoader) exampleContext(n *yaml.Node) []ContextItem {
	if n.Kind != yaml.SequenceNode {
		l.diag.add(l.pos(n), "", "an example's context must be a list of {description, value}")
		return nil
	}
	items := make([]ContextItem, 0, len(n.Content))
	for _, it := range n.Content {
		var item ContextItem
		f := l.fields(it, "an example's context item", contextItemKeys)
		if v := f["description"]; v != nil {
			item.Description = l.str(v)
		}
		if v := f["value"]; v != nil {
			item.Value = l.str(v)
		}
		items = append(items, item)
	}
	return items
}

// fields reads a mapping and reports keys outside allowed (nil allows any key).
func (l *fileLoader) fields(n *yaml.Node, what string, allowed []string) map[string]*yaml.Node {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if l.unquotedTemplate(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		l.diag.add(l.pos(n), "", "%s must be a mapping", what)
		return nil
	}
	out := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if allowed != nil && !slices.Contains(allowed, k.Value) {
			l.diag.add(l.pos(k), suggest(k.Value, allowed), "unknown key %q in %s", k.Value, what)
			continue
		}
		out[k.Value] = v
	}
	return out
}

// unquotedTemplate reports a mapping whose key is itself a mapping: what YAML makes of
// an unquoted template such as text: {{ .message }}.
func (l *fileLoader) unquotedTemplate(n *yaml.Node) bool {
	if n.Kind != yaml.MappingNode || len(n.Content) < 2 || n.Content[0].Kind != yaml.MappingNode {
		return false
	}
	l.diag.add(l.pos(n), `quote values that start with "{{", e.g. text: "{{ .message }}"`, "YAML read an unquoted template as a mapping")
	return true
}

// suggest names the closest allowed key, for typos.
func suggest(got string, allowed []string) string {
	best, ok := Closest(got, allowed)
	if !ok {
		return "allowed keys: " + strings.Join(allowed, ", ")
	}
	return fmt.Sprintf("did you mean %q?", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func (l *fileLoader) scalar(n *yaml.Node, what string) bool {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode {
		l.diag.add(l.pos(n), "", "expected %s", what)
		return false
	}
	return true
}

// name reads a string the scenario uses as written, such as a tool or step name, where a
// template would be sent with its braces.
func (l *fileLoader) name(n *yaml.Node, what string) string {
	s := l.str(n)
	if strings.Contains(s, "{{") {
		l.diag.add(l.pos(n), "", "%s cannot be a template", what)
	}
	return s
}

func (l *fileLoader) str(n *yaml.Node) string {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if !l.scalar(n, "a string") {
		return ""
	}
	if n.ShortTag() == "!!null" {
		l.diag.add(l.pos(n), `write the text after the colon; quote "null" to send that word`, "expected a string, got null")
		return ""
	}
	return n.Value
}

// text reads a member sent as text, such as a message's content: a string, or a number
// or boolean sent as it is written. Null, mappings and lists are refused, as AG-UI
// carries text there; what is a mapping with a mapping key gets the hint to quote a
// template. A whole template there renders as text too (see value.asText).
func (l *fileLoader) text(n *yaml.Node, what string) *value {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if l.unquotedTemplate(n) {
		return &value{}
	}
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null":
		l.diag.add(l.pos(n), `write the text after the colon; quote "null" to send that word`, "%s must be a string, got null", what)
	case n.Kind != yaml.ScalarNode:
		l.diag.add(l.pos(n), "quote it to send the characters as written", "%s must be a string, got %s", what, nodeKind(n))
	default:
		return l.valueFromNode(n).asText(what)
	}
	return &value{}
}

// nodeKind names the kind of a YAML node that is not a scalar, for messages.
func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return "a document"
}

func (l *fileLoader) strings(n *yaml.Node) []string {
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	if n.Kind != yaml.SequenceNode {
		l.diag.add(l.pos(n), "", "expected a string or a list of strings")
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for _, it := range n.Content {
		out = append(out, l.str(it))
	}
	return out
}

func (l *fileLoader) int(n *yaml.Node) int {
	if !l.scalar(n, "an integer") {
		return 0
	}
	i, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil {
		l.diag.add(l.pos(n), "", "expected an integer, got %q", n.Value)
	}
	return int(i)
}

func (l *fileLoader) float(n *yaml.Node) float64 {
	if !l.scalar(n, "a number") {
		return 0
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		l.diag.add(l.pos(n), "", "expected a number, got %q", n.Value)
		return 0
	}
	return f
}

func (l *fileLoader) bool(n *yaml.Node) bool {
	if !l.scalar(n, "true or false") {
		return false
	}
	if n.ShortTag() != "!!bool" {
		l.diag.add(l.pos(n), "", "expected true or false, got %q", n.Value)
		return false
	}
	b, err := strconv.ParseBool(n.Value)
	if err != nil {
		l.diag.add(l.pos(n), "", "expected true or false, got %q", n.Value)
	}
	return b
}

// duration reads "250ms", "1.5s" or a number of milliseconds.
func (l *fileLoader) duration(n *yaml.Node) time.Duration {
	if !l.scalar(n, "a duration") {
		return 0
	}
	if ms, err := strconv.ParseFloat(n.Value, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if ms < 0 || math.IsNaN(ms) || ms > float64(math.MaxInt64/int64(time.Millisecond)) {
			l.diag.add(l.pos(n), "write e.g. 250ms, 1.5s, or a number of milliseconds", "invalid duration %q", n.Value)
			return 0
		}
		return time.Duration(ms * float64(time.Millisecond))
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil || d < 0 {
		l.diag.add(l.pos(n), `write e.g. 250ms, 1.5s, or a number of milliseconds`, "invalid duration %q", n.Value)
	}
	return d
}

func (l *fileLoader) regex(n *yaml.Node) *regexp.Regexp {
	src := l.str(n)
	re, err := regexp.Compile(src)
	if err != nil {
		l.diag.add(l.pos(n), "patterns use Go regexp (RE2) syntax; (?i) makes them case-insensitive", "invalid regular expression: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		return nil
	}
	return re
}

// literal reads a JSON value whose strings are taken as written (match criteria).
func (l *fileLoader) literal(n *yaml.Node) any {
	l.verbatim = true
	defer func() { l.verbatim = false }()
	return l.valueFromNode(n).literal
}

// literalMapping reads a literal that must be a mapping, such as forwardedProps; what
// names it in the problem reported otherwise.
func (l *fileLoader) literalMapping(n *yaml.Node, what string) map[string]any {
	m, ok := l.literal(n).(map[string]any)
	if !ok {
		l.diag.add(l.pos(n), "", "%s must be a mapping", what)
	}
	return m
}

// tokensPerSecond reads a streaming rate, of a scenario's timing or of one step.
func (l *fileLoader) tokensPerSecond(n *yaml.Node) *float64 {
	tps := l.float(n)
	if tps < 0 {
		l.diag.add(l.pos(n), "0 streams without delays between tokens", "tokensPerSecond must not be negative")
	}
	return &tps
}
