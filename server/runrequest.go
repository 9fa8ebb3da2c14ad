package server

import (
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/copilotkit"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// SpeedHeader overrides the server's speed factor for one request, e.g. 0 in tests.
const SpeedHeader = "X-Agui-Mock-Speed"

// ScenarioHeader forces the scenario of one request, whatever it matches.
const ScenarioHeader = "X-Agui-Mock-Scenario"

// TransportHeader chooses the transport of one run's events, whatever its Accept asks
// for: proto or sse.
const TransportHeader = "X-Agui-Mock-Transport"

// Transports of a run's events, as the journal and the log name them.
const (
	transportSSE   = "sse"
	transportProto = "proto"
)

// runTarget is where a run request was posted: its route and, for a run of the
// CopilotKit runtime's routes, the agent it names and whether its thread keeps it.
type runTarget struct {
	route string
	agent string // "" unless posted to the runtime's routes
	// kept: the thread keeps the run's events, which the runtime's connect route replays
	// (a run of the runtime's; not a suggestion, which its runner never sees).
	kept bool
}

// runRequest is a run request read and checked, before anything is planned.
type runRequest struct {
	runTarget
	in        *protocol.RunAgentInput
	body      []byte // as sent, for the recorder
	speed     float64
	fault     *scenarios.Fault // asked for by the request
	enc       protocol.Encoder // the transport of its events
	transport string           // its name
	testID    string
	header    http.Header
}

// readRun reads and checks a run request: its content type, speed, body and fault.
func (s *Server) readRun(c echo.Context, target runTarget) (*runRequest, error) {
	req := c.Request()
	if err := checkJSONContentType(req); err != nil {
		return nil, err
	}
	speed, err := s.speedFor(req)
	if err != nil {
		return nil, err
	}
	transport, enc, err := s.transportFor(req, target.agent != "")
	if err != nil {
		return nil, err
	}
	body, err := s.readBody(c, s.cfg.MaxBodyBytes)
	if err != nil {
		return nil, err
	}
	in, err := s.decodeInput(body, target.agent != "")
	if err != nil {
		return nil, err
	}
	// Taken only now, so that a request rejected for its body leaves a queued fault queued.
	fault, err := s.requestFault(c)
	if err != nil {
		return nil, err
	}
	note(c, func(e *JournalEntry) {
		e.ThreadID, e.RunID, e.Transport, e.bodyIsJSON = in.ThreadID, in.RunID, transport, true
	})
	return &runRequest{runTarget: target, in: in, body: body, speed: speed, fault: fault, enc: enc, transport: transport, testID: req.Header.Get(TestIDHeader), header: req.Header}, nil
}

// decodeInput decodes a run input. One of the CopilotKit runtime's routes (runtime)
// requires what its schema requires, and answers a body it refuses as the runtime does.
func (s *Server) decodeInput(body []byte, runtime bool) (*protocol.RunAgentInput, error) {
	if runtime {
		v, err := protocol.DecodeJSON(body)
		if err != nil {
			return nil, runtimeError(copilotkit.InvalidBody(err.Error()))
		}
		if e := copilotkit.CheckInput(v); e != nil {
			return nil, runtimeError(e)
		}
	}
	in, err := protocol.DecodeRunAgentInput(body, protocol.DecodeOptions{Strict: s.cfg.Strict, NewID: s.newID, MaxMessages: s.cfg.MaxMessages})
	switch {
	case err != nil && runtime:
		return nil, runtimeError(copilotkit.InvalidBody(err.Error()))
	case err != nil:
		return nil, inputError("RunAgentInput", err)
	}
	return in, nil
}

// inputError turns a decoding problem into a 400 answer naming the field.
func inputError(what string, err error) error {
	var ie *protocol.InputError
	if errors.As(err, &ie) {
		return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Message: "invalid " + what + ": " + ie.Error(), Field: ie.Field}}
	}
	return err
}

func checkJSONContentType(req *http.Request) error {
	ct := req.Header.Get("Content-Type")
	if ct == "application/json" { // what clients send, without parameters to parse
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || !jsonMediaType(mt) {
		if ct == "" {
			ct = "none"
		}
		return apiError(http.StatusUnsupportedMediaType, "unsupported_media_type", "the body must be JSON: send Content-Type: application/json (got "+ct+")")
	}
	return nil
}

// jsonMediaType reports whether a media type is JSON's: application/json, or a type
// with the +json suffix.
func jsonMediaType(mt string) bool { return mt == "application/json" || strings.HasSuffix(mt, "+json") }

// transportFor chooses the transport of a run's events: its TransportHeader's, else
// protobuf when its Accept lists it, as AG-UI agents negotiate, else SSE. A run of the
// CopilotKit runtime's routes (runtime) writes SSE frames without ids, as the runtime's
// encoder does.
func (s *Server) transportFor(req *http.Request, runtime bool) (string, protocol.Encoder, error) {
	name := req.Header.Get(TransportHeader)
	if name == "" {
		name = transportSSE
		if protocol.AcceptsProto(req.Header.Get("Accept")) {
			name = transportProto
		}
	}
	switch name {
	case transportSSE:
		return name, protocol.SSEEncoder{WithIDs: s.cfg.EventIDs && !runtime}, nil
	case transportProto:
		return name, protocol.ProtoEncoder{}, nil
	}
	return "", nil, apiError(http.StatusBadRequest, "invalid_header", TransportHeader+" must be proto or sse, got "+strconv.Quote(name))
}

// speedFor is a run's speed factor: its X-Agui-Mock-Speed header's, or the one set for
// its test through the admin API, or the server's.
func (s *Server) speedFor(req *http.Request) (float64, error) {
	h := req.Header.Get(SpeedHeader)
	if h == "" {
		if speed, ok := s.tests.Speed.Take(req.Header.Get(TestIDHeader)); ok {
			return speed, nil
		}
		return s.cfg.Speed, nil
	}
	f, err := strconv.ParseFloat(h, 64)
	if err != nil || !scenarios.ValidSpeed(f) {
		return 0, apiError(http.StatusBadRequest, "invalid_header", SpeedHeader+" must be a finite number of 0 or more, got "+strconv.Quote(h))
	}
	return f, nil
}
