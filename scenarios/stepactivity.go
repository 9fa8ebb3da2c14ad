package scenarios

import (
	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

const activityHint = "Sends ACTIVITY_SNAPSHOT: a structured activity card. Give the step an id so activityDelta can patch it later."

// activityStep emits an ACTIVITY_SNAPSHOT.
type activityStep struct {
	stepCommon
	activityType string
	content      *value
	replace      *bool
}

func (l *fileLoader) activityStep(c stepCommon, n *yaml.Node) step {
	f := l.fields(n, "activity", []string{"type", "content", "replace"})
	if f == nil || f["type"] == nil || f["content"] == nil || f["content"].Kind != yaml.MappingNode {
		l.diag.add(l.pos(n), "", "activity needs a type and a content mapping")
		return nil
	}
	s := &activityStep{stepCommon: c, activityType: l.name(f["type"], "an activity type"), content: l.valueFromNode(f["content"])}
	if v := f["replace"]; v != nil {
		b := l.bool(v)
		s.replace = &b
	}
	return s
}

func (s *activityStep) emit(p *planner) error {
	content, err := s.content.render(p.r)
	if err != nil {
		return err
	}
	id := p.stepID(&s.stepCommon, "activity")
	put(&p.activityTypes, id, s.activityType)
	ev := protocol.NewEvent(protocol.ActivitySnapshot, "messageId", id, "activityType", s.activityType, "content", content)
	if s.replace != nil {
		ev = ev.With("replace", *s.replace)
	}
	p.emit(ev)
	return nil
}
