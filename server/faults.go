package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/testctl"
)

// FaultHeader makes one request misbehave, e.g. "status; status=429; retryAfter=3",
// "disconnect; after=5" or "split". See scenarios.Fault for the kinds.
const FaultHeader = "X-Agui-Mock-Fault"

// faultRequest is the body of POST /_mock/faults: a fault's kind and parameters, and
// how many requests it applies to. Pointers tell a member given with its zero value
// from one not given, since a parameter the kind does not take is refused either way.
type faultRequest struct {
	Kind       string          `json:"kind"`
	After      *int            `json:"after"`
	Status     *int            `json:"status"`
	Body       json.RawMessage `json:"body"` // any JSON value
	RetryAfter *int            `json:"retryAfter"`
	KeepAlive  *bool           `json:"keepAlive"`
	Delay      *string         `json:"delay"` // a duration such as "2s"
	Message    *string         `json:"message"`
	Code       *string         `json:"code"`
	Times      *int            `json:"times"`
	// On is the route the fault applies to: run (the default), or one of the CopilotKit
	// runtime's handshake, info, connect or stop.
	On *string `json:"on"`
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

// fault builds the fault the body describes, and the parameters it names.
func (r faultRequest) fault() (scenarios.Fault, []string, error) {
	f := scenarios.Fault{Kind: r.Kind, Body: faultBody(r.Body)}
	var given []string
	take := func(name string, present bool) bool {
		if present {
			given = append(given, name)
		}
		return present
	}
	if take("after", r.After != nil) {
		f.After = *r.After
	}
	if take("status", r.Status != nil) {
		f.Status = *r.Status
	}
	take("body", len(r.Body) > 0 && string(r.Body) != "null")
	if take("retryAfter", r.RetryAfter != nil) {
		f.RetryAfter = *r.RetryAfter
	}
	if take("keepAlive", r.KeepAlive != nil) {
		f.KeepAlive = *r.KeepAlive
	}
	if take("message", r.Message != nil) {
		f.Message = *r.Message
	}
	if take("code", r.Code != nil) {
		f.Code = *r.Code
	}
	if take("delay", r.Delay != nil) {
		var err error
		if f.Delay, err = time.ParseDuration(*r.Delay); err != nil {
			return f, given, &scenarios.FaultError{Param: "delay", Problem: "delay: " + err.Error()}
		}
	}
	return f, given, nil
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

// faultBody is the answer body a status fault's "body" member asks for: a string as it
// is, any other JSON value as compact JSON, null or nothing for the default body.
func faultBody(raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var compact bytes.Buffer
	if json.Compact(&compact, raw) != nil || compact.String() == "null" {
		return "" // absent: the decoder has already checked that it is JSON
	}
	return compact.String()
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
