package server

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/copilotkit"
	"github.com/agui-mock/agui-mock/testctl"
)

// runtimeAgents are the agents the runtime has for a test, and the members of /info its
// test replaced: the agents of its shaping, else default and every agent a scenario
// names.
func (s *Server) runtimeAgents(testID string) ([]copilotkit.Agent, map[string]any) {
	shape, _ := s.tests.RuntimeInfo.Take(testID)
	if shape.Agents != nil {
		return shape.Agents, shape.Members
	}
	names := []string{copilotkit.DefaultAgent}
	for _, a := range s.set.Load().Agents() {
		if a != copilotkit.DefaultAgent {
			names = append(names, a)
		}
	}
	agents := make([]copilotkit.Agent, len(names))
	for i, name := range names {
		agents[i] = copilotkit.NewAgent(name, "")
	}
	return agents, shape.Members
}

// unknownAgent is the runtime's 404 for an agent it does not have for the request's
// test; nil when it has it.
func (s *Server) unknownAgent(c echo.Context, id string) *copilotkit.Error {
	agents, _ := s.runtimeAgents(c.Request().Header.Get(TestIDHeader))
	if slices.ContainsFunc(agents, func(a copilotkit.Agent) bool { return a.Name == id }) {
		return nil
	}
	return copilotkit.AgentNotFound(id)
}

// runtimeInfo answers GET /info (or the envelope's info): the runtime's version, agents
// and flags, as the test shaped them.
func (s *Server) runtimeInfo(c echo.Context, viaEnvelope bool) error {
	if done, err := s.handshakeFault(c, &s.tests.InfoFaults); done {
		return err
	}
	agents, members := s.runtimeAgents(c.Request().Header.Get(TestIDHeader))
	return c.JSON(http.StatusOK, copilotkit.Info(agents, viaEnvelope, members))
}

// runtimeInfoRequest is the body of POST /_mock/copilotkit/info: the agents the runtime
// has for the test, and members of the /info answer to replace. A member left out keeps
// the runtime's value; one given as null is answered as null.
type runtimeInfoRequest struct {
	// Agents is an object of agent id to {description?, capabilities?}, or a list of
	// ids: the agents /info lists and the run, connect and stop routes take, in place of
	// the server's.
	Agents                        json.RawMessage `json:"agents"`
	Version                       json.RawMessage `json:"version"`
	Mode                          json.RawMessage `json:"mode"`
	ThreadEndpoints               json.RawMessage `json:"threadEndpoints"`
	Suggestions                   json.RawMessage `json:"suggestions"`
	AudioFileTranscriptionEnabled json.RawMessage `json:"audioFileTranscriptionEnabled"`
	A2UIEnabled                   json.RawMessage `json:"a2uiEnabled"`
	A2UI                          json.RawMessage `json:"a2ui"`
	OpenGenerativeUIEnabled       json.RawMessage `json:"openGenerativeUIEnabled"`
	TelemetryDisabled             json.RawMessage `json:"telemetryDisabled"`
	SingleRoute                   json.RawMessage `json:"singleRoute"`
	LicenseStatus                 json.RawMessage `json:"licenseStatus"`
	Intelligence                  json.RawMessage `json:"intelligence"`
}

// shape reads the request as a test's shaping of /info.
func (r runtimeInfoRequest) shape() (testctl.RuntimeInfo, error) {
	var shape testctl.RuntimeInfo
	v := reflect.ValueOf(r)
	for i := range v.NumField() {
		raw := v.Field(i).Interface().(json.RawMessage)
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if raw == nil || name == "agents" {
			continue
		}
		var value any
		if err := json.Unmarshal(raw, &value); err != nil {
			return shape, err
		}
		if shape.Members == nil {
			shape.Members = map[string]any{}
		}
		shape.Members[name] = value
	}
	if r.Agents == nil {
		return shape, nil
	}
	var byID map[string]struct {
		Description  string         `json:"description"`
		Capabilities map[string]any `json:"capabilities"`
	}
	var ids []string
	if json.Unmarshal(r.Agents, &ids) == nil {
		shape.Agents = []copilotkit.Agent{}
		for _, id := range ids {
			if id == "" {
				return shape, fmt.Errorf("an agent id must not be empty")
			}
			shape.Agents = append(shape.Agents, copilotkit.NewAgent(id, ""))
		}
		return shape, nil
	}
	if err := json.Unmarshal(r.Agents, &byID); err != nil || byID == nil {
		return shape, fmt.Errorf(`agents is an object of agent id to {description?, capabilities?}, or a list of ids, e.g. {"default": {"description": "Plans trips"}}`)
	}
	shape.Agents = []copilotkit.Agent{}
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		if id == "" {
			return shape, fmt.Errorf("an agent id must not be empty")
		}
		a := copilotkit.NewAgent(id, byID[id].Description)
		a.Capabilities = byID[id].Capabilities
		shape.Agents = append(shape.Agents, a)
	}
	return shape, nil
}

// shapeRuntimeInfo answers POST /_mock/copilotkit/info: the caller's test's /info
// reports the agents and members the body gives, until DELETE or a reset.
func (s *Server) shapeRuntimeInfo(c echo.Context) error {
	var body runtimeInfoRequest
	if err := s.decodeAdminBody(c, &body); err != nil {
		return err
	}
	shape, err := body.shape()
	if err != nil {
		return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Message: "invalid admin request: " + err.Error(), Field: "agents"}}
	}
	testID := c.Request().Header.Get(TestIDHeader)
	s.tests.RuntimeInfo.Replace(testID, shape, 0)
	agents, members := s.runtimeAgents(testID)
	return c.JSON(http.StatusOK, copilotkit.Info(agents, false, members))
}
