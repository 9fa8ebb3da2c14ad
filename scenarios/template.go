package scenarios

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"
	"time"

	"github.com/brianvoe/gofakeit/v7"
	"go.yaml.in/yaml/v3"
)

// maxRenderBytes caps what one template may produce, so a runaway range cannot eat memory.
const maxRenderBytes = 1 << 20

// templateRoots are the names templates can read from the request; see renderData.
var templateRoots = []string{"threadId", "runId", "parentRunId", "route", "message", "parts", "captures",
	"forwardedProps", "state", "context", "tools", "messages", "headers", "answer", "resume"}

// funcMap is the allow-list of functions templates can call. Fake data comes from the
// run's own seeded faker; id returns the run's fresh id for a local name.
func funcMap(f *gofakeit.Faker, id func(name string) string) template.FuncMap {
	return template.FuncMap{
		"id":      id,
		"json":    toJSON,
		"default": func(def, v any) any { return defaultValue(def, v) },
		"upper":   strings.ToUpper,
		"lower":   strings.ToLower,
		"trim":    strings.TrimSpace,
		"join":    func(sep string, items []any) string { return joinAny(sep, items) },
		"last":    lastItem,
		"kind":    kindOf,
		"now":     formatNow(time.Now),
		"fromNow": after(time.Now),

		"Name": f.Name, "FirstName": f.FirstName, "LastName": f.LastName, "Email": f.Email,
		"Username": f.Username, "Phone": f.Phone, "City": f.City, "Country": f.Country,
		"Street": f.Street, "Company": f.Company, "JobTitle": f.JobTitle, "UUID": f.UUID,
		"Word": f.Word, "Noun": f.Noun, "Verb": f.Verb, "Adjective": f.Adjective,
		"Question": f.Question, "Quote": f.Quote, "HackerPhrase": f.HackerPhrase,
		"ProductName": f.ProductName, "URL": f.URL, "DomainName": f.DomainName,
		"IPv4Address": f.IPv4Address, "Emoji": f.Emoji, "Bool": f.Bool, "Color": f.Color,
		"Number": func(lo, hi int) int { return f.Number(min(lo, hi), max(lo, hi)) },
		"Price":  func(lo, hi float64) string { return fmt.Sprintf("%.2f", f.Price(lo, hi)) },
		"Date":   func() string { return f.Date().UTC().Format(time.RFC3339) },
		// Sentence and Paragraph take their sizes, capped, unlike gofakeit's own versions,
		// which ignore them.
		"Sentence": func(words ...int) string {
			if len(words) > 0 && words[0] > 0 {
				return f.LoremIpsumSentence(min(words[0], 500))
			}
			return f.Sentence()
		},
		"Paragraph": func(sentences ...int) string {
			n := 4
			if len(sentences) > 0 && sentences[0] > 0 {
				n = min(sentences[0], 50)
			}
			parts := make([]string, n)
			for i := range parts {
				parts[i] = f.Sentence()
			}
			return strings.Join(parts, " ")
		},
	}
}

// formatNow makes the now function: the time from returns, in RFC 3339.
func formatNow(from func() time.Time) func() string {
	return func() string { return from().UTC().Format(time.RFC3339) }
}

// after makes the fromNow function: the RFC 3339 time a Go duration such as 10m after
// the time from returns. A run counts from when the event is sent.
func after(from func() time.Time) func(d string) (string, error) {
	return func(d string) (string, error) {
		dur, err := time.ParseDuration(d)
		if err != nil {
			return "", fmt.Errorf("fromNow %q: not a duration such as 10m or 1m30s", d)
		}
		return from().Add(dur).UTC().Format(time.RFC3339Nano), nil
	}
}

// TemplateFuncs returns the names of the functions scenario templates may call.
func TemplateFuncs() []string {
	names := make([]string, 0, 40)
	for name := range funcMap(gofakeit.New(1), nil) {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func toJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

func defaultValue(def, v any) any {
	if v == nil || v == "" {
		return def
	}
	return v
}

// kindOf names the JSON type of a value: object, list, string, number, bool, or null
// for a value the request does not have, so templates can read request data of any
// shape without failing, e.g. {{ if eq (kind .metadata) "object" }}.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "bool"
	case json.Number:
		return "number"
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Slice, reflect.Array:
		return "list"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	}
	return "null"
}

// lastItem returns a list's last element, e.g. {{ (last .messages).id }}.
func lastItem(items []any) any {
	if len(items) == 0 {
		return nil
	}
	return items[len(items)-1]
}

func joinAny(sep string, items []any) string {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = fmt.Sprint(it)
	}
	return strings.Join(parts, sep)
}

