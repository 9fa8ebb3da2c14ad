package scenarios

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"
	"time"

	"github.com/brianvoe/gofakeit/v7"
	"go.yaml.in/yaml/v3"
)

// templateRoots are the names templates can read from the request; see renderData.
var templateRoots = []string{"threadId", "runId", "parentRunId", "route", "message", "parts", "captures",
	"forwardedProps", "state", "context", "tools", "messages", "headers", "answer", "resume"}

// funcMap is the allow-list of functions templates can call. Fake data comes from the
// run's own seeded faker; id returns the run's fresh id for a local name.
func funcMap(f *gofakeit.Faker, id func(name string) string) template.FuncMap {
	return template.FuncMap{
		"id":       id,
		"json":     toJSON,
		"default":  func(def, v any) any { return defaultValue(def, v) },
		"upper":    strings.ToUpper,
		"lower":    strings.ToLower,
		"trim":     strings.TrimSpace,
		"join":     joinAny,
		"last":     lastItem,
		"nth":      nthItem,
		"kind":     kindOf,
		"int":      toInt,
		"float":    toFloat,
		"bool":     toBool,
		"fromJson": fromJSON,
		"now":      formatNow(time.Now),
		"fromNow":  after(time.Now),

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

// errNoValue is what a conversion function says when it is given a path the request
// lacks.
var errNoValue = errors.New("it was given no value, a path the request lacks (give the scenario an example that has it, or a fallback with default)")

// toInt is the template function int: the integer a string such as a capture spells,
// or an integral number.
func toInt(v any) (int, error) {
	switch x := v.(type) {
	case nil:
		return 0, errNoValue
	case int:
		return x, nil
	case string, json.Number:
		if i, err := strconv.Atoi(strings.TrimSpace(fmt.Sprint(x))); err == nil {
			return i, nil
		}
	}
	// 2.0 and 1e3 are integers too; beyond 2^53 a float64 no longer holds every one.
	if f, err := toFloat(v); err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		return int(f), nil
	}
	return 0, fmt.Errorf("%s is not an integer", describe(v))
}

// toFloat is the template function float: the number a string spells, or a number.
func toFloat(v any) (float64, error) {
	switch x := v.(type) {
	case nil:
		return 0, errNoValue
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	case string, json.Number:
		f, err := strconv.ParseFloat(strings.TrimSpace(fmt.Sprint(x)), 64)
		if err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f, nil
		}
	}
	return 0, fmt.Errorf("%s is not a number", describe(v))
}

// toBool is the template function bool: true or false from a boolean or a string such
// as "true", "False", "1" or "0".
func toBool(v any) (bool, error) {
	switch x := v.(type) {
	case nil:
		return false, errNoValue
	case bool:
		return x, nil
	case string:
		if b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(x))); err == nil {
			return b, nil
		}
	}
	return false, fmt.Errorf("%s is not true or false", describe(v))
}

// fromJSON is the template function fromJson: the value JSON text spells, numbers kept
// exact.
func fromJSON(v any) (any, error) {
	text, ok := v.(string)
	switch {
	case v == nil:
		return nil, errNoValue
	case !ok:
		return nil, fmt.Errorf("%s is not JSON text", describe(v))
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the text is empty, not JSON")
		}
		return nil, fmt.Errorf("%s is not JSON: %s", describe(text), strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s is not JSON: more follows the first value", describe(text))
	}
	return out, nil
}

// describe shows a value in an error message: strings quoted, anything else as JSON.
func describe(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(clip(s, 40))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(b), 40)
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

// nthItem returns a list's element at index i, counted from the end when i is negative
// (-1 is the last), or nothing when the list has no such element: {{ nth -2 .messages }}
// is the client's message before its last, which recordings use to replay the client's
// own messages inside a MESSAGES_SNAPSHOT.
func nthItem(i int, items []any) any {
	if i < 0 {
		i += len(items)
	}
	if i < 0 || i >= len(items) {
		return nil
	}
	return items[i]
}

// joinAny is the template function join; it refuses a result longer than
// maxRenderBytes.
func joinAny(sep string, items []any) (string, error) {
	parts := make([]string, len(items))
	size := len(sep) * len(items)
	for i, it := range items {
		parts[i] = fmt.Sprint(it)
		size += len(parts[i])
	}
	if err := checkJoinSize("join", size); err != nil {
		return "", err
	}
	return strings.Join(parts, sep), nil
}

// keepFunc names the function that hands the result of a whole template to the
// renderer. It is added to a whole template's action after parsing, and to the run's
// functions only, so no scenario can call it.
const keepFunc = "_keep"

