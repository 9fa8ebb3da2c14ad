package scenarios

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"text/template"
	"time"

	"github.com/brianvoe/gofakeit/v7"
	"go.yaml.in/yaml/v3"
)

// Parse reads the scenarios of one YAML file; a file may hold several documents, and
// one that holds no scenario is a problem.
func Parse(file string, data []byte) ([]*Scenario, []Diagnostic) {
	return ParseContext(context.Background(), file, data)
}

// ParseContext is Parse that stops, with a diagnostic, when ctx is done while it
// resolves the file's aliases.
func ParseContext(ctx context.Context, file string, data []byte) ([]*Scenario, []Diagnostic) {
	l := &fileLoader{ctx: ctx, file: file, diag: &diagnostics{}}
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
		if !l.resolveAliases(root.Content[0]) {
			break
		}
		if isThreadDocument(root.Content[0]) {
			if sc := l.threadDocument(root.Content[0]); sc != nil {
				list = append(list, sc)
			}
			continue
		}
		if d, past := l.runPastLimit(root.Content[0]); past {
			l.diag.list = append(l.diag.list, d) // refused before its steps are built
			continue
		}
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

// fileLoader parses the scenarios of one file and collects its problems.
type fileLoader struct {
	ctx          context.Context // the load's: resolving aliases stops when it is done
	aliasNodes   int             // the nodes aliases added to the file so far
	file         string
	diag         *diagnostics
	templates    *template.Template // the template set of the scenario being parsed, or nil
	captureNames []string           // named groups of that scenario's message pattern
	stepIDs      []string           // ids of that scenario's steps, nested ones included
	verbatim     bool               // strings are data, not templates
	dialect      Dialect            // that scenario's dialect, as it says it
	plain        map[string][]plainPart
	subagents    int // how many subagent steps the steps being read are inside
}

func (l *fileLoader) pos(n *yaml.Node) pos { return pos{File: l.file, Line: n.Line, Column: n.Column} }

var scenarioKeys = []string{keyID, keyDescription, keyPriority, keyBroken, keyBreaks, keyStopped, keyDialect, keyMatch, keyTiming, keySteps, keyEvents, keyNext, keyResult, keyUsage, keyExamples}

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
	l.templates = nil // made by the scenario's first template (templateSet)
	l.plain = map[string][]plainPart{}
	l.captureNames = nil
	l.stepIDs = nil
	if v := f[keyID]; v != nil {
		sc.ID = l.str(v)
		if sc.ID == "" || strings.ContainsAny(sc.ID, " \t\n/") {
			l.diag.add(l.pos(v), "use letters, digits, dashes, dots and underscores", "invalid scenario id %q", sc.ID)
		}
	}
	if v := f[keyDescription]; v != nil {
		sc.Description = l.str(v)
	}
	if v := f[keyPriority]; v != nil {
		sc.Priority = l.int(v)
	}
	if v := f[keyBroken]; v != nil {
		sc.Broken = l.str(v)
		if strings.TrimSpace(sc.Broken) == "" {
			l.diag.add(l.pos(v), "", "broken needs the reason the scenario breaks the protocol on purpose")
		}
	}
	if v := f[keyBreaks]; v != nil {
		sc.Breaks = l.breaks(v)
	}
	if v := f[keyStopped]; v != nil {
		sc.Stopped = l.stopped(f, "scenario")
		if f[keyEvents] == nil {
			l.diag.add(l.pos(v), "list the events the run sends before it stops", "stopped belongs to the explicit events form")
		}
	}
	l.dialect = ""
	if v := f[keyDialect]; v != nil {
		d, err := ParseDialect(l.str(v))
		if err != nil {
			l.diag.add(l.pos(v), "agui (the default: RUN_FINISHED with an interrupt outcome) or langgraph (an on_interrupt custom event)", "%v", err)
		}
		sc.Dialect, l.dialect = d, d
	}
	if v := f[keyMatch]; v != nil {
		sc.Match = l.match(v)
	}
	if v := f[keyTiming]; v != nil {
		sc.Timing = l.timing(v)
	}
	if v := f[keyExamples]; v != nil {
		sc.Examples = l.examples(v)
	}
	switch steps, events := f[keySteps], f[keyEvents]; {
	case steps != nil && events != nil:
		l.diag.add(l.pos(events), "use steps for scripted runs, events for an explicit event list", "a scenario has either steps or events, not both")
	case steps != nil:
		sc.steps = l.steps(steps)
	case events != nil:
		sc.run = &eventsRun{events: l.explicitEvents(events), next: l.branches(f[keyNext]), stopped: sc.Stopped}
	default:
		l.diag.add(l.pos(n), "", "a scenario needs steps (or an explicit events list)")
	}
	if v := f[keyNext]; v != nil && f[keyEvents] == nil {
		l.diag.add(l.pos(v), "the steps form continues with interrupt and tool steps", "next belongs to the explicit events form")
	}
	if v := f[keyResult]; v != nil {
		if events := f[keyEvents]; events != nil {
			l.diag.add(l.pos(v), "put the result on the RUN_FINISHED event", "result belongs to the steps form")
		}
		sc.result = l.valueFromNode(v)
	}
	if v := f[keyUsage]; v != nil {
		if f[keyEvents] != nil {
			l.diag.add(l.pos(v), "put usage on the RUN_FINISHED or RUN_ERROR event", "usage belongs to the steps form")
		}
		sc.usage = l.usage(v)
	}
	if l.templates != nil {
		addTicks(l.templates)
	}
	sc.templates, sc.plain, sc.stepIDs = l.templates, l.plain, l.stepIDs
	return sc
}

