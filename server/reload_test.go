package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"

	"github.com/agui-mock/agui-mock/scenarios"
)

func TestReloadKeepsTheLastGoodSetAndReportsProblems(t *testing.T) {
	files := fstest.MapFS{"d/test.yaml": {Data: []byte("id: first\nsteps: [{text: hi}]\n")}}
	s := newServer(t, "", func(c *Config) { c.Sources = []scenarios.Source{{FS: files, Root: "d", Label: "d"}} })
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	getStatus := func() LoadStatus {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", AdminPrefix+"/status", nil))
		var st LoadStatus
		if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	files["d/test.yaml"] = &fstest.MapFile{Data: []byte("id: first\nsteps:\n  - txt: hi\n")}
	var le *scenarios.LoadError
	if err := s.Reload(); !errors.As(err, &le) {
		t.Fatalf("Reload returned %v", err)
	}
	st := getStatus()
	if !st.Failed || len(st.Errors) != 1 || st.Errors[0].Line != 3 || st.Scenarios != 1 {
		t.Errorf("status after a bad reload %+v", st)
	}
	if s.Scenarios().Scenarios()[0].ID != "first" {
		t.Error("a bad reload replaced the set")
	}
	files["d/more.yaml"] = &fstest.MapFile{Data: []byte("steps: [{text: more}]\n")}
	files["d/test.yaml"] = &fstest.MapFile{Data: []byte("id: first\nsteps: [{text: hi}]\n")}
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	if st := getStatus(); st.Failed || len(st.Errors) != 0 || st.Reloads != 2 || st.Scenarios != 2 {
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
