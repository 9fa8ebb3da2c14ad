package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/scenarios"
)

// scenarioInfo describes a loaded scenario for the admin API.
type scenarioInfo struct {
	ID          string              `json:"id"`
	Description string              `json:"description,omitempty"`
	Source      string              `json:"source"`
	Priority    int                 `json:"priority"`
	Broken      string              `json:"broken,omitempty"`
	Examples    []scenarios.Example `json:"examples,omitempty"`
}

func (s *Server) listScenarios(c echo.Context) error {
	set := s.set.Load()
	list := make([]scenarioInfo, 0, len(set.Scenarios()))
	for _, sc := range set.Scenarios() {
		list = append(list, scenarioInfo{ID: sc.ID, Description: sc.Description, Source: sc.Source, Priority: sc.Priority, Broken: sc.Broken, Examples: sc.Examples})
	}
	status := s.Status()
	return c.JSON(http.StatusOK, map[string]any{"scenarios": list, "routes": set.Routes(), "errors": status.Errors})
}
