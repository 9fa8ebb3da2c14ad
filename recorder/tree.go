package recorder

import (
	"encoding/json"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// The fixture is kept as a YAML node tree, so that a file edited by hand keeps its
// comments and order when later recordings add to it.

// member returns the value of key in a mapping node, or nil.
func member(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// setMember sets key in a mapping node, appending it when missing.
func setMember(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, scalar(key), v)
}

// whenKey is the canonical form of a continuation's when, to find it again.
func whenKey(when any) string {
	b, _ := json.Marshal(when)
	return string(b)
}

// nodeValue decodes a YAML node into plain values, for comparing when-conditions.
func nodeValue(n *yaml.Node) any {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil
	}
	return v
}

// place stores a run's events in the fixture: as the root run for an empty path, or as
// the continuation reached by following path's when-keys, replacing what an earlier
// recording with the same answers left there and keeping what follows it.
func place(root *yaml.Node, path []any, events []*yaml.Node) error {
	run := root
	for depth, when := range path {
		next := member(run, "next")
		if next == nil {
			next = &yaml.Node{Kind: yaml.SequenceNode}
			setMember(run, "next", next)
		}
		var found *yaml.Node
		for _, branch := range next.Content {
			if w := member(branch, "when"); w != nil && whenKey(nodeValue(w)) == whenKey(when) {
				found = branch
				break
			}
		}
		if found == nil {
			if depth < len(path)-1 {
				return fmt.Errorf("the recording's earlier run is missing from the fixture")
			}
			found = &yaml.Node{Kind: yaml.MappingNode}
			whenNode := &yaml.Node{}
			if err := whenNode.Encode(when); err != nil {
				return err
			}
			whenNode.Style = yaml.FlowStyle
			setMember(found, "when", whenNode)
			next.Content = append(next.Content, found)
		}
		run = found
	}
	setMember(run, "events", &yaml.Node{Kind: yaml.SequenceNode, Content: events})
	return nil
}
