package scenarios

import (
	"fmt"
	"strings"
	"text/template/parse"
)

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
