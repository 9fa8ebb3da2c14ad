package scenarios

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// value is a JSON value written in a scenario. Its strings may be templates, rendered
// per run; subtrees without templates are kept as ready JSON values.
type value struct {
	literal  any      // the whole value when it holds no template
	template string   // name of the template when this is a templated string
	at       pos      // where a template is written
	text     string   // for a whole template sent as text: what it is, for messages
	pointer  string   // for a JSON Patch path or from: which; a template must render a JSON Pointer
	keys     []string // object members, in file order
	fields   []*value
	items    []*value // array items
	kind     valueKind
}

type valueKind uint8

const (
	literalValue  valueKind = iota
	templateValue           // text with templates in it: a string
	wholeValue              // one template action and nothing else: its result, typed
	objectValue
	arrayValue
)

// asText marks a value sent as text, such as a message's content or a JSON Patch path:
// a whole template there renders as text. what names the member in messages.
func (v *value) asText(what string) *value {
	if v.kind == wholeValue {
		v.text = what
	}
	return v
}

// asPointer marks a JSON Patch path or from (key names which): a template there renders
// as text, which must be a JSON Pointer.
func (v *value) asPointer(key string) {
	v.asText("a JSON Patch " + key)
	if v.kind == wholeValue || v.kind == templateValue {
		v.pointer = key
	}
}

// render produces the JSON value for one run.
func (v *value) render(r *renderer) (any, error) {
	switch v.kind {
	case templateValue:
		text, err := r.exec(v.template)
		if err != nil {
			return "", v.limitAt(err)
		}
		return text, v.checkPointer(text)
	case wholeValue:
		x, err := r.value(v.template)
		if err != nil || v.text == "" {
			return x, v.limitAt(err)
		}
		text, err := v.textOf(x)
		if err == nil {
			err = v.checkPointer(text)
		}
		if err != nil {
			return nil, err
		}
		return text, nil
	case objectValue:
		m := make(map[string]any, len(v.keys))
		for i, k := range v.keys {
			x, err := v.fields[i].render(r)
			if err != nil {
				return nil, err
			}
			m[k] = x
		}
		return m, nil
	case arrayValue:
		list := make([]any, len(v.items))
		for i, it := range v.items {
			x, err := it.render(r)
			if err != nil {
				return nil, err
			}
			list[i] = x
		}
		return list, nil
	}
	return v.literal, nil
}

// limitAt places a template's error at the template when it went past a limit, which
// is where its author has to look; other errors are placed at their step.
func (v *value) limitAt(err error) error {
	var le *LimitError
	if errors.As(err, &le) {
		return &stepError{at: v.at, err: err}
	}
	return err
}

// valueFromNode converts a YAML node into a value, compiling the template strings it
// contains. Problems are reported with their position.
func (l *fileLoader) valueFromNode(n *yaml.Node) *value {
	lit, v := l.node(n)
	if v == nil {
		return &value{literal: lit}
	}
	return v
}

// node converts a YAML node into a literal JSON value or, when templates are in it, a
// value to render: the first result when the second is nil. A literal subtree, such as
// a long list of plain items, is built without a value for each of its nodes.
func (l *fileLoader) node(n *yaml.Node) (any, *value) {
	switch n.Kind {
	case yaml.AliasNode:
		return l.node(n.Alias)
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return l.node(n.Content[0])
		}
	case yaml.ScalarNode:
		return l.scalarNode(n)
	case yaml.MappingNode:
		if l.unquotedTemplate(n) {
			return nil, nil
		}
		keys := make([]string, 0, len(n.Content)/2)
		lits := make([]any, 0, len(n.Content)/2) // the members while all are literal
		var fields []*value                      // from the first member that is not
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
				l.diag.add(l.pos(k), "write the members out; merge keys and complex keys are not supported in payloads", "unsupported mapping key")
				continue
			}
			keys = append(keys, k.Value)
			lits, fields = l.member(lits, fields, val)
		}
		if fields != nil {
			return nil, &value{kind: objectValue, keys: keys, fields: fields}
		}
		m := make(map[string]any, len(keys))
		for i, k := range keys {
			m[k] = lits[i]
		}
		return m, nil
	case yaml.SequenceNode:
		lits := make([]any, 0, len(n.Content))
		var items []*value
		for _, it := range n.Content {
			lits, items = l.member(lits, items, it)
		}
		if items != nil {
			return nil, &value{kind: arrayValue, items: items}
		}
		return lits, nil
	}
	return nil, nil
}

