package server

import (
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

// loadState guards the load status.
type loadState struct {
	mu     sync.Mutex
	status LoadStatus
}

// Reload loads a new scenario set and swaps it in if it is valid. If it is not, the
// server keeps serving the last good set and reports every problem in the log and in
// the status. Runs already streaming finish with the set they started with.
func (s *Server) Reload(load func() (*scenarios.Set, error)) error {
	set, err := load()
	s.load.mu.Lock()
	defer s.load.mu.Unlock()
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
		return err
	}
	s.set.Store(set)
	s.load.status = LoadStatus{Scenarios: len(set.Scenarios()), LoadedAt: time.Now(), Reloads: s.load.status.Reloads + 1, Errors: []scenarios.Diagnostic{}}
	s.cfg.Logger.Info("scenarios reloaded", "scenarios", len(set.Scenarios()))
	return nil
}

// Status returns the outcome of the latest load.
func (s *Server) Status() LoadStatus {
	s.load.mu.Lock()
	defer s.load.mu.Unlock()
	return s.load.status
}
