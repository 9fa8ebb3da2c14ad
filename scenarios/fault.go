package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Fault kinds: deliberate misbehaviour, as a scenario step or per request. What each
// does, and where it may be asked for, is in the table of kinds (see FaultKindTable).
const (
	FaultStatus     = "status"
	FaultSlowStart  = "slowStart"
	FaultSplit      = "split"
	FaultRunError   = "runError"
	FaultDisconnect = "disconnect"
	FaultStall      = "stall"
	FaultMalformed  = "malformed"
	FaultTruncate   = "truncate"

	// Kinds that break a rule of AG-UI 1.0 the way a faulty agent does, each a faithful
	// wire example of what clients reject or drop.
	FaultWrongRunID           = "wrongRunId"
	FaultWrongThreadID        = "wrongThreadId"
	FaultOtherThread          = "otherThread"
	FaultDuplicateInterruptID = "duplicateInterruptId"
	FaultUnknownEvent         = "unknownEvent"
	FaultBadField             = "badField"
	FaultExpiredInterrupt     = "expiredInterrupt"
)

// FaultScope says where a fault kind acts, and so where it may be asked for.
type FaultScope int

const (
	// FaultScopeRequest kinds act on the request before any stream: per request only.
	FaultScopeRequest FaultScope = iota + 1
	// FaultScopeStream kinds change how the whole stream is written: per request only.
	FaultScopeStream
	// FaultScopeStep kinds break the stream at one event: per request after a number
	// of events, or as a scenario step where the step stands.
	FaultScopeStep
	// FaultScopeEvent kinds send one event of their own and the run goes on: per request
	// after a number of events (never before RUN_STARTED, which must come first), or as
	// a scenario step where the step stands, which later steps may follow.
	FaultScopeEvent
	// FaultScopeEnd kinds rewrite the run's RUN_FINISHED: per request, or as a scenario
	// step anywhere in the run, which later steps may follow (the run's end is still to
	// come).
	FaultScopeEnd
)

// FaultKind is one entry of the table of fault kinds.
type FaultKind struct {
	Name   string
	Params []string // the parameters it takes per request, in the header's spelling and the order of its documentation
	Scope  FaultScope
	Does   string // what it does, in a sentence: the schema and the client type say it too
}

// RequestOnly reports whether the kind applies to whole requests only, so that a
// scenario cannot have it as a step.
func (k FaultKind) RequestOnly() bool {
	return k.Scope == FaultScopeRequest || k.Scope == FaultScopeStream
}

// Terminal reports whether the kind ends the stream where it strikes, so that no step
// may follow its fault step.
func (k FaultKind) Terminal() bool { return k.Scope == FaultScopeStep }

// NeedsInterrupts reports whether the kind acts on the interrupts of the run's interrupt
// outcome: a run that ends without interrupts cannot take it.
func (k FaultKind) NeedsInterrupts() bool {
	return k.Name == FaultDuplicateInterruptID || k.Name == FaultExpiredInterrupt
}

