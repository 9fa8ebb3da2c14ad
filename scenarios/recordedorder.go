package scenarios

import (
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/protocol"
)

// orderedValueNode writes a JSON value on one line as valueNode does, but the members of
// its objects in the order o gives (those o does not name after them, sorted).
func orderedValueNode(v any, o *protocol.KeyOrder) *yaml.Node {
	if o == nil {
		return valueNode(v)
	}
	switch x := v.(type) {
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for i, it := range x {
			n.Content = append(n.Content, orderedValueNode(it, o.Item(i)))
		}
		return n
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		for i, k := range o.Keys {
			if it, ok := x[k]; ok {
				n.Content = append(n.Content, str(k), orderedValueNode(it, o.Item(i)))
			}
		}
		var rest []string
		for k := range x {
			if !slices.Contains(o.Keys, k) {
				rest = append(rest, k)
			}
		}
		slices.Sort(rest)
		for _, k := range rest {
			n.Content = append(n.Content, str(k), valueNode(x[k]))
		}
		return n
	}
	return valueNode(v)
}

// nodeKeyOrder is the order of the members of the objects of a value written in a
// scenario file: the order they are written in.
func nodeKeyOrder(n *yaml.Node) *protocol.KeyOrder {
	switch n.Kind {
	case yaml.AliasNode:
		return nodeKeyOrder(n.Alias)
	case yaml.MappingNode:
		keys := make([]string, 0, len(n.Content)/2)
		next := make([]*protocol.KeyOrder, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if j := slices.Index(keys, k); j >= 0 { // written twice: the last value counts
				keys, next = slices.Delete(keys, j, j+1), slices.Delete(next, j, j+1)
			}
			keys, next = append(keys, k), append(next, nodeKeyOrder(n.Content[i+1]))
		}
		return protocol.ObjectOrder(keys, next)
	case yaml.SequenceNode:
		items := make([]*protocol.KeyOrder, len(n.Content))
		for i, it := range n.Content {
			items[i] = nodeKeyOrder(it)
		}
		return protocol.ListOrder(items)
	}
	return nil
}
