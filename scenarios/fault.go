package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Fault kinds: deliberate misbehaviour, as a scenario step or per request.
const (
	FaultStatus     = "status"     // answer an HTTP error instead of a stream (request only)
	FaultSlowStart  = "slowStart"  // wait before the first byte (request only)
	FaultSplit      = "split"      // write every frame in tiny chunks, splitting characters and escapes (request only)
	FaultRunError   = "runError"   // end with RUN_ERROR
	FaultDisconnect = "disconnect" // drop the connection
	FaultStall      = "stall"      // stop sending, with or without keep-alives, until the client gives up
	FaultMalformed  = "malformed"  // send a data: frame that is not JSON, then end
	FaultTruncate   = "truncate"   // end the stream without a terminal event
)

// FaultKinds lists every fault kind; the first three apply to whole requests only.
func FaultKinds() []string {
	return []string{FaultStatus, FaultSlowStart, FaultSplit, FaultRunError, FaultDisconnect, FaultStall, FaultMalformed, FaultTruncate}
}

// Fault is a deliberate misbehaviour.
type Fault struct {
	Kind       string        `json:"kind"`
	After      int           `json:"after,omitempty"`      // events sent first (per request)
	Status     int           `json:"status,omitempty"`     // status: the HTTP status
	Body       string        `json:"body,omitempty"`       // status: the answer's body
	RetryAfter int           `json:"retryAfter,omitempty"` // status: seconds, sent as Retry-After
	KeepAlive  bool          `json:"keepAlive,omitempty"`  // stall: keep-alive comments while stalled
	Delay      time.Duration `json:"-"`                    // slowStart: how long
	Message    string        `json:"message,omitempty"`    // runError
	Code       string        `json:"code,omitempty"`       // runError
}

// Check reports what is wrong with a fault.
func (f Fault) Check(inScenario bool) error {
	if !slices.Contains(FaultKinds(), f.Kind) {
		return fmt.Errorf("unknown fault %q (one of %s)", f.Kind, strings.Join(FaultKinds(), ", "))
	}
	if inScenario && (f.Kind == FaultStatus || f.Kind == FaultSlowStart || f.Kind == FaultSplit) {
		return fmt.Errorf("fault %s applies to a whole request: use the %s header or the admin API", f.Kind, "X-Agui-Mock-Fault")
	}
	if f.Kind == FaultStatus && (f.Status < 400 || f.Status > 599) {
		return fmt.Errorf("a status fault needs a status from 400 to 599")
	}
	if f.After < 0 {
		return fmt.Errorf("after must not be negative")
	}
	if f.Delay < 0 || (f.Delay != 0 && f.Kind != FaultSlowStart) {
		return fmt.Errorf("delay applies to slowStart faults only, and must not be negative")
	}
	return nil
}

// ParseFault reads the fault header's form: a kind, then ;-separated key=value
// parameters, e.g. "status; status=429; retryAfter=3" or "disconnect; after=5".
func ParseFault(s string) (Fault, error) {
	parts := strings.Split(s, ";")
	f := Fault{Kind: strings.TrimSpace(parts[0])}
	for _, p := range parts[1:] {
		key, val, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok && strings.TrimSpace(p) == "keepAlive" {
			key, val, ok = "keepAlive", "true", true
		}
		if !ok {
			return f, fmt.Errorf("fault parameter %q is not key=value", strings.TrimSpace(p))
		}
		var err error
		switch key {
		case "after":
			f.After, err = strconv.Atoi(val)
		case "status":
			f.Status, err = strconv.Atoi(val)
		case "retryAfter":
			f.RetryAfter, err = strconv.Atoi(val)
		case "body":
			f.Body = val
		case "keepAlive":
			f.KeepAlive, err = strconv.ParseBool(val)
		case "delay":
			f.Delay, err = time.ParseDuration(val)
		case "message":
			f.Message = val
		case "code":
			f.Code = val
		default:
			return f, fmt.Errorf("unknown fault parameter %q", key)
		}
		if err != nil {
			return f, fmt.Errorf("fault parameter %s=%q: %v", key, val, err)
		}
	}
	return f, f.Check(false)
}

// faultStep breaks the stream at its place in the scenario.
type faultStep struct {
	stepCommon
	fault Fault
}

func (l *fileLoader) faultStep(c stepCommon, n *yaml.Node) step {
	s := &faultStep{stepCommon: c}
	if n.Kind == yaml.ScalarNode {
		s.fault.Kind = n.Value
	} else {
		f := l.fields(n, "fault", []string{"kind", "keepAlive", "message", "code"})
		if f == nil || f["kind"] == nil {
			l.diag.add(l.pos(n), "", "fault needs a kind")
			return nil
		}
		s.fault.Kind = l.str(f["kind"])
		if v := f["keepAlive"]; v != nil {
			s.fault.KeepAlive = l.bool(v)
		}
		if v := f["message"]; v != nil {
			s.fault.Message = l.str(v)
		}
		if v := f["code"]; v != nil {
			s.fault.Code = l.str(v)
		}
	}
	if err := s.fault.Check(true); err != nil {
		l.diag.add(l.pos(n), "", "%v", err)
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
	p.terminated = true
	return nil
}