// compileTemplate parses a templated string into the scenario's template set and checks
// the request fields it reads. It returns the template's name, or "" after a problem.
func (l *fileLoader) compileTemplate(n *yaml.Node) string {
	p := l.pos(n)
	name := p.String()
	t, err := l.templates.New(name).Parse(n.Value)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "template: "+name+":")
		l.diag.add(p, "templates use Go text/template syntax, e.g. {{ .message }} or {{ Name }}", "template error: %s", msg)
		return ""
	}
	for _, problem := range l.checkFields(t.Tree.Root, true) {
		l.diag.add(p, "", "template error: %s", problem)
	}
	if parts, ok := plainParts(t.Tree.Root); ok {
		l.plain[name] = parts
	}
	return name
}

// plainPart is a piece of a template that only prints request data or a local id:
// literal text, the value at a path such as .captures.topic, or {{ id "name" }}.
type plainPart struct {
	text    string
	path    []string
	localID bool // text is the local name of an id
}

// plainParts splits a template made only of text and plain field references, which
// render without text/template; it reports false for anything else.
func plainParts(root *parse.ListNode) ([]plainPart, bool) {
	var parts []plainPart
	for _, n := range root.Nodes {
		switch x := n.(type) {
		case *parse.TextNode:
			parts = append(parts, plainPart{text: string(x.Text)})
		case *parse.ActionNode:
			if len(x.Pipe.Decl) > 0 || len(x.Pipe.Cmds) != 1 {
				return nil, false
			}
			switch args := x.Pipe.Cmds[0].Args; len(args) {
			case 1:
				field, ok := args[0].(*parse.FieldNode)
				if !ok {
					return nil, false
				}
				parts = append(parts, plainPart{path: field.Ident})
			case 2:
				fn, isIdent := args[0].(*parse.IdentifierNode)
				name, isString := args[1].(*parse.StringNode)
				if !isIdent || fn.Ident != "id" || !isString {
					return nil, false
				}
				parts = append(parts, plainPart{text: name.Text, localID: true})
			default:
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return parts, true
}

// renderPlain renders a plain template: a path the request lacks renders as nothing.
// root gives the value of a top-level name, localID the id of a local name.
func renderPlain(parts []plainPart, root func(name string) any, localID func(name string) string) string {
	if len(parts) == 1 { // the usual "{{ .threadId }}" or "{{ id `m` }}": no copy
		return renderPlainPart(parts[0], root, localID)
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(renderPlainPart(p, root, localID))
	}
	return b.String()
}

func renderPlainPart(p plainPart, root func(name string) any, localID func(name string) string) string {
	switch {
	case p.localID:
		return localID(p.text)
	case p.path == nil:
		return p.text
	}
	v := root(p.path[0])
	for _, key := range p.path[1:] {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[key]
	}
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	default:
		return fmt.Sprint(x)
	}
}

// checkFields reports references to request data that no request can have: unknown
// top-level names and regex captures the scenario's message pattern does not define.
// Below range and with, the dot is no longer the request, so only $-rooted paths count.
func (l *fileLoader) checkFields(node parse.Node, atRoot bool) []string {
	var problems []string
	checkPath := func(idents []string) {
		if len(idents) == 0 {
			return
		}
		if !slices.Contains(templateRoots, idents[0]) {
			problems = append(problems, fmt.Sprintf(".%s is not request data (one of .%s)", idents[0], strings.Join(templateRoots, ", .")))
			return
		}
		if idents[0] == "captures" && len(idents) > 1 && !slices.Contains(l.captureNames, idents[1]) {
			if len(l.captureNames) == 0 {
				problems = append(problems, fmt.Sprintf(".captures.%s: match.message defines no named groups", idents[1]))
			} else {
				problems = append(problems, fmt.Sprintf(".captures.%s: match.message defines only %s", idents[1], strings.Join(l.captureNames, ", ")))
			}
		}
	}
	var walk func(n parse.Node, atRoot bool)
	walk = func(n parse.Node, atRoot bool) {
		switch x := n.(type) {
		case *parse.ListNode:
			if x != nil {
				for _, c := range x.Nodes {
					walk(c, atRoot)
				}
			}
		case *parse.ActionNode:
			walk(x.Pipe, atRoot)
		case *parse.PipeNode:
			if x != nil {
				for _, c := range x.Cmds {
					walk(c, atRoot)
				}
			}
		case *parse.CommandNode:
			for _, a := range x.Args {
				walk(a, atRoot)
			}
		case *parse.FieldNode:
			if atRoot {
				checkPath(x.Ident)
			}
		case *parse.VariableNode:
			if len(x.Ident) > 1 && x.Ident[0] == "$" {
				checkPath(x.Ident[1:])
			}
		case *parse.ChainNode:
			walk(x.Node, atRoot)
		case *parse.IfNode:
			walk(x.Pipe, atRoot)
			walk(x.List, atRoot)
			walk(x.ElseList, atRoot)
		case *parse.RangeNode:
			walk(x.Pipe, atRoot)
			walk(x.List, false)
			walk(x.ElseList, atRoot)
		case *parse.WithNode:
			walk(x.Pipe, atRoot)
			walk(x.List, false)
			walk(x.ElseList, atRoot)
		case *parse.TemplateNode:
			walk(x.Pipe, atRoot)
		}
	}
	walk(node, atRoot)
	return problems
}

// renderer executes a scenario's templates for one run. Plain templates render
// directly; the others need the template set cloned with the run's own faker and ids,
// which is done on first use, so a run whose templates are plain never pays for it.
type renderer struct {
	plain   map[string][]plainPart
	base    *template.Template
	funcs   func() template.FuncMap
	set     *template.Template
	newData func() map[string]any         // what templates read, built on first use
	scalar  func(name string) (any, bool) // one of its plain values, without building it
	localID func(name string) string      // the template function id
	data    map[string]any
	answer  any   // the answer the current branch follows, if any
	resume  []any // the run's answers, if it resumes
	buf     strings.Builder
}

// setAnswer sets the answer templates read as .answer.
func (r *renderer) setAnswer(answer any) {
	r.answer = answer
	if r.data != nil {
		r.data["answer"] = orEmpty(answer)
	}
}

// setResume sets the answers templates read as .resume.
func (r *renderer) setResume(resume []any) {
	r.resume = resume
	if r.data != nil {
		r.data["resume"] = orList(resume)
	}
}

// root returns one top-level value templates read, building them all only when the
// value is not a plain one of the request.
func (r *renderer) root(name string) any {
	if r.data == nil {
		if v, ok := r.scalar(name); ok {
			return v
		}
	}
	return r.values()[name]
}

// values returns what templates read, building it on first use: most runs render only
// literal text and never need it.
func (r *renderer) values() map[string]any {
	if r.data == nil {
		r.data = r.newData()
		r.data["answer"], r.data["resume"] = orEmpty(r.answer), orList(r.resume)
	}
	return r.data
}

var errRenderTooLarge = errors.New("template output exceeds 1 MiB")

// text/template's execution errors read "template: NAME:LINE:COL: executing "NAME" at
// <ACTION>: PROBLEM"; these pick out the action and the problem.
var (
	execAt         = regexp.MustCompile(`executing ".*" at <(.*)>: (.*)$`)
	callProblem    = regexp.MustCompile(`^error calling (\w+): (.*)$`)
	fieldOfNonMap  = regexp.MustCompile(`^can't evaluate field (\w+) in type (.*)$`)
	missingProblem = regexp.MustCompile(`zero Value|nil pointer|of nil|untyped nil|invalid value`)
)

// execError words a template's execution error for the scenario's author: which
// template, the action that failed, and the problem, where text/template would speak of
// reflection and nil pointers.
func execError(name string, err error) error {
	var ee template.ExecError
	if errors.Is(err, errRenderTooLarge) || !errors.As(err, &ee) {
		return fmt.Errorf("template %s: %w", name, err)
	}
	m := execAt.FindStringSubmatch(ee.Err.Error())
	if m == nil {
		return fmt.Errorf("template %s: %w", name, err)
	}
	action, problem := m[1], m[2]
	if c := callProblem.FindStringSubmatch(problem); c != nil {
		fn, args := c[1], strings.TrimSpace(strings.TrimPrefix(action, c[1]))
		switch {
		case missingProblem.MatchString(c[2]) && args != "":
			problem = fmt.Sprintf("%s was given %s, which the request does not have (guard it with {{ with %s }}…{{ end }})", fn, args, args)
		case missingProblem.MatchString(c[2]):
			problem = fmt.Sprintf("%s was given a value the request does not have", fn)
		case strings.Contains(c[2], "index out of range"):
			problem = fmt.Sprintf("%s was given an index past the end of the list", fn)
		default:
			problem = fmt.Sprintf("%s failed: %s", fn, c[2])
		}
	} else if f := fieldOfNonMap.FindStringSubmatch(problem); f != nil {
		problem = fmt.Sprintf("cannot read .%s: in the request, what it is read from is not an object", f[1])
	} else if missingProblem.MatchString(problem) {
		problem = "it reads a value the request does not have"
	}
	return fmt.Errorf("template %s: {{ %s }}: %s", name, action, problem)
}

// limitedBuilder stops a template whose output grows past maxRenderBytes.
type limitedBuilder struct{ b *strings.Builder }

func (w limitedBuilder) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > maxRenderBytes {
		return 0, errRenderTooLarge
	}
	return w.b.Write(p)
}

func (r *renderer) exec(name string) (string, error) {
	if parts, ok := r.plain[name]; ok {
		return renderPlain(parts, r.root, r.localID), nil
	}
	if r.set == nil {
		set, err := r.base.Clone()
		if err != nil {
			return "", err
		}
		r.set = set.Funcs(r.funcs())
	}
	t := r.set.Lookup(name)
	if t == nil {
		return "", fmt.Errorf("template %s is missing", name)
	}
	r.buf.Reset()
	if err := t.Execute(limitedBuilder{&r.buf}, r.values()); err != nil {
		return "", execError(name, err)
	}
	// A path the request does not have renders as nothing rather than "<no value>".
	return strings.ReplaceAll(r.buf.String(), "<no value>", ""), nil
}
