package scenarios

import (
	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

const stateHint = "Sends STATE_SNAPSHOT: replaces the client's shared state with this value (any JSON, usually an object)." + templated

// payloadStep emits one event carrying one rendered value: a state step's snapshot or a
// stateDelta step's patch.
type payloadStep struct {
	stepCommon
	typ, field string
	payload    *value
}

func (l *fileLoader) stateStep(c stepCommon, n *yaml.Node) step {
	return &payloadStep{stepCommon: c, typ: protocol.StateSnapshot, field: "snapshot", payload: l.valueFromNode(n)}
}

func (s *payloadStep) emit(p *planner) error {
	v, err := s.payload.render(p.r)
	if err != nil {
		return err
	}
	switch s.typ {
	case protocol.StateSnapshot:
		p.state, p.stateKnown = v, true
	case protocol.StateDelta:
		if err := p.applyPatch(v); err != nil {
			return err
		}
	}
	p.emit(protocol.NewEvent(s.typ, s.field, v))
	return nil
}