// templateSet returns the template set of the scenario being parsed, making it on first
// use: its functions cost more than a scenario of a few steps, and most strings are no
// templates.
func (l *fileLoader) templateSet() *template.Template {
	if l.templates == nil {
		l.templates = template.New(l.file).Funcs(funcMap(gofakeit.New(1), func(string) string { return "" }))
	}
	return l.templates
}

// routes reads the routes of a match or an example: each starts with /, which a trailing
// / is trimmed from but the root's.
func (l *fileLoader) routes(v *yaml.Node) []string {
	routes := l.strings(v)
	for i, r := range routes {
		if !strings.HasPrefix(r, "/") {
			l.diag.add(l.pos(v), "", "route %q must start with /", r)
		}
		routes[i] = strings.TrimSuffix(r, "/")
		if routes[i] == "" {
			routes[i] = "/"
		}
	}
	return routes
}

// agents reads the agents of a match or an example: none empty.
func (l *fileLoader) agents(v *yaml.Node) []string {
	agents := l.strings(v)
	for _, a := range agents {
		if a == "" {
			l.diag.add(l.pos(v), "e.g. agent: default", "an agent id must not be empty")
		}
	}
	return agents
}

// one is the one value an example gives of a part a match may give several of (its
// routes, its agents): "" for none, and a problem, with hint and message, for more.
func (l *fileLoader) one(v *yaml.Node, values []string, hint, message string) string {
	switch len(values) {
	case 0:
		return ""
	case 1:
		return values[0]
	}
	l.diag.add(l.pos(v), hint, "%s", message)
	return ""
}

// headers reads the headers of a match or an example, by name as written; label names
// them in the problems reported.
func (l *fileLoader) headers(v *yaml.Node, label string) map[string]*yaml.Node {
	return l.fields(v, label+keyHeaders, nil)
}

