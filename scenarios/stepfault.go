package scenarios

import (
	"errors"

	"go.yaml.in/yaml/v3"
)

// faultHint describes the fault step, which reads the tables of fault kinds and of their
// parameters (fault.go).
const faultHint = "Breaks the stream on purpose at this point, to test how a client copes: the run ends here and the thread's conversation does not continue. " +
	"It must be the last step of its list, and a scenario with a fault step needs broken: <reason>. " +
	"Write the kind, or an object with kind and its options. " +
	"Faults of a whole request are set per request with the X-Agui-Mock-Fault header or the admin API instead. " +
	"Taken literally: no templates."

// stepFaultKeys are the keys of a fault step's mapping form: kind, and the parameters
// a fault step reads, in the order of the header's documentation.
func stepFaultKeys() []string {
	keys := []string{"kind"}
	for _, p := range faultParams {
		if p.yaml != nil {
			keys = append(keys, p.name)
		}
	}
	return keys
}

// faultStep breaks the stream at its place in the scenario, or, for a kind that does not
// end the stream, marks its place for the player (see FaultKind.Terminal).
type faultStep struct {
	stepCommon
	fault Fault
}

func (l *fileLoader) faultStep(c stepCommon, n *yaml.Node) step {
	s := &faultStep{stepCommon: c}
	var f map[string]*yaml.Node
	var given []string
	if n.Kind == yaml.ScalarNode {
		s.fault.Kind = n.Value
	} else {
		f = l.fields(n, "fault", stepFaultKeys())
		if f == nil || f["kind"] == nil {
			l.diag.add(l.pos(n), "", "fault needs a kind")
			return nil
		}
		s.fault.Kind = l.str(f["kind"])
		for key := range f {
			if key != "kind" {
				given = append(given, key)
			}
		}
		for _, p := range faultParams {
			if v := f[p.name]; v != nil && p.yaml != nil {
				p.yaml(l, &s.fault, v)
			}
		}
	}
	if err := s.fault.Check(true, given...); err != nil {
		at := n
		var fe *FaultError
		if errors.As(err, &fe) && f[fe.Param] != nil { // point at the parameter to blame
			at = f[fe.Param]
		}
		l.diag.add(l.pos(at), "", "%v", err)
		return nil
	}
	return s
}

func (s *faultStep) emit(p *planner) error {
	f := s.fault
	p.events = append(p.events, Timed{At: p.at, Fault: &f, Step: p.stepName})
	if p.trace {
		p.origins = append(p.origins, p.current)
	}
	kind, _ := LookupFaultKind(f.Kind)
	switch {
	case kind.Scope == FaultScopeEnd:
		p.ending = append(p.ending, endingFault{kind: kind, at: s.at})
	case kind.Terminal():
		p.terminated = true
	}
	return nil
}

// ends reports whether the step ends the stream, so that no step may follow it.
func (s *faultStep) ends() bool {
	kind, _ := LookupFaultKind(s.fault.Kind)
	return kind.Terminal()
}
