package scenarios

import (
	"time"

	"go.yaml.in/yaml/v3"
)

const pauseHint = "Waits without sending anything, e.g. 2s; a number is milliseconds."

// pauseStep waits.
type pauseStep struct {
	stepCommon
	length time.Duration
}

func (l *fileLoader) pauseStep(c stepCommon, n *yaml.Node) step {
	return &pauseStep{stepCommon: c, length: l.duration(n)}
}

func (s *pauseStep) emit(p *planner) error {
	p.wait(s.length)
	return nil
}