// compileTemplate parses a templated string into the scenario's template set and checks
// the request fields it reads. It returns the template's name, or "" after a problem,
// and whether the template is whole: one action that yields a value, with no text
// around it, such as {{ .state.items }} or {{ int .captures.n }}.
func (l *fileLoader) compileTemplate(n *yaml.Node) (name string, whole bool) {
	p := l.pos(n)
	name = p.String()
	t, err := l.templates.New(name).Parse(n.Value)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "template: "+name+":")
		l.diag.add(p, "templates use Go text/template syntax, e.g. {{ .message }} or {{ Name }}", "template error: %s", msg)
		return "", false
	}
	for _, problem := range l.checkFields(t.Tree.Root, true) {
		l.diag.add(p, "", "template error: %s", problem)
	}
	if parts, ok := plainParts(t.Tree.Root); ok {
		l.plain[name] = parts
	}
	nodes := t.Tree.Root.Nodes
	if len(nodes) != 1 {
		return name, false
	}
	action, ok := nodes[0].(*parse.ActionNode)
	if !ok || len(action.Pipe.Decl) > 0 {
		return name, false
	}
	// {{ PIPELINE }} becomes {{ PIPELINE | _keep }}: the pipeline's value is kept, and
	// nothing is printed.
	keep := &parse.CommandNode{NodeType: parse.NodeCommand, Pos: action.Pos,
		Args: []parse.Node{parse.NewIdentifier(keepFunc).SetTree(t.Tree).SetPos(action.Pos)}}
	action.Pipe.Cmds = append(action.Pipe.Cmds, keep)
	return name, true
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
	switch x := plainValue(p, root, localID).(type) {
	case nil:
		return ""
	case string:
		return x
	default:
		return fmt.Sprint(x)
	}
}

// plainValue is the value of a plain part: its text, the id, or the value at its path,
// nil when the request lacks it.
func plainValue(p plainPart, root func(name string) any, localID func(name string) string) any {
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
			return nil
		}
		v = m[key]
	}
	return v
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
// The templates a renderer executes share one budget.
type renderer struct {
	plain  map[string][]plainPart
	base   *template.Template
	p      *planner // the run's: its request and captures, ids and template functions
	set    *template.Template
	data   map[string]any
	kept   any    // the value of the whole template last executed
	answer any    // the answer the current branch follows, if any
	resume []any  // the run's answers, if it resumes
	budget budget // what the run's templates may still do
	buf    strings.Builder
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
		if v, ok := requestScalar(r.p.req, name); ok {
			return v
		}
	}
	return r.values()[name]
}

// values returns what templates read, building it on first use: most runs render only
// literal text and never need it.
func (r *renderer) values() map[string]any {
	if r.data == nil {
		r.data = renderData(r.p.req, r.p.captures)
		r.data["answer"], r.data["resume"] = orEmpty(r.answer), orList(r.resume)
	}
	return r.data
}

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
	var le *LimitError
	if errors.As(err, &le) {
		return fmt.Errorf("template %s: %w", name, le)
	}
	if !errors.As(err, &ee) {
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

func (r *renderer) exec(name string) (string, error) {
	if parts, ok := r.plain[name]; ok {
		return renderPlain(parts, r.root, r.p.localID), nil
	}
	if r.set == nil {
		set, err := r.base.Clone()
		if err != nil {
			return "", err
		}
		r.set = set.Funcs(r.p.templateFuncs()).Funcs(template.FuncMap{keepFunc: r.keep, tickFunc: r.budget.tick,
			"printf": printfFunc, "print": printFunc(false), "println": printFunc(true)})
	}
	t := r.set.Lookup(name)
	if t == nil {
		return "", fmt.Errorf("template %s is missing", name)
	}
	r.buf.Reset()
	if err := t.Execute(limitedBuilder{&r.buf}, r.values()); err != nil {
		if r.budget.ctx.Err() != nil {
			return "", fmt.Errorf("template %s: the run was stopped: %w", name, context.Cause(r.budget.ctx))
		}
		return "", execError(name, err)
	}
	// A path the request does not have renders as nothing rather than "<no value>".
	return strings.ReplaceAll(r.buf.String(), "<no value>", ""), nil
}

// keep is the function a whole template's action ends with: it keeps the value of the
// pipeline and prints nothing.
func (r *renderer) keep(v any) string {
	r.kept = v
	return ""
}

// value renders a whole template: the value of its action, with its JSON type.
func (r *renderer) value(name string) (any, error) {
	if parts, ok := r.plain[name]; ok {
		return toJSONValue(plainValue(parts[0], r.root, r.p.localID))
	}
	r.kept = nil
	if _, err := r.exec(name); err != nil {
		return nil, err
	}
	v, err := toJSONValue(r.kept)
	r.kept = nil
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	return v, nil
}

// toJSONValue converts what a template yields into a JSON value: objects, lists, strings,
// json.Number, booleans and nil. Objects and lists are copied, so a value taken from the
// request can be sent and changed without changing the request.
func toJSONValue(v any) (any, error) {
	switch x := v.(type) {
	case nil, string, bool, json.Number:
		return x, nil
	case int:
		return json.Number(strconv.Itoa(x)), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("it renders %v, a number JSON cannot carry", x)
		}
		return json.Number(strconv.FormatFloat(x, 'f', -1, 64)), nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, item := range x {
			c, err := toJSONValue(item)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			c, err := toJSONValue(item)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	// any other Go value a function returns goes through its JSON encoding
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("it renders %T, which has no JSON form", v)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	err = dec.Decode(&out)
	return out, err
}
