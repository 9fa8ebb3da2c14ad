package scenarios

import (
	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

const customHint = "Sends a CUSTOM event."

// customStep reads a custom step: a CUSTOM event with its name and value, played as an
// event step.
func (l *fileLoader) customStep(c stepCommon, n *yaml.Node) step {
	f := l.fields(n, "custom", []string{"name", "value"})
	if f["name"] == nil {
		l.diag.add(l.pos(n), "", "custom needs a name")
		return nil
	}
	s := &eventStep{stepCommon: c, typ: protocol.Custom}
	s.add("name", l.text(f["name"], "a custom event's name"))
	s.add("value", l.optionalValue(f["value"]))
	return s
}
