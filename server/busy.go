package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/threads"
)

// busyWait is how long a run that finds its thread busy waits for the run streaming
// there to end. A client that stops a run (an aborted request) and at once starts the
// next one on the thread may come before the server has seen the first one leave, which
// net/http tells only when it reads the closed connection: the next run should not fail
// for that, as it would not against an agent. A second run that truly overlaps the first
// is refused after the wait.
const busyWait = time.Second

// beginRun claims the run's thread (threads.Store.Begin), waiting up to busyWait, or
// until ctx is done, for a run streaming there to end. A thread still busy then is
// answered 409 run_in_progress.
func (s *Server) beginRun(ctx context.Context, key threads.Key, runID string, cancel context.CancelCauseFunc) (*threads.Run, *scenarios.Cursor, error) {
	run, cursor, err := s.threads.Begin(key, runID, cancel)
	var busy *threads.BusyError
	if !errors.As(err, &busy) {
		return run, cursor, err
	}
	wait := time.NewTimer(busyWait)
	defer wait.Stop()
	select {
	case <-busy.Ended:
		run, cursor, err = s.threads.Begin(key, runID, cancel)
	case <-wait.C:
	case <-ctx.Done():
	}
	if errors.As(err, &busy) {
		return nil, nil, &httpError{status: http.StatusConflict, body: errorBody{Error: "run_in_progress", Message: busy.Error(), Details: map[string]any{"runId": busy.RunID}}}
	}
	return run, cursor, err
}