// faultKinds is the table of fault kinds, in the order of their documentation. It is an
// unexported array of values, read only: FaultKindTable hands out copies. `go generate
// ./scenarios` writes the schema's faultKind and the TypeScript client's fault types
// from it (internal/cmd/genschema).
var faultKinds = [...]FaultKind{
	{FaultStatus, []string{"status", "body", "retryAfter"}, FaultScopeRequest, "Answer an HTTP error instead of a stream."},
	{FaultSlowStart, []string{"delay"}, FaultScopeRequest, "Send nothing, not even headers, for the delay; then the run."},
	{FaultSplit, nil, FaultScopeStream, "Write every frame in tiny pieces, splitting characters, escapes and the data: prefix."},
	{FaultRunError, []string{"after", "message", "code"}, FaultScopeStep, "End the run with RUN_ERROR (message and code optional)."},
	{FaultDisconnect, []string{"after"}, FaultScopeStep, "Drop the connection without ending the response: no terminal event, no final chunk."},
	{FaultStall, []string{"after", "keepAlive"}, FaultScopeStep, "Stop sending until the client gives up (or the run is cancelled); keepAlive: true keeps sending keep-alive comments meanwhile."},
	{FaultMalformed, []string{"after"}, FaultScopeStep, "Send a data: frame that is not JSON, then end the stream."},
	{FaultTruncate, []string{"after"}, FaultScopeStep, "End the stream cleanly but without a terminal event (no RUN_FINISHED, no RUN_ERROR)."},
	{FaultWrongRunID, nil, FaultScopeEnd, "End the run with a RUN_FINISHED whose runId is not its RUN_STARTED's (rule finished-run-id); as a step, anywhere in the run, steps may follow."},
	{FaultWrongThreadID, nil, FaultScopeEnd, "End the run with a RUN_FINISHED whose threadId is not its RUN_STARTED's (rule finished-thread-id); as a step, anywhere in the run, steps may follow."},
	{FaultOtherThread, nil, FaultScopeEnd, "After the run's RUN_FINISHED, start and finish a second run on another threadId in the same stream (rule one-thread); as a step, anywhere in the run, steps may follow."},
	{FaultDuplicateInterruptID, nil, FaultScopeEnd, "Give the interrupts of the run's interrupt outcome one id, the first's (a lone interrupt is sent twice) (rule unique-interrupt-ids); a run that ends without interrupts cannot take it (a load error at the step, 422 fault_not_applicable per request); as a step, anywhere in the run, steps may follow."},
	{FaultUnknownEvent, []string{"after"}, FaultScopeEvent, "Send an event of a type AG-UI lacks (MOCK_UNKNOWN_EVENT) and go on with the run; per request after `after` events but never before RUN_STARTED; steps may follow."},
	{FaultBadField, []string{"after"}, FaultScopeEvent, "Send a known event with a field of the wrong type (a CUSTOM whose name is a number) and go on with the run; per request after `after` events but never before RUN_STARTED; steps may follow."},
	{FaultExpiredInterrupt, nil, FaultScopeEnd, "Give the interrupts of the run's interrupt outcome an expiresAt a minute before the RUN_FINISHED's timestamp; a run that ends without interrupts cannot take it (a load error at the step, 422 fault_not_applicable per request); as a step, anywhere in the run, steps may follow."},
}

// FaultKindTable returns the table of fault kinds, in the order of their documentation.
func FaultKindTable() []FaultKind {
	table := faultKinds // a copy of the array, of which the caller may change anything
	out := table[:]
	for i := range out {
		out[i].Params = slices.Clone(out[i].Params)
	}
	return out
}

// LookupFaultKind returns the table's entry for a kind's name.
func LookupFaultKind(name string) (FaultKind, bool) {
	for _, k := range faultKinds {
		if k.Name == name {
			k.Params = slices.Clone(k.Params)
			return k, true
		}
	}
	return FaultKind{}, false
}