// messagePattern reads a match's message pattern, and what cheap rejection and the
// index need of it: its literal prefix, the literals and trigrams it requires, and its
// named groups, which the scenario's templates may read.
func (l *fileLoader) messagePattern(v *yaml.Node, m *Match) {
	m.Message = l.regex(v)
	if m.Message == nil {
		return
	}
	m.prefix, m.literals = prefixOf(m.Message), requiredLiterals(m.Message)
	m.trigrams = trigramsOf(m.literals)
	for _, name := range m.Message.SubexpNames() {
		if name != "" {
			l.captureNames = append(l.captureNames, name)
		}
	}
}

// contextParts is what a match or an example says of one context item: its
// description and value, either left out.
type contextParts struct {
	at                 *yaml.Node
	description, value *yaml.Node
}

// contextParts reads a list of {description, value}; label names it in the problems
// reported.
func (l *fileLoader) contextParts(n *yaml.Node, label string) []contextParts {
	if n.Kind != yaml.SequenceNode {
		l.diag.add(l.pos(n), "e.g. context: [{description: locale, value: de-DE}]", "%scontext must be a list of {description, value}", label)
		return nil
	}
	items := make([]contextParts, 0, len(n.Content))
	for _, it := range n.Content {
		f := l.fields(it, label+"context item", contextItemKeys)
		if f == nil {
			continue
		}
		if len(f) == 0 {
			l.diag.add(l.pos(it), "", "%scontext item needs a description or a value", label)
		}
		items = append(items, contextParts{at: it, description: f[keyDescription], value: f[keyValue]})
	}
	return items
}

// readParts reads a context item's description and value with read; a part left out
// is the zero value.
func readParts[T any](c contextParts, read func(*yaml.Node) T) (description, value T) {
	if c.description != nil {
		description = read(c.description)
	}
	if c.value != nil {
		value = read(c.value)
	}
	return description, value
}

// match reads a scenario's match, each part by its row of criteria.
func (l *fileLoader) match(n *yaml.Node) Match {
	f := l.fields(n, "match", requestKeys)
	var m Match
	for i := range criteria {
		if v := f[criteria[i].name]; v != nil {
			criteria[i].readMatch(l, v, &m)
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
	exampleKeys     = requestKeys
	contextItemKeys = []string{keyDescription, keyValue}
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
		for i := range criteria {
			if v := f[criteria[i].name]; v != nil {
				criteria[i].readExample(l, v, &ex)
			}
		}
		if v := f[keyConversation]; v != nil && (f[keyMessage] != nil || f[keySystem] != nil) {
			l.diag.add(l.pos(v), "write the system and user messages into the conversation", "an example's conversation is every message its request sends: it takes no message or system besides")
		}
		list = append(list, ex)
	}
	return list
}

var toolKeys = []string{keyName, keyDescription, keyParameters, keyMetadata}

// exampleTools reads the tools an example's client offers: a name, or a list of names
// and definitions ({name, description, parameters, metadata}, as RunAgentInput.tools
// has them).
func (l *fileLoader) exampleTools(n *yaml.Node) []ExampleTool {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	tools := make([]ExampleTool, 0, len(items))
	for _, it := range items {
		if it.Kind == yaml.ScalarNode {
			tools = append(tools, ExampleTool{Name: l.str(it)})
			continue
		}
		if it.Kind != yaml.MappingNode {
			l.diag.add(l.pos(it), "", "an example's tool is a name or a mapping of name, description and parameters")
			continue
		}
		f := l.fields(it, "an example's tool", toolKeys)
		var tool ExampleTool
		if v := f[keyName]; v != nil {
			tool.Name = l.str(v)
		} else {
			l.diag.add(l.pos(it), "", "an example's tool needs a name")
		}
		if v := f[keyDescription]; v != nil {
			tool.Description = l.str(v)
		}
		if v := f[keyParameters]; v != nil {
			tool.Parameters = l.literalMapping(v, "an example's tool parameters")
		}
		if v := f[keyMetadata]; v != nil {
			tool.Metadata = l.literalMapping(v, "an example's tool metadata")
		}
		tools = append(tools, tool)
	}
	return tools
}
