package scenarios

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// Every kind of the table has a name, a scope and a description; its parameters are
// fault parameters; a kind a scenario step may have reads every parameter but after
// from the step.
func TestEveryFaultKindIsDescribedInFull(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range FaultKindTable() {
		if k.Name == "" || k.Does == "" || k.Scope < FaultScopeRequest || k.Scope > FaultScopeEnd {
			t.Errorf("%+v: want a name, a description and a scope", k)
		}
		if seen[k.Name] {
			t.Errorf("%s is in the table twice", k.Name)
		}
		seen[k.Name] = true
		for _, name := range k.Params {
			p, ok := lookupFaultParam(name)
			switch {
			case !ok:
				t.Errorf("%s takes %s, which is no fault parameter", k.Name, name)
			case !k.RequestOnly() && name != "after" && p.yaml == nil:
				t.Errorf("%s is a step kind, but a fault step cannot read its %s", k.Name, name)
			}
		}
		if (k.Scope == FaultScopeStep || k.Scope == FaultScopeEvent) && !slices.Contains(k.Params, "after") {
			t.Errorf("%s acts at an event, so a request gives it after", k.Name)
		}
		if k.Scope == FaultScopeEnd && len(k.Params) > 0 {
			t.Errorf("%s acts on the run's end, which no parameter moves: it takes %v", k.Name, k.Params)
		}
	}
	if got, want := FaultKinds(), []string{"status", "slowStart", "split", "runError", "disconnect", "stall", "malformed", "truncate",
		"wrongRunId", "wrongThreadId", "otherThread", "duplicateInterruptId", "unknownEvent", "badField", "expiredInterrupt"}; !slices.Equal(got, want) {
		t.Errorf("FaultKinds() = %v, want %v", got, want)
	}
}

// The request-only kinds are those whose scope is not a step: a scenario refuses them.
func TestRequestOnlyFaultsAreTheTablesRequestAndStreamScopes(t *testing.T) {
	var requestOnly []string
	for _, k := range FaultKindTable() {
		if k.RequestOnly() {
			requestOnly = append(requestOnly, k.Name)
		}
		err := Fault{Kind: k.Name}.Check(true)
		if refused := err != nil && strings.Contains(err.Error(), "applies to a whole request"); refused != k.RequestOnly() {
			t.Errorf("%s in a scenario: %v; request only: %v", k.Name, err, k.RequestOnly())
		}
	}
	if want := []string{FaultStatus, FaultSlowStart, FaultSplit}; !slices.Equal(requestOnly, want) {
		t.Errorf("request-only kinds %v, want %v", requestOnly, want)
	}
}

// The table hands out copies: a caller that changes one changes nothing else.
func TestFaultKindTableIsACopy(t *testing.T) {
	table := FaultKindTable()
	table[0].Name, table[0].Params[0] = "changed", "changed"
	k, ok := LookupFaultKind(FaultStatus)
	if !ok || k.Params[0] != "status" || FaultKindTable()[0].Name != FaultStatus {
		t.Errorf("the table changed: %+v", k)
	}
}

