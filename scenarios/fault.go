package scenarios

import (
	"errors"
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

// faultParamNames lists every fault parameter, in the header's spelling and the order of
// its documentation.
var faultParamNames = []string{"after", "status", "body", "retryAfter", "delay", "keepAlive", "message", "code"}

// FaultParams returns the parameters a fault kind takes, in the header's spelling.
func FaultParams(kind string) []string {
	switch kind {
	case FaultStatus:
		return []string{"status", "body", "retryAfter"}
	case FaultSlowStart:
		return []string{"delay"}
	case FaultSplit:
		return nil
	case FaultRunError:
		return []string{"after", "message", "code"}
	case FaultStall:
		return []string{"after", "keepAlive"}
	}
	return []string{"after"} // disconnect, malformed, truncate
}

// FaultError says what is wrong with a fault, and which parameter is to blame: "kind"
// for the kind.
type FaultError struct {
	Param   string
	Problem string
}

func (e *FaultError) Error() string { return e.Problem }

// Check reports what is wrong with a fault, as a *FaultError: an unknown kind, a
// parameter its kind does not take, or a value out of range. given names the parameters
// the caller was given, so that one given with its zero value is judged too; parameters
// with other values are judged whether named or not. In a scenario a fault takes no
// after: it strikes where its step stands.
func (f Fault) Check(inScenario bool, given ...string) error {
	if !slices.Contains(FaultKinds(), f.Kind) {
		return &FaultError{"kind", fmt.Sprintf("unknown fault %q (one of %s)", f.Kind, strings.Join(FaultKinds(), ", "))}
	}
	if inScenario && (f.Kind == FaultStatus || f.Kind == FaultSlowStart || f.Kind == FaultSplit) {
		return &FaultError{"kind", fmt.Sprintf("fault %s applies to a whole request: use the %s header or the admin API", f.Kind, "X-Agui-Mock-Fault")}
	}
	takes := FaultParams(f.Kind)
	if inScenario {
		takes = slices.DeleteFunc(takes, func(p string) bool { return p == "after" })
	}
	for _, p := range f.params(given) {
		if !slices.Contains(takes, p) {
			list := "no parameters"
			if len(takes) > 0 {
				list = strings.Join(takes, ", ")
			}
			return &FaultError{p, fmt.Sprintf("parameter %s does not apply to a %s fault (%s takes %s)", p, f.Kind, f.Kind, list)}
		}
	}
	switch {
	case f.Kind == FaultStatus && (f.Status < 400 || f.Status > 599):
		return &FaultError{"status", fmt.Sprintf("a status fault needs a status from 400 to 599, not %d", f.Status)}
	case f.After < 0:
		return &FaultError{"after", fmt.Sprintf("after must not be negative, not %d", f.After)}
	case f.RetryAfter < 0 || (f.RetryAfter == 0 && slices.Contains(given, "retryAfter")):
		return &FaultError{"retryAfter", fmt.Sprintf("retryAfter must be a number of seconds from 1 up, not %d", f.RetryAfter)}
	case f.Kind == FaultSlowStart && f.Delay <= 0:
		return &FaultError{"delay", fmt.Sprintf("a slowStart fault needs a delay greater than 0 (e.g. 2s), not %s", f.Delay)}
	}
	return nil
}

// params lists the parameters named in given and those set to other than their zero
// value, in the order of the header's documentation, without repeats.
func (f Fault) params(given []string) []string {
	set := map[string]bool{
		"after": f.After != 0, "status": f.Status != 0, "body": f.Body != "", "retryAfter": f.RetryAfter != 0,
		"keepAlive": f.KeepAlive, "delay": f.Delay != 0, "message": f.Message != "", "code": f.Code != "",
	}
	var out []string
	for _, p := range faultParamNames {
		if set[p] || slices.Contains(given, p) {
			out = append(out, p)
		}
	}
	return out
}

// ParseFault reads the fault header's form: a kind, then ;-separated key=value
// parameters, e.g. "status; status=429; retryAfter=3" or "disconnect; after=5"
// (keepAlive may stand alone for keepAlive=true). Its errors are *FaultError when a
// parameter is to blame.
func ParseFault(s string) (Fault, error) {
	parts := strings.Split(s, ";")
	f := Fault{Kind: strings.TrimSpace(parts[0])}
	var given []string
	for _, p := range parts[1:] {
		p = strings.TrimSpace(p)
		key, val, ok := strings.Cut(p, "=")
		if !ok && p == "keepAlive" {
			key, val, ok = "keepAlive", "true", true
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok {
			return f, &FaultError{p, fmt.Sprintf("fault parameter %q is not key=value", p)}
		}
		if slices.Contains(given, key) {
			return f, &FaultError{key, fmt.Sprintf("fault parameter %s is given twice", key)}
		}
		given = append(given, key)
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
			return f, &FaultError{key, fmt.Sprintf("unknown fault parameter %q (one of %s)", key, strings.Join(faultParamNames, ", "))}
		}
		var ne *strconv.NumError
		if errors.As(err, &ne) {
			err = ne.Err // "invalid syntax", without Go's function names
		}
		if err != nil {
			return f, &FaultError{key, fmt.Sprintf("fault parameter %s=%q: %v", key, val, err)}
		}
	}
	return f, f.Check(false, given...)
}

// faultStep breaks the stream at its place in the scenario.
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
		f = l.fields(n, "fault", []string{"kind", "keepAlive", "message", "code"})
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
	p.terminated = true
	return nil
}
