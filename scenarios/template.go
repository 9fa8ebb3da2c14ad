package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"text/template/parse"

	"go.yaml.in/yaml/v3"
)

// A scenario's strings may be Go templates. This file holds what they read and how the
// parser compiles and checks them; templatefuncs.go the functions they call,
// templateplain.go the templates rendered without text/template, and
// templaterender.go their rendering in a run.

// templateRoot is one name a template reads at its top level (.message, .captures,
// .answer, …) and what it holds of the run. Adding a name is adding a row here: the
// parser allows it (checkFields) and the renderer gives it (renderer.values).
type templateRoot struct {
	name string
	// alone marks a single value of the request, which a plain template reading nothing
	// else gets without the rest being built (renderer.root): most runs read only these.
	alone bool
	value func(r *renderer) any
}

// templateRoots are every name templates read, in the order a problem lists them.
var templateRoots = [...]templateRoot{
	{name: "threadId", alone: true, value: func(r *renderer) any { return r.p.req.Input.ThreadID }},
	{name: "runId", alone: true, value: func(r *renderer) any { return r.p.req.Input.RunID }},
	{name: "parentRunId", alone: true, value: func(r *renderer) any { return r.p.req.Input.ParentRunID }},
	{name: "route", alone: true, value: func(r *renderer) any { return r.p.req.Route }},
	{name: "message", alone: true, value: func(r *renderer) any {
		msg, _ := r.p.req.Input.LastUserMessage()
		return msg.Text()
	}},
	{name: "parts", value: func(r *renderer) any { // the last user message's content parts
		msg, _ := r.p.req.Input.LastUserMessage()
		parts, _ := msg.Content.([]any)
		return orList(parts)
	}},
	{name: "captures", value: func(r *renderer) any { // the groups of match.message
		caps := make(map[string]any, len(r.p.captures))
		for k, v := range r.p.captures {
			caps[k] = v
		}
		return caps
	}},
	{name: "forwardedProps", value: func(r *renderer) any { return orEmpty(r.p.req.Input.ForwardedProps) }},
	{name: "state", value: func(r *renderer) any { return orEmpty(r.p.req.Input.State) }},
	{name: "context", value: func(r *renderer) any {
		context := make([]any, len(r.p.req.Input.Context))
		for i, c := range r.p.req.Input.Context {
			context[i] = map[string]any{"description": c.Description, "value": c.Value}
		}
		return context
	}},
	{name: "tools", value: func(r *renderer) any { // their names
		tools := make([]any, len(r.p.req.Input.Tools))
		for i, t := range r.p.req.Input.Tools {
			tools[i] = t.Name
		}
		return tools
	}},
	{name: "messages", value: func(r *renderer) any { // as the client sent them
		messages := make([]any, len(r.p.req.Input.Messages))
		for i, m := range r.p.req.Input.Messages {
			messages[i] = m.Raw
		}
		return messages
	}},
	{name: "headers", value: func(r *renderer) any { // by lower-case name, values joined
		headers := map[string]any{}
		for k, v := range r.p.req.Header {
			headers[strings.ToLower(k)] = strings.Join(v, ", ")
		}
		return headers
	}},
	// The answer the current branch follows, and the run's answers when it resumes: not
	// the request's, but set as the run goes (setAnswer, setResume).
	{name: "answer", value: func(r *renderer) any { return orEmpty(r.answer) }},
	{name: "resume", value: func(r *renderer) any { return orList(r.resume) }},
}

// lookupTemplateRoot returns the row of a top-level name.
func lookupTemplateRoot(name string) (*templateRoot, bool) {
	for i := range templateRoots {
		if templateRoots[i].name == name {
			return &templateRoots[i], true
		}
	}
	return nil, false
}

// templateRootNames lists the names templates read, in the table's order.
func templateRootNames() []string {
	names := make([]string, len(templateRoots))
	for i := range templateRoots {
		names[i] = templateRoots[i].name
	}
	return names
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

// checkFields reports references to request data that no request can have: unknown
// top-level names and regex captures the scenario's message pattern does not define.
// Below range and with, the dot is no longer the request, so only $-rooted paths count.
func (l *fileLoader) checkFields(node parse.Node, atRoot bool) []string {
	var problems []string
	checkPath := func(idents []string) {
		if len(idents) == 0 {
			return
		}
		if _, ok := lookupTemplateRoot(idents[0]); !ok {
			problems = append(problems, fmt.Sprintf(".%s is not request data (one of .%s)", idents[0], strings.Join(templateRootNames(), ", .")))
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

// orList is parts, or an empty list: a template ranges over it either way.
func orList(parts []any) []any {
	if parts == nil {
		return []any{}
	}
	return parts
}

// orEmpty is v, or an empty object: a template reads members of it either way.
func orEmpty(v any) any {
	if v == nil {
		return map[string]any{}
	}
	return v
}