// Each kind's parameters keep their ranges and their messages, and the parameter to
// blame.
func TestFaultParametersKeepTheirRangesAndMessages(t *testing.T) {
	for _, tt := range []struct{ header, param, want string }{
		{"status", "status", "a status fault needs a status from 400 to 599, not 0"},
		{"status; status=600", "status", "a status fault needs a status from 400 to 599, not 600"},
		{"status; status=399; retryAfter=0", "status", "a status fault needs a status from 400 to 599, not 399"},
		{"status; status=429; retryAfter=0", "retryAfter", "retryAfter must be a number of seconds from 1 up, not 0"},
		{"status; status=429; retryAfter=-2", "retryAfter", "retryAfter must be a number of seconds from 1 up, not -2"},
		{"status; status=429; after=1", "after", "parameter after does not apply to a status fault (status takes status, body, retryAfter)"},
		{"slowStart", "delay", "a slowStart fault needs a delay greater than 0 (e.g. 2s), not 0s"},
		{"slowStart; delay=soon", "delay", `fault parameter delay="soon": time: invalid duration "soon"`},
		{"split; keepAlive", "keepAlive", "parameter keepAlive does not apply to a split fault (split takes no parameters)"},
		{"runError; after=-1", "after", "after must not be negative, not -1"},
		{"disconnect; after=x", "after", `fault parameter after="x": invalid syntax`},
		{"stall; keepAlive=maybe", "keepAlive", `fault parameter keepAlive="maybe": invalid syntax`},
		{"malformed; code=x", "code", "parameter code does not apply to a malformed fault (malformed takes after)"},
		{"truncate; colour=red", "colour", `unknown fault parameter "colour" (one of after, status, body, retryAfter, delay, keepAlive, message, code)`},
		{"truncate; after", "after", `fault parameter "after" is not key=value`},
		{"explode", "kind", `unknown fault "explode" (one of status, slowStart, split, runError, disconnect, stall, malformed, truncate, wrongRunId, wrongThreadId, otherThread, duplicateInterruptId, unknownEvent, badField, expiredInterrupt)`},
	} {
		_, err := ParseFault(tt.header)
		var fe *FaultError
		if !errors.As(err, &fe) || fe.Param != tt.param || fe.Problem != tt.want {
			t.Errorf("%q: %#v, want %s: %q", tt.header, err, tt.param, tt.want)
		}
	}
	for _, ok := range []string{"status; status=429; retryAfter=3; body=x", "slowStart; delay=2s", "split", "runError; after=2; message=m; code=c", "disconnect", "stall; after=1; keepAlive", "malformed; after=0", "truncate"} {
		if _, err := ParseFault(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

// A fault step's mapping form takes kind and the parameters the step kinds take but
// after.
func TestAFaultStepTakesTheParametersOfTheStepKinds(t *testing.T) {
	want := []string{"kind"}
	for _, p := range faultParamNames() {
		for _, k := range FaultKindTable() {
			if !k.RequestOnly() && p != "after" && slices.Contains(k.Params, p) && !slices.Contains(want, p) {
				want = append(want, p)
			}
		}
	}
	if got := stepFaultKeys(); !slices.Equal(got, want) {
		t.Errorf("stepFaultKeys() = %v, want %v", got, want)
	}
}

// A parameter of the admin API's JSON body is decoded by its row alone: as its JSON type
// says, then as the header reads it; null sets nothing, and a member that names no
// parameter is told apart.
func TestEveryFaultParameterDecodesFromJSON(t *testing.T) {
	var f Fault
	for _, tt := range []struct{ member, raw, name string }{
		{"after", `2`, "after"},
		{"Status", `503`, "status"}, // regardless of case, as encoding/json matches a field
		{"body", `{"a": [1, 2]}`, "body"},
		{"retryAfter", `null`, "retryAfter"},
		{"keepAlive", `true`, "keepAlive"},
		{"delay", `"2s"`, "delay"},
		{"message", `"boom"`, "message"},
		{"code", `"E1"`, "code"},
		{"tims", `1`, ""},
	} {
		if name, err := f.DecodeParam(tt.member, json.RawMessage(tt.raw)); name != tt.name || err != nil {
			t.Errorf("%s: %q, %v; want %q", tt.member, name, err, tt.name)
		}
	}
	want := Fault{After: 2, Status: 503, Body: `{"a":[1,2]}`, KeepAlive: true, Delay: 2e9, Message: "boom", Code: "E1"}
	if f != want {
		t.Errorf("decoded %+v, want %+v", f, want)
	}
	var te *json.UnmarshalTypeError
	if _, err := f.DecodeParam("status", json.RawMessage(`"429"`)); !errors.As(err, &te) || te.Field != "status" {
		t.Errorf("a status of the wrong type: %v", err)
	}
	var fe *FaultError
	if _, err := f.DecodeParam("delay", json.RawMessage(`"soon"`)); !errors.As(err, &fe) || fe.Param != "delay" || !strings.HasPrefix(fe.Problem, "delay: ") {
		t.Errorf("a delay that is no duration: %v", err)
	}
}
