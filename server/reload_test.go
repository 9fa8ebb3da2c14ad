package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agui-mock/agui-mock/scenarios"
)

func TestReloadKeepsTheLastGoodSetAndReportsProblems(t *testing.T) {
	s := newServer(t, "id: first\nsteps: [{text: hi}]\n", nil)
	getStatus := func() LoadStatus {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", AdminPrefix+"/status", nil))
		var st LoadStatus
		if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	bad := &scenarios.LoadError{Diagnostics: []scenarios.Diagnostic{{File: "a.yaml", Line: 3, Column: 5, Message: "unknown key"}}}
	if err := s.Reload(func() (*scenarios.Set, error) { return nil, bad }); !errors.Is(err, bad) {
		t.Fatalf("Reload returned %v", err)
	}
	st := getStatus()
	if !st.Failed || len(st.Errors) != 1 || st.Errors[0].Line != 3 || st.Scenarios != 1 {
		t.Errorf("status after a bad reload %+v", st)
	}
	if s.Scenarios().Scenarios()[0].ID != "first" {
		t.Error("a bad reload replaced the set")
	}
	if err := s.Reload(func() (*scenarios.Set, error) { return scenarios.Load(scenarios.Builtin()) }); err != nil {
		t.Fatal(err)
	}
	if st := getStatus(); st.Failed || len(st.Errors) != 0 || st.Reloads != 1 || st.Scenarios < 10 {
		t.Errorf("status after a good reload %+v", st)
	}
}

func TestTheSchemaIsServed(t *testing.T) {
	s := newServer(t, "", nil)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", AdminPrefix+"/schema", nil))
	var schema map[string]any
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &schema) != nil || schema["$schema"] == nil {
		t.Errorf("got %d %.100s", rec.Code, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/schema+json" {
		t.Errorf("content type %q", ct)
	}
}
