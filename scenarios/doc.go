// Package scenarios loads YAML scenario files, selects the scenario that answers a run
// request, and turns it into a timed plan of AG-UI events.
package scenarios

// The schema's step and fault kinds and the TypeScript client's types are written from
// the tables of step kinds (steps.go) and fault kinds (fault.go).
//go:generate go run ../internal/cmd/genschema -root ..