// FaultKinds lists the name of every fault kind, in the order of the table.
func FaultKinds() []string {
	out := make([]string, len(faultKinds))
	for i, k := range faultKinds {
		out[i] = k.Name
	}
	return out
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

// faultParam is one fault parameter: how the header's form reads it, whether a fault
// holds it, what values it takes and, for the parameters a scenario's fault step
// takes, how the step reads it.
type faultParam struct {
	name  string
	json  string                                      // its type in the admin API's JSON body: the TypeScript client's, and how DecodeParam decodes it
	parse func(f *Fault, val string) error            // the header's form
	isSet func(f Fault) bool                          // holds other than its zero value
	check func(f Fault, given bool) *FaultError       // nil: any value; given: named by the caller
	yaml  func(l *fileLoader, f *Fault, n *yaml.Node) // nil: no fault step takes it
}

// faultParams are the fault parameters, in the header's spelling and the order of its
// documentation: an unexported array of values, read only.
var faultParams = [...]faultParam{
	{name: "after", json: "number", parse: func(f *Fault, v string) (err error) { f.After, err = strconv.Atoi(v); return err },
		isSet: func(f Fault) bool { return f.After != 0 },
		check: func(f Fault, _ bool) *FaultError {
			if f.After < 0 {
				return &FaultError{"after", fmt.Sprintf("after must not be negative, not %d", f.After)}
			}
			return nil
		}},
	{name: "status", json: "number", parse: func(f *Fault, v string) (err error) { f.Status, err = strconv.Atoi(v); return err },
		isSet: func(f Fault) bool { return f.Status != 0 },
		check: func(f Fault, _ bool) *FaultError {
			if f.Status < 400 || f.Status > 599 {
				return &FaultError{"status", fmt.Sprintf("a status fault needs a status from 400 to 599, not %d", f.Status)}
			}
			return nil
		}},
	{name: "body", json: "unknown", parse: func(f *Fault, v string) error { f.Body = v; return nil },
		isSet: func(f Fault) bool { return f.Body != "" }},
	{name: "retryAfter", json: "number", parse: func(f *Fault, v string) (err error) { f.RetryAfter, err = strconv.Atoi(v); return err },
		isSet: func(f Fault) bool { return f.RetryAfter != 0 },
		check: func(f Fault, given bool) *FaultError {
			if f.RetryAfter < 0 || (f.RetryAfter == 0 && given) {
				return &FaultError{"retryAfter", fmt.Sprintf("retryAfter must be a number of seconds from 1 up, not %d", f.RetryAfter)}
			}
			return nil
		}},
	{name: "delay", json: "string", parse: func(f *Fault, v string) (err error) { f.Delay, err = time.ParseDuration(v); return err },
		isSet: func(f Fault) bool { return f.Delay != 0 },
		check: func(f Fault, _ bool) *FaultError {
			if f.Delay <= 0 {
				return &FaultError{"delay", fmt.Sprintf("a slowStart fault needs a delay greater than 0 (e.g. 2s), not %s", f.Delay)}
			}
			return nil
		}},
	{name: "keepAlive", json: "boolean", parse: func(f *Fault, v string) (err error) { f.KeepAlive, err = strconv.ParseBool(v); return err },
		isSet: func(f Fault) bool { return f.KeepAlive },
		yaml:  func(l *fileLoader, f *Fault, n *yaml.Node) { f.KeepAlive = l.bool(n) }},
	{name: "message", json: "string", parse: func(f *Fault, v string) error { f.Message = v; return nil },
		isSet: func(f Fault) bool { return f.Message != "" },
		yaml:  func(l *fileLoader, f *Fault, n *yaml.Node) { f.Message = l.str(n) }},
	{name: "code", json: "string", parse: func(f *Fault, v string) error { f.Code = v; return nil },
		isSet: func(f Fault) bool { return f.Code != "" },
		yaml:  func(l *fileLoader, f *Fault, n *yaml.Node) { f.Code = l.str(n) }},
}

// lookupFaultParam returns the parameter of a name.
func lookupFaultParam(name string) (faultParam, bool) {
	for _, p := range faultParams {
		if p.name == name {
			return p, true
		}
	}
	return faultParam{}, false
}

// faultParamNames lists every fault parameter, in the order of the header's
// documentation.
func faultParamNames() []string {
	out := make([]string, len(faultParams))
	for i, p := range faultParams {
		out[i] = p.name
	}
	return out
}

// DecodeParam sets a parameter from its member of the admin API's JSON body, and
// returns the parameter's name, "" when the member names none. The member is matched as
// encoding/json matches a struct's fields, its exact name first, then regardless of case.
// Its value is decoded as the parameter's JSON type (FaultParamType) says, a number
// being an integer and any JSON value a string as it is or else compact JSON, then read
// as the header's form reads it: a new parameter is its row of faultParams alone. null,
// as a member left out, sets nothing. A value of another JSON type is a
// *json.UnmarshalTypeError that names the member, as encoding/json names a struct's
// field; one the parameter cannot take (a delay that is no duration) is a *FaultError.
func (f *Fault) DecodeParam(member string, raw json.RawMessage) (string, error) {
	p, ok := lookupFaultParam(member)
	for i := 0; !ok && i < len(faultParams); i++ {
		p, ok = faultParams[i], strings.EqualFold(faultParams[i].name, member)
	}
	if !ok {
		return "", nil
	}
	if string(raw) == "null" {
		return p.name, nil
	}
	var text string
	var err error
	switch p.json {
	case "number":
		var n int
		err = decodeMember(p.name, raw, &n)
		text = strconv.Itoa(n)
	case "boolean":
		var b bool
		err = decodeMember(p.name, raw, &b)
		text = strconv.FormatBool(b)
	case "string":
		err = decodeMember(p.name, raw, &text)
	default:
		text = rawText(raw)
	}
	if err != nil {
		return p.name, err
	}
	if err := p.parse(f, text); err != nil {
		return p.name, &FaultError{p.name, p.name + ": " + err.Error()}
	}
	return p.name, nil
}

// decodeMember decodes a member of a JSON body into v; a value of another JSON type is
// a *json.UnmarshalTypeError that names the member.
func decodeMember(name string, raw json.RawMessage, v any) error {
	err := json.Unmarshal(raw, v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		te.Field = name
	}
	return err
}

// rawText is a JSON value as text: a string as it is, any other value as compact JSON,
// null or nothing as "".
func rawText(raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var compact bytes.Buffer
	if json.Compact(&compact, raw) != nil || compact.String() == "null" {
		return "" // not JSON: the body's decoder has refused it already
	}
	return compact.String()
}

// FaultParamType returns the TypeScript type a fault parameter takes in the admin API's
// JSON body (number, string, boolean, or unknown for any JSON value): a delay is a
// duration string such as "2s".
func FaultParamType(name string) (string, bool) {
	p, ok := lookupFaultParam(name)
	return p.json, ok
}

// FaultError says what is wrong with a fault, and which parameter is to blame: "kind"
// for the kind.
type FaultError struct {
	Param   string
	Problem string
}

// Error says what is wrong with the fault.
func (e *FaultError) Error() string { return e.Problem }

// requestOnlyHint tells where a fault kind that applies to whole requests is asked
// for. It names the server's fault header, which scenarios cannot import; a server
// test checks that the names agree.
const requestOnlyHint = "use the X-Agui-Mock-Fault header or the admin API"

// Check reports what is wrong with a fault, as a *FaultError: an unknown kind, a
// parameter its kind does not take, or a value out of range. given names the parameters
// the caller was given, so that one given with its zero value is judged too; parameters
// with other values are judged whether named or not. In a scenario a fault takes no
// after: it strikes where its step stands.
func (f Fault) Check(inScenario bool, given ...string) error {
	kind, ok := LookupFaultKind(f.Kind)
	if !ok {
		return &FaultError{"kind", fmt.Sprintf("unknown fault %q (one of %s)", f.Kind, strings.Join(FaultKinds(), ", "))}
	}
	if inScenario && kind.RequestOnly() {
		return &FaultError{"kind", fmt.Sprintf("fault %s applies to a whole request: %s", f.Kind, requestOnlyHint)}
	}
	takes := kind.Params
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
	for _, name := range takes {
		if p, _ := lookupFaultParam(name); p.check != nil {
			if err := p.check(f, slices.Contains(given, name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// params lists the parameters named in given and those set to other than their zero
// value, in the order of the header's documentation, without repeats.
func (f Fault) params(given []string) []string {
	var out []string
	for _, p := range faultParams {
		if p.isSet(f) || slices.Contains(given, p.name) {
			out = append(out, p.name)
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
		param, known := lookupFaultParam(key)
		if !known {
			return f, &FaultError{key, fmt.Sprintf("unknown fault parameter %q (one of %s)", key, strings.Join(faultParamNames(), ", "))}
		}
		err := param.parse(&f, val)
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
