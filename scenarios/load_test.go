package scenarios

import (
	"errors"
	"fmt"
	"os"
	"slices"
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

func TestYAMLSyntaxErrorsNameTheirLine(t *testing.T) {
	const (
		templateHint = `quote values that start with "{{", e.g. text: "{{ .message }}"`
		quoteHint    = `a quoted value ends at its closing quote: write \" inside double quotes and '' inside single quotes, or quote the value with the other kind`
	)
	tests := []struct {
		name, yaml string
		line       int
		message    string
		hint       string
	}{
		{"flow mapping on the last line", "id: a\nmatch:\n  message: hi\nsteps:\n  - text: hello\n  - tool:\n      args: {question: Which format?, choices: [MP4]}\n", 7, "did not find expected ',' or '}'", ""},
		{"a quote inside double quotes", "id: b\nsteps:\n  - text: \"say \"hi\" now\"\n", 3, "did not find expected key", quoteHint},
		{"a quote inside single quotes", "id: b\nsteps:\n  - text: 'it's'\n", 3, "did not find expected key", quoteHint},
		{"deep in a mapping", "id: c\nsteps:\n  - text: a\n    delay: 1s\n    chunk: \"a\"b\n", 5, "did not find expected key", quoteHint},
		{"in the top-level mapping", "id: d\ndescription: x\npriority: 1\nsteps: \"a\"b\n", 4, "did not find expected key", quoteHint},
		{"an unquoted template with text after it", "steps:\n  - text: a\n  - text: {{ .message }} there\n", 3, "did not find expected key", templateHint},
		{"a quoted template is no template problem", "steps:\n  - text: \"{{ .message }}\" there\n", 2, "did not find expected key", quoteHint},
		{"a tab", "steps:\n\t- text: a\n", 2, "found character that cannot start any token", ""},
		{"an unterminated quote", "steps:\n  - text: 'open\n", 2, "found unexpected end of stream", ""},
		{"on the first line", "a: b: c\n", 1, "mapping values are not allowed in this context", ""},
		{"in a later document", "steps: [{text: a}]\n---\nsteps:\n  - text: [x\n", 4, "did not find expected ',' or ']'", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := Parse("f.yaml", []byte(tt.yaml))
			if len(diags) != 1 {
				t.Fatalf("diagnostics %v", diags)
			}
			want := Diagnostic{File: "f.yaml", Line: tt.line, Message: "YAML syntax: " + tt.message, Hint: tt.hint}
			if diags[0] != want {
				t.Errorf("got  %+v\nwant %+v", diags[0], want)
			}
			if !strings.HasPrefix(diags[0].Error(), fmt.Sprintf("f.yaml:%d: YAML syntax: ", tt.line)) {
				t.Errorf("printed as %q", diags[0].Error())
			}
		})
	}
}

