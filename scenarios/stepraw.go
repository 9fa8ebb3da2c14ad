package scenarios

import (
	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

const rawHint = "Sends a RAW event, passing a provider's event through."

// rawStep reads a raw step: a RAW event with the provider's event and its source,
// played as an event step.
func (l *fileLoader) rawStep(c stepCommon, n *yaml.Node) step {
	f := l.fields(n, "raw", []string{"event", "source"})
	if f["event"] == nil {
		l.diag.add(l.pos(n), "", "raw needs an event")
		return nil
	}
	s := &eventStep{stepCommon: c, typ: protocol.Raw}
	s.add("event", l.valueFromNode(f["event"]))
	if f["source"] != nil {
		s.add("source", l.text(f["source"], "a raw event's source"))
	}
	return s
}
