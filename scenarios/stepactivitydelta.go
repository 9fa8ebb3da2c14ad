package scenarios

import (
	"fmt"

	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

const activityDeltaHint = "Sends ACTIVITY_DELTA: patches the content of an activity an earlier step created."

// activityDeltaStep patches an activity an earlier step created.
type activityDeltaStep struct {
	stepCommon
	target string
	patch  *value
}

func (l *fileLoader) activityDeltaStep(c stepCommon, n *yaml.Node) step {
	f := l.fields(n, "activityDelta", []string{"target", "patch"})
	if f == nil || f["target"] == nil || f["patch"] == nil {
		l.diag.add(l.pos(n), "target is the id: of the activity step to patch", "activityDelta needs a target and a patch")
		return nil
	}
	return &activityDeltaStep{stepCommon: c, target: l.name(f["target"], "an activityDelta target"), patch: l.patch(f["patch"])}
}

func (s *activityDeltaStep) emit(p *planner) error {
	id, ok := p.ids[s.target]
	if !ok || p.activityTypes[id] == "" {
		return fmt.Errorf("activityDelta target %q is not the id of an earlier activity step", s.target)
	}
	patch, err := s.patch.render(p.r)
	if err != nil {
		return err
	}
	p.emit(protocol.NewEvent(protocol.ActivityDelta, "messageId", id, "activityType", p.activityTypes[id], "patch", patch))
	return nil
}