func TestLoadReportsProblemsWithPositions(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string // a line of the error, file:line:col: message
	}{
		{"yaml syntax", "steps:\n  - text: [unclosed\n", "dir/test.yaml:2: YAML syntax: did not find expected ',' or ']'"},
		{"unquoted template", "steps:\n  - text: {{ .message }}\n", `dir/test.yaml:2:11: YAML read an unquoted template as a mapping (hint: quote values that start with "{{"`},
		{"unknown top-level key", "stepz: []\n", `dir/test.yaml:1:1: unknown key "stepz" in a scenario (hint: did you mean "steps"?)`},
		{"no steps", "id: x\n", "a scenario needs steps"},
		{"steps and events", "steps: []\nevents: []\n", "dir/test.yaml:2:9: a scenario has either steps or events"},
		{"two kinds in a step", "steps:\n  - text: a\n    reasoning: b\n", "dir/test.yaml:2:5: a step needs exactly one kind, found 2 (text, reasoning)"},
		{"no kind in a step", "steps:\n  - delay: 1s\n", "a step needs exactly one kind, found 0"},
		{"bad duration", "steps:\n  - pause: fast\n", `dir/test.yaml:2:12: invalid duration "fast"`},
		{"bad regex", "match:\n  message: '(unclosed'\nsteps: [{text: a}]\n", "dir/test.yaml:2:12: invalid regular expression"},
		{"unknown template root", "steps:\n  - text: 'hi {{ .mesage }}'\n", "dir/test.yaml:2:11: template error: .mesage is not request data"},
		{"capture not defined", "match:\n  message: (?P<topic>.+)\nsteps:\n  - text: '{{ .captures.topc }}'\n", ".captures.topc: match.message defines only topic"},
		{"template syntax", "steps:\n  - text: 'hi {{ .message '\n", "template error"},
		{"unknown function", "steps:\n  - text: '{{ Nmae }}'\n", `function "Nmae" not defined`},
		{"jitter range", "timing: {jitter: 1.5}\nsteps: [{text: a}]\n", "jitter is a fraction from 0 to 1"},
		{"negative rate in timing", "timing: {tokensPerSecond: -1}\nsteps: [{text: a}]\n", "dir/test.yaml:1:27: tokensPerSecond must not be negative"},
		{"negative rate on a step", "steps:\n  - text: a\n    tokensPerSecond: -5\n", "dir/test.yaml:3:22: tokensPerSecond must not be negative"},
		{"bad patch op", "steps:\n  - stateDelta: [{op: upsert, path: /a}]\n", `unknown JSON Patch op "upsert"`},
		{"patch does not apply", "steps:\n  - state: {a: 1}\n  - stateDelta: [{op: replace, path: /b, value: 2}]\n", "dir/test.yaml:3:5: stateDelta does not apply to the state before it"},
		{"error not last", "steps:\n  - error: boom\n  - text: after\n", "dir/test.yaml:3:5: no step may follow an error step"},
		{"unknown event type", "steps:\n  - event: {type: META}\n", `dir/test.yaml:2:5: event 1 (META): unknown event type "META"`},
		{"sequence violation in explicit form", "events:\n  - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n  - {type: TEXT_MESSAGE_START, messageId: m}\n  - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n", "dir/test.yaml:4:5: the scenario breaks the AG-UI event rules: event 2 (RUN_FINISHED): Cannot send 'RUN_FINISHED' while text messages are still active"},
		{"foreign thread id", "events:\n  - {type: RUN_STARTED, threadId: t-1, runId: r}\n  - {type: RUN_FINISHED, threadId: t-1, runId: r}\n", "every run must carry the input's threadId"},
		{"infinite number", "steps:\n  - state: {a: .inf}\n", `".inf" is not a number JSON can carry`},
		{"example selects nothing", "match: {message: ^hi$}\nexamples: [{message: bye}]\nsteps: [{text: a}]\n", "dir/test.yaml:2:12: this example of scenario test matches no scenario"},
		{"broken without reason", "broken: ''\nsteps: [{text: a}]\n", "broken needs the reason"},
		{"activity delta to nothing", "steps:\n  - activityDelta: {target: nope, patch: [{op: add, path: /a, value: 1}]}\n", `dir/test.yaml:2:5: activityDelta target "nope" is not the id of an earlier activity step`},
		{"a key twice", "id: e\nid: f\nsteps: [{text: x}]\n", `dir/test.yaml:2:1: duplicate key "id" (first at line 1)`},
		{"a key twice in match", "match:\n  message: a\n  route: /x\n  message: b\nsteps: [{text: x}]\n", `dir/test.yaml:4:3: duplicate key "message" (first at line 2)`},
		{"a key twice in a step", "steps:\n  - text: a\n    text: b\n", `dir/test.yaml:3:5: duplicate key "text" (first at line 2)`},
		{"a key twice in a flow mapping", "match:\n  state: {a: 1, a: 2}\nsteps: [{text: x}]\n", `dir/test.yaml:2:17: duplicate key "a" (first at line 2)`},
		{"a key twice deep in a value", "steps:\n  - custom:\n      name: n\n      value: {list: [{k: 1}, {k: 2,\n        k: 3}]}\n", `dir/test.yaml:5:9: duplicate key "k" (first at line 4)`},
		{"empty text", "steps:\n  - text:\n", `dir/test.yaml:2:10: a text step's content must be a string, got null (hint: write the text after the colon; quote "null" to send that word)`},
		{"text content that is a mapping", "steps:\n  - text: {content: {a: 1}}\n", `dir/test.yaml:2:21: a text message's content must be a string, got a mapping (hint: quote it to send the characters as written)`},
		{"text name that is a mapping", "steps:\n  - text: {content: hi, name: {a: 1}}\n", `dir/test.yaml:2:31: a text message's name must be a string, got a mapping`},
		{"reasoning that is a list", "steps:\n  - reasoning: {content: [a]}\n", `dir/test.yaml:2:26: reasoning content must be a string, got a list`},
		{"null error code", "steps:\n  - error: {message: boom, code: null}\n", `dir/test.yaml:2:34: an error code must be a string, got null`},
		{"custom name that is a mapping", "steps:\n  - custom: {name: {a: 1}}\n", `dir/test.yaml:2:20: a custom event's name must be a string, got a mapping`},
		{"null tool name", "steps:\n  - tool: {name: null}\n", `dir/test.yaml:2:18: expected a string, got null`},
		{"a message with an unknown role", "steps:\n  - text: hi\n  - messages: [{id: m1, role: bot, content: hi}]\n", `dir/test.yaml:3:5: the scenario breaks the AG-UI event rules: event 4 (MESSAGES_SNAPSHOT): MESSAGES_SNAPSHOT.messages: the message at index 0: unknown role "bot" (one of developer, system, assistant, user, tool, activity, reasoning)`},
		{"a message without an id", "steps:\n  - messages:\n      history: true\n      messages: [{role: user, content: hi}]\n", `dir/test.yaml:2:5: the scenario breaks the AG-UI event rules: event 1 (MESSAGES_SNAPSHOT): MESSAGES_SNAPSHOT.messages: the message at index 1: no id (every message needs one)`},
		{"a message that is no object", "events:\n  - {type: MESSAGES_SNAPSHOT, messages: [1]}\n", `dir/test.yaml:2:5: the scenario breaks the AG-UI event rules: event 0 (MESSAGES_SNAPSHOT): MESSAGES_SNAPSHOT.messages: the message at index 0: expected an object, got a number`},
		{"a patch path without a slash", "steps:\n  - stateDelta: [{op: remove, path: a}]\n", `dir/test.yaml:2:37: JSON Patch path "a" is not a JSON Pointer (hint: a JSON Pointer starts with "/", e.g. "/a"; "" is the whole document)`},
		{"an activity patch from without a slash", "steps:\n  - activity: {type: T, content: {}}\n    id: act\n  - activityDelta: {target: act, patch: [{op: move, from: b, path: /c}]}\n", `dir/test.yaml:4:59: JSON Patch from "b" is not a JSON Pointer`},
		{"a patch path that is a mapping", "steps:\n  - stateDelta: [{op: remove, path: {a: 1}}]\n", `dir/test.yaml:2:37: expected a string`},
		{"a key twice in an anchored value", "steps:\n  - state: &s {a: 1, a: 2}\n  - state: *s\n", `dir/test.yaml:2:22: duplicate key "a" (first at line 2)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadOne(t, tt.yaml)
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want a *LoadError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error does not contain %q:\n%v", tt.want, err)
			}
		})
	}
}

func TestEveryDuplicateKeyIsReportedOnce(t *testing.T) {
	_, diags := Parse("f.yaml", []byte("id: a\nid: b\nid: c\nsteps:\n  - state: &s {x: 1, x: 2}\n  - state: *s\n  - state: {<<: *s, y: 1}\n"))
	want := []string{
		`f.yaml:2:1: duplicate key "id" (first at line 1)`,
		`f.yaml:3:1: duplicate key "id" (first at line 1)`,
		`f.yaml:5:22: duplicate key "x" (first at line 5)`,
	}
	var got []string
	for _, d := range diags {
		got = append(got, d.Error())
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestAKeyNextToAMergeKeyIsNoDuplicate(t *testing.T) {
	if _, diags := Parse("f.yaml", []byte("steps:\n  - state: &s {x: 1, y: 2}\n  - state: {<<: *s, x: 3}\n  - state: {<<: [*s, *s]}\n")); diags != nil {
		t.Errorf("diagnostics %v", diags)
	}
}

func TestBrokenScenariosSkipTheSequenceRules(t *testing.T) {
	yaml := "broken: tests the frontend's error handling\nevents:\n  - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}\n  - {type: TEXT_MESSAGE_START, messageId: m}\n"
	if _, err := loadOne(t, yaml); err != nil {
		t.Fatal(err)
	}
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

func TestAnExampleSuppliesTheContextTemplatesRead(t *testing.T) {
	const steps = "steps:\n  - text: 'Locale {{ (index .context 0).value }}'\n"
	if _, err := loadOne(t, "id: ctx\n"+steps); err == nil || !strings.Contains(err.Error(),
		"dir/test.yaml:3:5: template dir/test.yaml:3:11: {{ index .context 0 }}: index was given an index past the end of the list") {
		t.Errorf("without an example's context: %v", err)
	}
	set, err := loadOne(t, "id: ctx\nexamples:\n  - message: hi\n    context: [{description: locale, value: de-DE}]\n"+steps)
	if err != nil {
		t.Fatal(err)
	}
	ex := set.Scenarios()[0].Examples[0]
	if got := ex.request().Input.Context; len(got) != 1 || got[0].Description != "locale" || got[0].Value != "de-DE" {
		t.Errorf("the example's request carries context %+v", got)
	}
}

func TestReadFilesSkipsHiddenAndForeignFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"d/a.yaml":           {Data: []byte("steps: [{text: a}]\n")},
		"d/sub/b.yml":        {Data: []byte("steps: [{text: b}]\n")},
		"d/.a.yaml.swp":      {Data: []byte("garbage")},
		"d/a.yaml~":          {Data: []byte("garbage")},
		"d/..2026_01/c.yaml": {Data: []byte("garbage: [")},
		"d/notes.txt":        {Data: []byte("garbage")},
		"d/multi.yaml":       {Data: []byte("id: one\nsteps: [{text: a}]\n---\nid: two\nsteps: [{text: b}]\n---\n")},
	}
	list, diags := ReadFiles(Source{FS: fsys, Root: "d", Label: "d"})
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	var ids []string
	for _, sc := range list {
		ids = append(ids, sc.ID)
	}
	if got := strings.Join(ids, ","); got != "a,one,two,b" {
		t.Errorf("loaded %s", got)
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
			sel, _ := set.Select(Example{Message: "Hello there"}.request())
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

// A scenario's source is where it starts, and reads as file:line:column.
func TestAScenarioKnowsWhereItStarts(t *testing.T) {
	set, err := loadOne(t, "id: first\nsteps:\n  - text: a\n---\nid: second\nsteps:\n  - text: b\n")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Position{"first": {File: "dir/test.yaml", Line: 1, Column: 1}, "second": {File: "dir/test.yaml", Line: 5, Column: 1}}
	for _, sc := range set.Scenarios() {
		if pos, ok := want[sc.ID]; ok && sc.Source != pos {
			t.Errorf("%s starts at %+v, want %+v", sc.ID, sc.Source, pos)
		}
		delete(want, sc.ID)
	}
	if len(want) != 0 {
		t.Errorf("scenarios missing: %v", want)
	}
	if got := (Position{File: "dir/test.yaml", Line: 5, Column: 1}).String(); got != "dir/test.yaml:5:1" {
		t.Errorf("the position reads %q", got)
	}
}