// member adds the value of node n to the members of a mapping or the items of a list:
// to lits while all are literal, to values from the first that is not, which takes the
// literal ones before it along.
func (l *fileLoader) member(lits []any, values []*value, n *yaml.Node) ([]any, []*value) {
	lit, v := l.node(n)
	if v != nil && values == nil {
		values = make([]*value, len(lits), len(lits)+1)
		for i, x := range lits {
			values[i] = &value{literal: x}
		}
	}
	switch {
	case values == nil:
		return append(lits, lit), nil
	case v == nil:
		v = &value{literal: lit}
	}
	return lits, append(values, v)
}

// scalarNode converts a scalar node into a literal JSON value, or a template: the first
// result when the second is nil.
func (l *fileLoader) scalarNode(n *yaml.Node) (any, *value) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		b, err := strconv.ParseBool(strings.ToLower(n.Value))
		if err != nil {
			l.diag.add(l.pos(n), "write true or false", "%q is not a boolean", n.Value)
		}
		return b, nil
	case "!!int":
		if i, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
			return json.Number(strconv.FormatInt(i, 10)), nil
		}
		fallthrough // too large for int64: keep it as a float
	case "!!float":
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			l.diag.add(l.pos(n), "quote it to send a string", "%q is not a number JSON can carry", n.Value)
			return nil, nil
		}
		return json.Number(strconv.FormatFloat(f, 'f', -1, 64)), nil
	}
	// strings, timestamps and binary stay the text that was written
	if !l.verbatim && strings.Contains(n.Value, "{{") {
		l.templateSet() // compileTemplate parses into it
		switch name, whole := l.compileTemplate(n); {
		case name == "":
			return n.Value, nil
		case whole:
			return nil, &value{kind: wholeValue, template: name, at: l.pos(n)}
		default:
			return nil, &value{kind: templateValue, template: name, at: l.pos(n)}
		}
	}
	return n.Value, nil
}

// textOf turns the result of a whole template sent as text into that text: strings as
// they are, numbers and booleans as written, nothing for a path the request lacks. An
// object or a list has no text form there, and is a problem at the template.
func (v *value) textOf(x any) (string, error) {
	switch k := kindOf(x); k {
	case "null":
		return "", nil
	case "object", "list":
		return "", &stepError{at: v.at, err: fmt.Errorf("%s must be a string, but this template renders %s (write {{ json … }} to send its JSON text)", v.text, withArticle(k))}
	}
	return jsonText(x)
}

// checkPointer reports a JSON Patch path or from whose template does not render a JSON
// Pointer, at the template.
func (v *value) checkPointer(text string) error {
	if v.pointer == "" || text == "" || strings.HasPrefix(text, "/") {
		return nil
	}
	return &stepError{at: v.at, err: fmt.Errorf(`JSON Patch %s %q is not a JSON Pointer: its template must render "" (the whole document) or text starting with "/"`, v.pointer, text)}
}

// jsonText is a value as text: a string as it is, anything else as its JSON.
func jsonText(x any) (string, error) {
	if s, ok := x.(string); ok {
		return s, nil
	}
	b, err := json.Marshal(x)
	return string(b), err
}

// withArticle names a JSON type for a sentence: "an object", "a list".
func withArticle(kind string) string {
	if kind == "object" {
		return "an object"
	}
	return "a " + kind
}
