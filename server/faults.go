package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/scenarios"
)

// FaultHeader makes one request misbehave, e.g. "status; status=429; retryAfter=3",
// "disconnect; after=5" or "split". See scenarios.Fault for the kinds.
const FaultHeader = "X-Agui-Mock-Fault"

// faultQueue holds the faults set through the admin API, per test id.
type faultQueue struct {
	mu     sync.Mutex
	byTest map[string][]*queuedFault
}

type queuedFault struct {
	fault scenarios.Fault
	times int // requests left; 0 is every request
}

// take returns the fault for a test's next run request, if one is set.
func (q *faultQueue) take(testID string) *scenarios.Fault {
	q.mu.Lock()
	defer q.mu.Unlock()
	list := q.byTest[testID]
	if len(list) == 0 {
		return nil
	}
	f := list[0].fault
	if list[0].times > 0 {
		if list[0].times--; list[0].times == 0 {
			q.byTest[testID] = list[1:]
		}
	}
	return &f
}

func (q *faultQueue) add(testID string, f scenarios.Fault, times int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.byTest == nil {
		q.byTest = map[string][]*queuedFault{}
	}
	q.byTest[testID] = append(q.byTest[testID], &queuedFault{fault: f, times: times})
}

func (q *faultQueue) clear(testID string, all bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if all {
		q.byTest = nil
		return
	}
	delete(q.byTest, testID)
}

// addFault queues a fault for the next run requests of the caller's test id: the
// fault's fields, plus "times" (requests it applies to; default 1, 0 for every one),
// "delay" (slowStart, a duration such as "2s") and "body" (status: any JSON value, sent
// as the JSON body; a string is sent as it is).
func (s *Server) addFault(c echo.Context) error {
	var body struct {
		scenarios.Fault
		Body  json.RawMessage `json:"body"` // shadows the fault's string
		Delay string          `json:"delay"`
		Times *int            `json:"times"`
	}
	if err := decodeAdminBody(c, &body); err != nil {
		return err
	}
	f := body.Fault
	if f.Kind == "" {
		return missingMember("kind", "one of "+strings.Join(scenarios.FaultKinds(), ", "))
	}
	f.Body = faultBody(body.Body)
	if body.Delay != "" {
		var err error
		if f.Delay, err = time.ParseDuration(body.Delay); err != nil {
			return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Message: "delay: " + err.Error(), Field: "delay"}}
		}
	}
	if err := f.Check(false); err != nil {
		return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Message: err.Error()}}
	}
	times := 1
	if body.Times != nil {
		times = *body.Times
	}
	if times < 0 {
		return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Message: "times must be 0 (every request) or more", Field: "times"}}
	}
	s.faults.add(c.Request().Header.Get(TestIDHeader), f, times)
	reply := map[string]any{"fault": f, "times": times}
	if f.Delay > 0 {
		reply["delay"] = f.Delay.String()
	}
	return c.JSON(http.StatusCreated, reply)
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
	return s.faults.take(c.Request().Header.Get(TestIDHeader)), nil
}
