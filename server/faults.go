package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/testctl"
)

// FaultHeader makes one request misbehave, e.g. "status; status=429; retryAfter=3",
// "disconnect; after=5" or "split". See scenarios.Fault for the kinds.
const FaultHeader = "X-Agui-Mock-Fault"

// faultRequest is the body of POST /_mock/faults: a fault's kind and parameters, and
// how many requests it applies to. Each parameter is decoded as its row of the fault
// parameters' table says (scenarios.Fault.DecodeParam), so that the body takes every
// parameter the header does, in its JSON type.
type faultRequest struct {
	Kind  string
	Times *int
	// On is the route the fault applies to: run (the default), or one of the CopilotKit
	// runtime's handshake, info, connect or stop.
	On *string

	params  scenarios.Fault // its parameters, as given
	given   []string        // the parameters given, null ones aside: one given with its zero value is judged too
	invalid error           // the first parameter given a value it cannot take, reported after the body is read
}

// UnmarshalJSON reads the body's members in order, as encoding/json reads a struct's
// fields with unknown ones refused: the first member of the wrong JSON type, or unknown,
// is the error, named as encoding/json names it.
func (r *faultRequest) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return &json.UnmarshalTypeError{Value: jsonKind(data), Type: reflect.TypeFor[faultRequest]()}
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		member, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if err := r.member(member, raw); err != nil {
			return err
		}
	}
	return nil
}

// member reads one member of the body.
func (r *faultRequest) member(member string, raw json.RawMessage) error {
	switch {
	case strings.EqualFold(member, "kind"):
		return decodeMember("kind", raw, &r.Kind)
	case strings.EqualFold(member, "times"):
		return decodeMember("times", raw, &r.Times)
	case strings.EqualFold(member, "on"):
		return decodeMember("on", raw, &r.On)
	}
	name, err := r.params.DecodeParam(member, raw)
	var fe *scenarios.FaultError
	switch {
	case name == "":
		return fmt.Errorf("json: unknown field %q", member)
	case errors.As(err, &fe):
		if r.invalid == nil {
			r.invalid = err
		}
	case err != nil:
		return err
	}
	if string(raw) != "null" && !slices.Contains(r.given, name) {
		r.given = append(r.given, name)
	}
	return nil
}

// decodeMember decodes a member of the body into v; a value of another JSON type is a
// *json.UnmarshalTypeError that names the member.
func decodeMember(name string, raw json.RawMessage, v any) error {
	err := json.Unmarshal(raw, v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		te.Field = name
	}
	return err
}

// jsonKind names the kind of a JSON value as encoding/json does in its type errors.
func jsonKind(data []byte) string {
	switch bytes.TrimSpace(data)[0] {
	case '"':
		return "string"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	}
	return "number"
}

// Routes a queued fault applies to: runs, or a route of the CopilotKit runtime's
// handshake, which takes handshakeFaultKinds only.
const (
	faultOnRun     = "run"
	faultOnInfo    = "info"
	faultOnConnect = "connect"
	faultOnStop    = "stop"
)

// handshakeFaultKinds are the fault kinds a request of the runtime's handshake takes:
// it fails (status), waits (slowStart) or loses its connection (disconnect).
var handshakeFaultKinds = []string{scenarios.FaultStatus, scenarios.FaultSlowStart, scenarios.FaultDisconnect}

// faultQueue is the queue of a test's faults for the route on names.
func (s *Server) faultQueue(on string) (*testctl.Queue[scenarios.Fault], bool) {
	switch on {
	case "", faultOnRun:
		return &s.tests.Faults, true
	case faultOnInfo:
		return &s.tests.InfoFaults, true
	case faultOnConnect:
		return &s.tests.ConnectFaults, true
	case faultOnStop:
		return &s.tests.StopFaults, true
	}
	return nil, false
}

// fault is the fault the body describes, and the parameters it names.
func (r faultRequest) fault() (scenarios.Fault, []string, error) {
	f := r.params
	f.Kind = r.Kind
	return f, slices.Clone(r.given), r.invalid
}

// addFault queues a fault for the next run requests of the caller's test id: the
// fault's kind and the parameters it takes, plus "times" (requests it applies to;
// default 1, 0 for every one). A status fault's "body" is any JSON value, sent as the
// JSON body; a string is sent as it is.
func (s *Server) addFault(c echo.Context) error {
	var body faultRequest
	if err := s.decodeAdminBody(c, &body); err != nil {
		return err
	}
	if body.Kind == "" {
		return missingMember("kind", "one of "+strings.Join(scenarios.FaultKinds(), ", "))
	}
	on := ""
	if body.On != nil {
		on = *body.On
	}
	queue, ok := s.faultQueue(on)
	if !ok {
		return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Field: "on",
			Message: "on must be run, info, connect or stop (the CopilotKit runtime's handshake), got " + strconv.Quote(on)}}
	}
	handshake := on != "" && on != faultOnRun
	f, given, err := body.fault()
	passing := 0 // on the handshake, after is the route's requests that pass first
	if handshake {
		passing, f.After = f.After, 0
		given = slices.DeleteFunc(given, func(p string) bool { return p == "after" })
	}
	if err == nil {
		err = f.Check(false, given...)
	}
	if err != nil {
		var fe *scenarios.FaultError
		field := ""
		if errors.As(err, &fe) {
			field = fe.Param
		}
		return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Message: err.Error(), Field: field}}
	}
	if handshake && !slices.Contains(handshakeFaultKinds, f.Kind) {
		return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Field: "kind",
			Message: "a fault on the runtime's " + on + " route is one of " + strings.Join(handshakeFaultKinds, ", ") + ", not " + f.Kind}}
	}
	if passing < 0 {
		return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Field: "after",
			Message: "after, the " + on + " requests that pass before the fault, must be 0 or more"}}
	}
	times := 1
	if body.Times != nil {
		times = *body.Times
	}
	if times < 0 {
		return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Message: "times must be 0 (every request) or more", Field: "times"}}
	}
	testID := c.Request().Header.Get(TestIDHeader)
	for range passing { // a place in the queue that takes no fault
		queue.Push(testID, scenarios.Fault{}, 1)
	}
	queue.Push(testID, f, times)
	reply := map[string]any{"fault": f, "times": times}
	if handshake {
		reply["on"], reply["after"] = on, passing
	}
	if f.Delay > 0 {
		reply["delay"] = f.Delay.String()
	}
	return c.JSON(http.StatusCreated, reply)
}

// forgetFaults empties a test's queues of faults, of every route.
func (s *Server) forgetFaults(testID string, all bool) {
	for _, on := range []string{faultOnRun, faultOnInfo, faultOnConnect, faultOnStop} {
		queue, _ := s.faultQueue(on)
		queue.Reset(testID, all)
	}
}

// requestFault is the fault a run request asks for: its header's, or the test's queued
// one.
func (s *Server) requestFault(c echo.Context) (*scenarios.Fault, error) {
	if h := c.Request().Header.Get(FaultHeader); h != "" {
		f, err := scenarios.ParseFault(h)
		if err != nil {
			return nil, apiError(http.StatusBadRequest, "invalid_header", FaultHeader+": "+err.Error())
		}
		return &f, nil
	}
	f, ok := s.tests.Faults.Take(c.Request().Header.Get(TestIDHeader))
	if !ok {
		return nil, nil
	}
	queued := f // a variable of its own, so that only a request with a fault allocates one
	return &queued, nil
}
