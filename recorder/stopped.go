package recorder

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// saveUnfinished writes a run that did not finish, and returns its file. A run that the
// client stopped (a Stop button: it went away while the agent streamed) replays its
// events with their timing and then holds the stream open, as the agent did when the
// client left: a session's first run is written where its session's fixture goes, as a
// stopped scenario, unless a recording of the same first request is there already,
// which it does not replace; a run that continues the session is placed in its fixture
// as a stopped continuation of the run it answers. Every other unfinished run, and that
// first one then, is kept apart, in a hidden directory no server loads, marked broken
// with why it is incomplete.
func (r *Recorder) saveUnfinished(s *session, route string, in *protocol.RunAgentInput, recorded []scenarios.RecordedEvent, problem string, continuing bool, rd *redactor) (string, error) {
	stopped := problem == clientGone && underWay(recorded)
	if stopped && continuing {
		return s.file, r.placeStopped(s, in, recorded, rd)
	}
	if stopped && !exists(s.file) {
		sc := r.newScenario(s, route, in, "", rd)
		sc.Stopped = stoppedReason(len(recorded))
		sc.Description += ": stopped by the client while recording; it replays the events the agent sent until then, then holds the stream open without a terminal event"
		sc.Comment += "\nThe client stopped this run (a Stop button) while it was recorded: it replays the agent's events until then,\n" +
			"then sends nothing more and keeps the stream open, as the agent did, until the client goes away.\n" +
			"A later recording of the same request replaces it. agui-mock verify skips it."
		sc.Events = recorded
		return s.file, r.write(s.file, sc)
	}
	suffix := fmt.Sprintf("-run%d-%s", s.runs+1, time.Now().UTC().Format(stampFormat))
	file := filepath.Join(r.cfg.OutDir, incompleteDir, strings.TrimSuffix(filepath.Base(s.file), ".yaml")+suffix+".yaml")
	sc := r.newScenario(s, route, in, "incomplete recording: "+problem, rd)
	sc.ID, sc.Events = s.id+suffix, recorded
	return file, r.write(file, sc)
}

// placeStopped places a continuation the client stopped in its session's fixture, after
// the run it answers. Nothing continues it: the session waits for nothing once it is
// written.
func (r *Recorder) placeStopped(s *session, in *protocol.RunAgentInput, recorded []scenarios.RecordedEvent, rd *redactor) error {
	path := append(slices.Clone(s.path), s.whenFor(in, rd))
	doc, err := r.load(s.file)
	if err != nil {
		return fmt.Errorf("the fixture of this session cannot be read: %w", err)
	}
	if err := doc.Place(path, recorded, stoppedReason(len(recorded))); err != nil {
		return err
	}
	if err := r.write(s.file, doc); err != nil {
		return err
	}
	s.path, s.awaiting, s.toolCalls = path, nil, nil
	s.runs++
	return nil
}

// stoppedReason is what a recording says of a run the client stopped after n events.
func stoppedReason(n int) string {
	return fmt.Sprintf("the client stopped the run while it was recorded, after %d events", n)
}

// incompleteDir is the hidden directory, inside the output directory, of the recordings
// kept apart.
const incompleteDir = ".incomplete"

// apart reports whether a recording's file was kept apart as incomplete.
func (r *Recorder) apart(file string) bool {
	return filepath.Dir(file) == filepath.Join(r.cfg.OutDir, incompleteDir)
}

// underWay reports whether a run's events are those of a run under way: it started,
// and has not ended.
func underWay(events []scenarios.RecordedEvent) bool {
	if len(events) == 0 || events[0].Type != protocol.RunStarted {
		return false
	}
	last := events[len(events)-1].Type
	return last != protocol.RunFinished && last != protocol.RunError
}
