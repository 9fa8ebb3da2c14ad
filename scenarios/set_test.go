package scenarios

import (
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// loadOne parses one file and builds a set of it.
func loadOne(t *testing.T, yaml string) (*Set, error) {
	t.Helper()
	fsys := fstest.MapFS{"s/test.yaml": {Data: []byte(yaml)}}
	return Load(Source{FS: fsys, Root: "s", Label: "dir"})
}

func TestBuiltinScenariosLoad(t *testing.T) {
	set, err := Load(Builtin())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(set.Scenarios()); n < 7 {
		t.Errorf("only %d built-in scenarios", n)
	}
	last := set.Scenarios()[len(set.Scenarios())-1]
	if last.ID != "catch-all" {
		t.Errorf("the catch-all must be tried last, got %s", last.ID)
	}
}

func TestEarlierSourcesOverrideLaterOnes(t *testing.T) {
	user := fstest.MapFS{"d/catch-all.yaml": {Data: []byte("priority: -1000\nsteps: [{text: mine}]\n")}}
	set, err := Load(Source{FS: user, Root: "d", Label: "d"}, Builtin())
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range set.Scenarios() {
		if sc.ID == "catch-all" && !strings.HasPrefix(sc.Source.File, "d/") {
			t.Errorf("catch-all comes from %s, want the user's directory", sc.Source)
		}
	}
}

func TestAnIDTwiceAcrossSourcesIsAnErrorAsWithinOne(t *testing.T) {
	a := fstest.MapFS{"a/x.yaml": {Data: []byte("id: same\nmatch: {message: one}\nsteps: [{text: a}]\n")}}
	b := fstest.MapFS{"b/y.yaml": {Data: []byte("id: same\nmatch: {message: two}\nsteps: [{text: b}]\n")}}
	both := fstest.MapFS{"a/x.yaml": a["a/x.yaml"], "a/y.yaml": {Data: b["b/y.yaml"].Data}}
	want := map[string]string{
		"two sources": `b/y.yaml:1:1: scenario id "same" is already used by a/x.yaml:1:1 (hint: give one of them an explicit id)`,
		"one source":  `a/y.yaml:1:1: scenario id "same" is already used by a/x.yaml:1:1 (hint: give one of them an explicit id)`,
	}
	got := map[string]error{}
	_, got["two sources"] = Load(Source{FS: a, Root: "a", Label: "a"}, Source{FS: b, Root: "b", Label: "b"}, Builtin())
	_, got["one source"] = Load(Source{FS: both, Root: "a", Label: "a"}, Builtin())
	for name, err := range got {
		var le *LoadError
		if !errors.As(err, &le) || len(le.Diagnostics) != 1 || le.Diagnostics[0].Error() != want[name] {
			t.Errorf("%s: got %v\nwant %s", name, err, want[name])
		}
	}
}

func TestShippedExamplesLoad(t *testing.T) {
	for dir, least := range map[string]int{"../examples": 3, "../docs/e2e/scenarios": 1} {
		set, err := Load(Source{FS: os.DirFS(dir), Root: ".", Label: dir})
		if err != nil {
			t.Fatal(err)
		}
		if len(set.Scenarios()) < least {
			t.Errorf("only %d scenarios in %s", len(set.Scenarios()), dir)
		}
	}
}

func TestExamplesOfFallbackScenariosGiveWayToTheUsersScenarios(t *testing.T) {
	for name, yaml := range map[string]string{
		"a user scenario taking the catch-all's example": "id: greet\nmatch:\n  message: (?i)hello\nsteps: [{text: hi}]\n",
		"a user scenario without match":                  "id: greet\nsteps: [{text: hi}]\n",
	} {
		t.Run(name, func(t *testing.T) {
			user := Source{FS: fstest.MapFS{"d2/g.yaml": {Data: []byte(yaml)}}, Root: "d2", Label: "d2"}
			set, err := Load(Builtin(), user)
			if err != nil {
				t.Fatal(err)
			}
			req, _ := Example{Message: "Hello there"}.request()
			sel, _ := set.Select(req)
			if sel == nil || sel.Scenario.ID != "greet" {
				t.Errorf("selected %v", sel)
			}
		})
	}
}

func TestExampleConflictsBetweenUserScenariosAreStillReported(t *testing.T) {
	files := fstest.MapFS{
		"d/a.yaml": {Data: []byte("id: a\nmatch: {message: hello}\nexamples: [{message: hello there}]\nsteps: [{text: a}]\n")},
		"d/b.yaml": {Data: []byte("id: b\npriority: 1\nsteps: [{text: b}]\n")},
	}
	_, err := Load(Builtin(), Source{FS: files, Root: "d", Label: "d"})
	var le *LoadError
	if !errors.As(err, &le) || len(le.Diagnostics) != 1 || !strings.Contains(le.Diagnostics[0].Error(), "d/a.yaml:3:12: this example of scenario a selects scenario b") {
		t.Errorf("got %v", err)
	}
}

// The built-in scenarios are defaults: a user's scenario on a route a built-in one also
// answers (a Dojo route, whose built-in scenarios have priority 10) comes first, whatever
// its priority, and its example selects it.
func TestTheUsersScenariosComeBeforeTheBuiltinOnes(t *testing.T) {
	user := Source{FS: fstest.MapFS{"d/chat.yaml": {Data: []byte("id: my-chat\nmatch: {route: /agentic_chat}\nexamples: [{route: /agentic_chat, message: hi}]\nsteps: [{text: mine}]\n")}}, Root: "d", Label: "d"}
	set, err := Load(user, Builtin())
	if err != nil {
		t.Fatal(err)
	}
	req, _ := Example{Route: "/agentic_chat", Message: "hi"}.request()
	sel, _ := set.Select(req)
	if sel == nil || sel.Scenario.ID != "my-chat" {
		t.Errorf("selected %v, want the user's my-chat", sel)
	}
	var firstDefault int
	for i, sc := range set.Scenarios() {
		if sc.Default() && firstDefault == 0 {
			firstDefault = i
		}
		if !sc.Default() && firstDefault > 0 {
			t.Errorf("the user's %s is tried after the built-in %s", sc.ID, set.Scenarios()[firstDefault].ID)
		}
	}
}
