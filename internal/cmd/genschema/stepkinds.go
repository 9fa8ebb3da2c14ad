package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/agui-mock/agui-mock/scenarios"
)

// stepBranch is one branch of the step's oneOf: a step of one kind. Its fields are in
// the order the schema file writes them.
type stepBranch struct {
	Title        string   `json:"title"`
	Required     []string `json:"required"`
	ErrorMessage string   `json:"errorMessage"`
}

// rewriteSteps rewrites, in the schema's step definition, what the table of step kinds
// decides: its description, which lists the kinds and the options; its members, one per
// kind, described by the kind's hint, and then the options; and its oneOf, a branch per
// kind whose message lists them all. What a kind's member holds besides its
// description is written by hand, as are the options' members; a new kind's member is
// its description alone until it is.
func rewriteSteps(schema []byte, kinds []scenarios.StepKind, options []string) ([]byte, error) {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.Name
	}
	description := "One step: exactly one step kind (" + strings.Join(names, ", ") + "), plus the optional keys " + words(options, "and") + "."
	schema, err := replaceValue(schema, description, "$defs", "step", "description")
	if err != nil {
		return nil, err
	}
	if schema, err = rewriteStepMembers(schema, kinds, options); err != nil {
		return nil, err
	}
	message := "A step needs exactly one kind: " + strings.Join(names, ", ") + "."
	branches := make([]stepBranch, len(kinds))
	for i, k := range kinds {
		branches[i] = stepBranch{Title: k.Title, Required: []string{k.Name}, ErrorMessage: message}
	}
	return replaceValue(schema, branches, "$defs", "step", "oneOf")
}

// rewriteStepMembers writes the step's properties: each kind's member as written with
// the kind's hint as its description, then the options' members as written.
func rewriteStepMembers(schema []byte, kinds []scenarios.StepKind, options []string) ([]byte, error) {
	at, err := valueAt(schema, "$defs", "step", "properties")
	if err != nil {
		return nil, err
	}
	obj := schema[at.start:at.end]
	list, err := members(obj)
	if err != nil {
		return nil, fmt.Errorf(`"$defs"."step"."properties": %w`, err)
	}
	written := map[string][]byte{}
	for _, m := range list {
		written[m.key] = obj[m.value.start:m.value.end]
	}
	indent := indentAt(schema, at.start)
	inner := indent + "  "
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, k := range kinds {
		value, err := kindMember(written[k.Name], k, inner)
		if err != nil {
			return nil, fmt.Errorf("the step member %s: %w", k.Name, err)
		}
		if i > 0 {
			b.WriteString(",\n")
		}
		key, _ := encode(k.Name, "")
		fmt.Fprintf(&b, "%s%s: %s", inner, key, value)
	}
	for _, o := range options {
		value, ok := written[o]
		if !ok {
			return nil, fmt.Errorf("no step member for the option %s: write it by hand", o)
		}
		key, _ := encode(o, "")
		fmt.Fprintf(&b, ",\n%s%s: %s", inner, key, value)
	}
	b.WriteString("\n" + indent + "}")
	return splice(schema, at, b.Bytes()), nil
}

// kindMember is a kind's member of the step's properties: as written, with the kind's
// hint as its description, or, for a kind the schema does not have yet, its
// description alone.
func kindMember(written []byte, k scenarios.StepKind, indent string) ([]byte, error) {
	if written == nil {
		return encode(map[string]string{"description": k.Hint}, indent)
	}
	return replaceValue(written, k.Hint, "description")
}
