package scenarios

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"text/template"
)

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
	r.refresh("answer")
}

// setResume sets the answers templates read as .resume.
func (r *renderer) setResume(resume []any) {
	r.resume = resume
	r.refresh("resume")
}

// refresh gives the top-level name its value again, once what templates read is built.
func (r *renderer) refresh(name string) {
	if root, _ := lookupTemplateRoot(name); r.data != nil {
		r.data[name] = root.value(r)
	}
}

// root returns one top-level value templates read, building them all only when the
// value is not a single value of the request (templateRoot.alone).
func (r *renderer) root(name string) any {
	if root, ok := lookupTemplateRoot(name); ok && root.alone && r.data == nil {
		return root.value(r)
	}
	return r.values()[name]
}

// values returns what templates read, building it on first use, each name by its row
// of templateRoots: most runs render only literal text and never need it.
func (r *renderer) values() map[string]any {
	if r.data == nil {
		r.data = make(map[string]any, len(templateRoots))
		for i := range templateRoots {
			r.data[templateRoots[i].name] = templateRoots[i].value(r)
		}
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
