package server

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/agui-mock/agui-mock/scenarios"
)

// LoadStatus is the outcome of the latest scenario load.
type LoadStatus struct {
	Scenarios int                    `json:"scenarios"`
	LoadedAt  time.Time              `json:"loadedAt"`
	Reloads   int                    `json:"reloads"`
	Failed    bool                   `json:"failed"`
	FailedAt  time.Time              `json:"failedAt,omitzero"`
	Errors    []scenarios.Diagnostic `json:"errors"`
}

// loadState is what loading produced. mu serializes loads, and is held while one
// runs; state guards status and runtime only for moments, so that reading them never
// waits for a load. Both are held to change status or runtime.
type loadState struct {
	mu      sync.Mutex
	state   sync.Mutex
	status  LoadStatus
	runtime []*scenarios.Scenario // added through the admin API, newest first
	added   int                   // how many were ever added, to name them; guarded by mu
	// memory is what loads keep for the next: a reload reads, parses and checks again
	// only what changed since.
	memory *scenarios.Memory
}

// Reload loads the scenario sources again, with the scenarios added at run time, and
// swaps the set in if it is valid. If it is not, the server keeps serving the last good
// set and reports every problem in the log and in the status. Runs already streaming
// finish with the set they started with. When ctx is done the load stops, and Reload
// fails with ctx's cause and changes nothing.
func (s *Server) Reload(ctx context.Context) error {
	s.load.mu.Lock()
	defer s.load.mu.Unlock()
	return s.reloadLocked(ctx, s.load.runtime)
}

// reloadLocked builds and swaps in the set with the given runtime scenarios; the caller
// holds s.load.mu. On failure nothing changes but the status. The load stops when ctx
// is done or the server shuts down.
func (s *Server) reloadLocked(ctx context.Context, runtime []*scenarios.Scenario) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-s.stopping:
			cancel(errShutdown)
		case <-ctx.Done():
		}
	}()
	s.cfg.Logger.Debug("reloading scenarios")
	set, err := scenarios.LoadRemembering(ctx, s.cfg.TemplateLimits, s.load.memory, runtime, s.cfg.Sources...)
	if ctx.Err() != nil { // stopped, not rejected: the status stays as it was
		s.cfg.Logger.Info("scenario reload stopped; still serving the previous set", "why", context.Cause(ctx).Error())
		return err
	}
	s.load.state.Lock()
	defer s.load.state.Unlock()
	if err != nil {
		var le *scenarios.LoadError
		diags := []scenarios.Diagnostic{{Message: err.Error()}}
		if errors.As(err, &le) {
			diags = le.Diagnostics
		}
		s.load.status.Failed, s.load.status.FailedAt, s.load.status.Errors = true, time.Now(), diags
		for _, d := range diags {
			s.cfg.Logger.Error("scenario reload rejected; still serving the previous set", "problem", d.Error())
		}
		s.metrics.reloaded(false)
		s.publish(journalChange{kind: changeReload, status: s.load.status})
		return err
	}
	s.set.Store(set)
	s.load.runtime = runtime
	s.load.status = LoadStatus{Scenarios: len(set.Scenarios()), LoadedAt: time.Now(), Reloads: s.load.status.Reloads + 1, Errors: []scenarios.Diagnostic{}}
	s.metrics.reloaded(true)
	s.publish(journalChange{kind: changeReload, status: s.load.status})
	s.cfg.Logger.Info("scenarios reloaded", "scenarios", len(set.Scenarios()))
	s.logWarnings(set)
	return nil
}

// Status returns the outcome of the latest load. It does not wait for a load under way.
func (s *Server) Status() LoadStatus {
	s.load.state.Lock()
	defer s.load.state.Unlock()
	return s.load.status
}
