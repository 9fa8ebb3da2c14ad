package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

func TestReloadKeepsTheLastGoodSetAndReportsProblems(t *testing.T) {
	files := fstest.MapFS{"d/test.yaml": {Data: []byte("id: first\nsteps: [{text: hi}]\n")}}
	s := newServer(t, "", func(c *Config) { c.Sources = []scenarios.Source{{FS: files, Root: "d", Label: "d"}} })
	if err := s.Reload(context.Background()); err != nil {
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
	if err := s.Reload(context.Background()); !errors.As(err, &le) {
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
	if err := s.Reload(context.Background()); err != nil {
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

// The built-in catch-all's example may select a user scenario that takes its requests,
// whether that scenario arrives by a reload or through the admin API; user scenarios
// that take each other's examples are still refused.
func TestUserScenariosOverrideTheCatchAllOnReloadAndAtRuntime(t *testing.T) {
	const greet = "id: greet\nmatch:\n  message: (?i)hello\nsteps: [{text: hi}]\n"
	const anything = "id: anything\nsteps: [{text: hi}]\n"
	selected := func(s *Server) string {
		sel, _ := s.Scenarios().Select(&scenarios.Request{Route: "/agui/chat", Input: &protocol.RunAgentInput{Messages: []protocol.Message{{Role: "user", Content: "Hello there"}}}})
		if sel == nil {
			return ""
		}
		return sel.Scenario.ID
	}
	for _, yaml := range []string{greet, anything} {
		files := fstest.MapFS{"d/other.yaml": {Data: []byte("id: other\nmatch: {message: ^other$}\nsteps: [{text: hi}]\n")}}
		sources := []scenarios.Source{scenarios.Builtin(), {FS: files, Root: "d", Label: "d"}}
		s := newServer(t, "", func(c *Config) { c.Sources = sources })
		files["d/g.yaml"] = &fstest.MapFile{Data: []byte(yaml)}
		if err := s.Reload(context.Background()); err != nil {
			t.Fatalf("reload of %q: %v", yaml, err)
		}
		want := strings.TrimPrefix(strings.SplitN(yaml, "\n", 2)[0], "id: ")
		if got := selected(s); got != want {
			t.Errorf("after the reload %q answered, want %q", got, want)
		}

		s = newServer(t, "", func(c *Config) { c.Sources = sources[:1] })
		if status, body := call(t, s, "POST", AdminPrefix+"/scenarios", yaml, map[string]string{"Content-Type": "application/yaml"}); status != 201 {
			t.Fatalf("POST %q: %d %s", yaml, status, body)
		}
		if got := selected(s); got != want {
			t.Errorf("after the POST %q answered, want %q", got, want)
		}
	}
	s := newServer(t, "", func(c *Config) { c.Sources = []scenarios.Source{scenarios.Builtin()} })
	call(t, s, "POST", AdminPrefix+"/scenarios", "id: hello\nmatch: {message: hello}\nexamples: [{message: hello}]\nsteps: [{text: hi}]\n", map[string]string{"Content-Type": "application/yaml"})
	status, body := call(t, s, "POST", AdminPrefix+"/scenarios", "id: loud\npriority: 5\nsteps: [{text: hi}]\n", map[string]string{"Content-Type": "application/yaml"})
	if status != 422 || !strings.Contains(body, "this example of scenario hello selects scenario loud") {
		t.Errorf("a user scenario taking another's example: %d %s", status, body)
	}
}
