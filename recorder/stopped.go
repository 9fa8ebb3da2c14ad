package recorder

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// saveUnfinished writes a run that did not finish, and returns its file. A session's
// first run that the client stopped (a Stop button: it went away while the agent
// streamed) is written where its session's fixture goes, as a stopped scenario that
// replays its events with their timing and then holds the stream open, as the agent did
// when the client left; unless a recording of the same first request is there already,
// which it does not replace. Every other unfinished run, and that one then, is kept
// apart, in a hidden directory no server loads, marked broken with why it is incomplete.
func (r *Recorder) saveUnfinished(s *session, route string, in *protocol.RunAgentInput, recorded []scenarios.RecordedEvent, problem string, continuing bool, rd *redactor) (string, error) {
	if problem == clientGone && !continuing && underWay(recorded) && !exists(s.file) {
		sc := r.newScenario(s, route, in, "", rd)
		sc.Stopped = fmt.Sprintf("the client stopped the run while it was recorded, after %d events", len(recorded))
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
