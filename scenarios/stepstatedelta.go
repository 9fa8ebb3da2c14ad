package scenarios

import (
	"fmt"
	"strings"

	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

const stateDeltaHint = "Sends STATE_DELTA: a JSON Patch applied to the client's shared state. " +
	"When a state step precedes it, loading checks that the patch applies." + templated

// stateDeltaStep reads a stateDelta step, played as a payloadStep (stepstate.go).
func (l *fileLoader) stateDeltaStep(c stepCommon, n *yaml.Node) step {
	return &payloadStep{stepCommon: c, typ: protocol.StateDelta, field: "delta", payload: l.patch(n)}
}

// patch reads a JSON Patch, of a stateDelta or an activityDelta step, and checks the
// shape of each operation.
func (l *fileLoader) patch(n *yaml.Node) *value {
	v := l.valueFromNode(n)
	if n.Kind != yaml.SequenceNode {
		l.diag.add(l.pos(n), `e.g. - {op: add, path: /items/-, value: 1}`, "a JSON Patch must be a list of operations")
		return v
	}
	for _, op := range v.items {
		for i, key := range op.keys {
			if key == "path" || key == "from" {
				op.fields[i].asPointer(key)
			}
		}
	}
	for _, opNode := range n.Content {
		f := l.fields(opNode, "a JSON Patch operation", []string{"op", "path", "value", "from"})
		if f == nil {
			continue
		}
		op := ""
		if f["op"] != nil {
			op = l.str(f["op"])
		}
		switch op {
		case "add", "replace", "test":
			if f["value"] == nil {
				l.diag.add(l.pos(opNode), "", "a %s operation needs a value", op)
			}
		case "move", "copy":
			if f["from"] == nil {
				l.diag.add(l.pos(opNode), "", "a %s operation needs from", op)
			}
		case "remove":
		default:
			l.diag.add(l.pos(opNode), "op is add, remove, replace, move, copy or test", "unknown JSON Patch op %q", op)
		}
		if f["path"] == nil {
			l.diag.add(l.pos(opNode), `a JSON Pointer such as /items/0 ("" is the whole document)`, "a JSON Patch operation needs a path")
		}
		for _, key := range []string{"path", "from"} {
			if n := f[key]; n != nil {
				l.jsonPointer(n, key)
			}
		}
	}
	return v
}

// jsonPointer checks that a JSON Patch path or from is a JSON Pointer: empty, or
// starting with a slash, or a template that renders one.
func (l *fileLoader) jsonPointer(n *yaml.Node, key string) {
	p := l.str(n)
	if p != "" && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "{{") {
		l.diag.add(l.pos(n), fmt.Sprintf(`a JSON Pointer starts with "/", e.g. %q; "" is the whole document`, "/"+p), "JSON Patch %s %q is not a JSON Pointer", key, p)
	}
}
