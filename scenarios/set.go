package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/textproto"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// DefaultRoutes returns the run endpoints every server answers on. Scenarios may add
// others with match.route.
func DefaultRoutes() []string { return []string{"/", "/agui/chat"} }

// Set is an immutable, validated collection of scenarios, ordered by precedence.
type Set struct {
	scenarios []*Scenario
	routes    map[string]bool
}

// Scenarios returns the scenarios in the order they are tried.
func (s *Set) Scenarios() []*Scenario { return s.scenarios }

// Routes returns every route a run may be posted to.
func (s *Set) Routes() []string {
	return slices.Sorted(maps.Keys(s.routes))
}

// IsRunRoute reports whether route answers runs.
func (s *Set) IsRunRoute(route string) bool { return s.routes[route] }

// Load reads every source and builds a set. Scenario ids must be unique across the
// sources, as within one, except that a scenario of a Fallback source (the built-in
// set) gives way to one of the same id elsewhere. It fails with a *LoadError listing
// every problem if any file or scenario is invalid, so a set is either whole or not at
// all. Its dry runs have the default Limits.
func Load(sources ...Source) (*Set, error) {
	return LoadWith(context.Background(), Limits{}, nil, sources...)
}

// LoadWith is Load with scenarios added at run time, which come first: they override
// the sources' scenarios of the same id. The dry runs of every scenario have limits,
// and stop when ctx is done: then LoadWith fails with ctx's cause.
func LoadWith(ctx context.Context, limits Limits, extra []*Scenario, sources ...Source) (*Set, error) {
	all := slices.Clone(extra)
	var diags []Diagnostic
	runtime := map[string]bool{}
	for _, sc := range extra {
		runtime[sc.ID] = true
	}
	defined := maps.Clone(runtime)
	var fallback []*Scenario
	for _, src := range sources {
		list, d := ReadFiles(src)
		diags = append(diags, d...)
		list = slices.DeleteFunc(list, func(sc *Scenario) bool { return slices.Contains(src.Omit, sc.ID) })
		if src.Fallback {
			for _, sc := range list {
				sc.fallback = true
			}
			fallback = append(fallback, list...)
			continue
		}
		for _, sc := range list {
			if !runtime[sc.ID] {
				all = append(all, sc)
				defined[sc.ID] = true
			}
		}
	}
	for _, sc := range fallback {
		if !defined[sc.ID] {
			all = append(all, sc)
		}
	}
	if len(diags) > 0 {
		return nil, &LoadError{Diagnostics: diags}
	}
	return NewSet(ctx, limits, all)
}

// NewSet validates scenarios together and orders them by precedence. Each example must
// select its own scenario, except that an example of a fallback scenario may select one
// of another source: that scenario overrides it. Each scenario is dry-run within limits;
// when ctx is done the dry runs stop and NewSet fails with ctx's cause.
func NewSet(ctx context.Context, limits Limits, list []*Scenario) (*Set, error) {
	set := &Set{scenarios: slices.Clone(list), routes: map[string]bool{}}
	var diags []Diagnostic
	seen := map[string]*Scenario{}
	for i, sc := range set.scenarios {
		sc.order = i
		if prev, dup := seen[sc.ID]; dup {
			diags = append(diags, sc.diagnostic(fmt.Sprintf("scenario id %q is already used by %s", sc.ID, prev.Source), "give one of them an explicit id"))
		}
		seen[sc.ID] = sc
	}
	checks := make([][]Diagnostic, len(set.scenarios))
	parallel(len(set.scenarios), func(i int) {
		if ctx.Err() == nil {
			checks[i] = set.scenarios[i].check(ctx, limits)
		}
	})
	if ctx.Err() != nil {
		return nil, fmt.Errorf("loading scenarios: %w", context.Cause(ctx))
	}
	for _, c := range checks {
		diags = append(diags, c...)
	}
	for _, r := range DefaultRoutes() {
		set.routes[r] = true
	}
	for _, sc := range set.scenarios {
		for _, r := range sc.Match.Routes {
			set.routes[r] = true
		}
	}
	sort.SliceStable(set.scenarios, func(i, j int) bool {
		a, b := set.scenarios[i], set.scenarios[j]
		if a.Priority != b.Priority {
			return a.Priority > b.Priority
		}
		if a.Match.Criteria() != b.Match.Criteria() {
			return a.Match.Criteria() > b.Match.Criteria()
		}
		return a.order < b.order
	})
	for _, sc := range set.scenarios {
		for _, ex := range sc.Examples {
			req := ex.request()
			sel, _ := set.Select(req)
			switch {
			case sel == nil:
				diags = append(diags, Diagnostic{File: ex.pos.File, Line: ex.pos.Line, Column: ex.pos.Column, Message: fmt.Sprintf("this example of scenario %s matches no scenario", sc.ID)})
			case sel.Scenario != sc && !(sc.fallback && !sel.Scenario.fallback): // the user's scenarios override fallback ones
				diags = append(diags, Diagnostic{File: ex.pos.File, Line: ex.pos.Line, Column: ex.pos.Column,
					Message: fmt.Sprintf("this example of scenario %s selects scenario %s (%s) instead", sc.ID, sel.Scenario.ID, sel.Scenario.Source),
					Hint:    "raise the priority or narrow the match of one of them"})
			}
		}
	}
	if len(diags) > 0 {
		return nil, &LoadError{Diagnostics: diags}
	}
	return set, nil
}

func (sc *Scenario) diagnostic(msg, hint string) Diagnostic {
	return Diagnostic{File: sc.Source.File, Line: sc.Source.Line, Column: sc.Source.Column, Message: msg, Hint: hint}
}

// request builds the run request an example stands for.
func (ex Example) request() *Request {
	in := &protocol.RunAgentInput{ThreadID: "thread-example", RunID: "run-example", State: ex.State, Raw: map[string]any{}}
	if ex.ForwardedProps != nil {
		in.ForwardedProps = ex.ForwardedProps
	}
	in.Messages = []protocol.Message{{ID: "msg-example", Role: "user", Content: ex.Message, Raw: map[string]any{"id": "msg-example", "role": "user", "content": ex.Message}}}
	for _, t := range ex.Tools {
		in.Tools = append(in.Tools, protocol.Tool{Name: t, Description: t})
	}
	for _, c := range ex.Context {
		in.Context = append(in.Context, protocol.Context{Description: c.Description, Value: c.Value})
	}
	route := ex.Route
	if route == "" {
		route = "/agui/chat"
	}
	h := textproto.MIMEHeader{}
	for k, v := range ex.Headers {
		h.Set(k, v)
	}
	return &Request{Route: route, Input: in, Header: h}
}

// Limits of the load-time exploration of a conversation's branches.
const (
	maxCheckDepth = 6  // runs in one conversation
	maxCheckRuns  = 64 // runs per scenario
)

// check dry-runs the scenario on a sample request, and every branch of its
// continuations: templates must render within limits, JSON Patches must apply, and the
// events must follow the protocol unless the scenario says it is broken on purpose.
func (sc *Scenario) check(ctx context.Context, limits Limits) []Diagnostic {
	req := sc.sampleRequest()
	captures, _ := sc.Match.test(req)
	x := explorer{ctx: ctx, limits: limits, runs: maxCheckRuns}
	diags := x.explore(sc, req, Start{Captures: captures}, 1)
	seen := map[string]bool{}
	unique := diags[:0]
	for _, d := range diags {
		if !seen[d.Error()] {
			seen[d.Error()] = true
			unique = append(unique, d)
		}
	}
	return unique
}

// explorer is the state of one scenario's dry runs.
type explorer struct {
	ctx    context.Context
	limits Limits
	runs   int // how many more runs may be tried
}

// explore dry-runs one run, then each way its continuation can go. A run whose
// templates go past their limits ends the exploration: each of its runs could cost as
// much.
func (x *explorer) explore(sc *Scenario, req *Request, start Start, depth int) []Diagnostic {
	x.runs--
	plan, origins, err := sc.plan(x.ctx, req, start, PlanOptions{Seed: 1, Timing: DefaultTiming(), Now: time.Now(), Limits: x.limits}, true)
	if err != nil {
		var le *LimitError
		if errors.As(err, &le) {
			x.runs = 0
		}
		var se *stepError
		if errors.As(err, &se) {
			return []Diagnostic{{File: se.at.File, Line: se.at.Line, Column: se.at.Column, Message: se.err.Error()}}
		}
		return []Diagnostic{sc.diagnostic(err.Error(), "")}
	}
	if depth == 1 {
		sc.eventsHint = len(plan.Events)
	}
	diags := sc.verify(plan, origins, req.Input.ThreadID)
	next := plan.Next
	if next != nil && next.node != nil && len(next.Interrupts) == 0 && len(next.ToolCalls) == 0 {
		at := next.node.next[0].at
		return append(diags, Diagnostic{File: at.File, Line: at.Line, Column: at.Column,
			Message: "this run waits for no answer (no interrupt outcome, no tool call left without a result), so what follows in next never plays"})
	}
	if next == nil || depth >= maxCheckDepth {
		return diags
	}
	variants := []*branchChoice{nil}
	if next.node != nil {
		variants = nil
		for k := range next.node.next {
			variants = append(variants, &branchChoice{item: recordedRun, branch: k})
		}
	}
	for i, pi := range next.Interrupts {
		if pi.def == nil {
			break
		}
		for k := range pi.def.cases {
			variants = append(variants, &branchChoice{item: interruptItem, index: i, branch: k})
		}
	}
	for i, tc := range next.ToolCalls {
		if tc.def == nil {
			break
		}
		for k := range tc.def.cases {
			variants = append(variants, &branchChoice{item: toolCallItem, index: i, branch: k})
		}
	}
	for n, forced := range variants {
		if x.runs <= 0 {
			break
		}
		nextReq := continuationRequest(req, next, forced, fmt.Sprintf("%s-%d", req.Input.RunID, n))
		diags = append(diags, x.explore(sc, nextReq, Start{Resume: next, forced: forced}, depth+1)...)
	}
	return diags
}

// continuationRequest is the request that answers a paused run: every interrupt
// resolved (or as its forced case says), every frontend tool answered.
func continuationRequest(prev *Request, c *Cursor, forced *branchChoice, runID string) *Request {
	in := *prev.Input
	in.RunID = runID
	in.Resume = nil
	for i, pi := range c.Interrupts {
		entry := protocol.ResumeEntry{InterruptID: pi.ID, Status: protocol.ResumeResolved, Payload: map[string]any{}}
		if k, ok := forced.forces(interruptItem, i); ok && pi.def != nil {
			bc := pi.def.cases[k]
			if bc.status != "" {
				entry.Status = bc.status
			}
			if bc.payload != nil {
				entry.Payload = bc.payload
			}
		}
		in.Resume = append(in.Resume, entry)
	}
	in.Messages = slices.Clone(in.Messages)
	for _, tc := range c.ToolCalls {
		raw := map[string]any{"id": "tool-" + tc.ID, "role": "tool", "toolCallId": tc.ID, "content": ""}
		in.Messages = append(in.Messages, protocol.Message{ID: "tool-" + tc.ID, Role: "tool", ToolCallID: tc.ID, Content: "", Raw: raw})
	}
	return &Request{Route: prev.Route, Input: &in, Header: prev.Header}
}

// verify checks one planned run against the event rules, pointing at the step that
// wrote the offending event.
func (sc *Scenario) verify(plan *Plan, origins []pos, threadID string) []Diagnostic {
	if sc.Broken != "" {
		return nil
	}
	events := make([]protocol.Event, 0, len(plan.Events))
	for _, t := range plan.Events {
		if t.Fault != nil {
			return []Diagnostic{sc.diagnostic("the scenario breaks its stream with a "+t.Fault.Kind+" fault", "faults are deliberate: add broken: <reason>")}
		}
		events = append(events, t.Event)
	}
	v, err := protocol.VerifyStream(events, threadID)
	var diags []Diagnostic
	at := func(index int, msg, hint string) Diagnostic {
		if index < 0 || index >= len(origins) {
			return sc.diagnostic(msg, hint)
		}
		o := origins[index]
		return Diagnostic{File: o.File, Line: o.Line, Column: o.Column, Message: msg, Hint: hint}
	}
	if err != nil {
		index := -1
		var se *protocol.SequenceError
		if errors.As(err, &se) {
			index = se.Index
		}
		diags = append(diags, at(index, "the scenario breaks the AG-UI event rules: "+err.Error(), "fix the steps, or add broken: <reason> if the breakage is the point"))
	}
	for _, w := range v.Warnings {
		diags = append(diags, at(w.Index, w.Error(), "add broken: <reason> to send it anyway"))
	}
	return diags
}

// sampleRequest is a request the scenario answers: its first example, or one made from
// its match criteria.
func (sc *Scenario) sampleRequest() *Request {
	if len(sc.Examples) > 0 {
		return sc.Examples[0].request()
	}
	ex := Example{Tools: sc.Match.Tools, State: sc.Match.State, ForwardedProps: sc.Match.ForwardedProps}
	if len(sc.Match.Routes) > 0 {
		ex.Route = sc.Match.Routes[0]
	}
	ex.Headers = map[string]string{}
	for name := range sc.Match.Headers {
		ex.Headers[name] = "sample"
	}
	return ex.request()
}

// Selection is the scenario chosen for a request and what its pattern captured.
type Selection struct {
	Scenario *Scenario
	Captures map[string]string
}

// Candidate is a scenario that nearly matched a request, and why it did not.
type Candidate struct {
	ID      string   `json:"id"`
	Source  string   `json:"source"`
	Reasons []string `json:"reasons"`
}

// Select returns the first scenario, in precedence order, that matches the request. When
// none does, it returns the nearest candidates instead.
func (s *Set) Select(req *Request) (*Selection, []Candidate) {
	msg, _ := req.Input.LastUserMessage()
	text := msg.Text()
	for _, sc := range s.scenarios {
		if sc.Match.holds(req, text) {
			return &Selection{Scenario: sc, Captures: sc.Match.captures(text)}, nil
		}
	}
	// no match: now it is worth saying why each missed
	misses := make([]Candidate, 0, len(s.scenarios))
	for _, sc := range s.scenarios {
		_, reasons := sc.Match.test(req)
		misses = append(misses, Candidate{ID: sc.ID, Source: sc.Source.String(), Reasons: reasons})
	}
	sort.SliceStable(misses, func(i, j int) bool { return len(misses[i].Reasons) < len(misses[j].Reasons) })
	return nil, misses[:min(3, len(misses))]
}

// Force selects the scenario with the given id for a request, whatever it matches; its
// captures are those of its message pattern when that matches.
func (s *Set) Force(id string, req *Request) *Selection {
	for _, sc := range s.scenarios {
		if sc.ID == id {
			captures, _ := sc.Match.test(req)
			return &Selection{Scenario: sc, Captures: captures}
		}
	}
	return nil
}

// criterion is one kind of match criterion: how many criteria of its kind a match gives,
// whether they hold of a request, and why they do not. holds is the hot path of
// selection: it allocates nothing. explainMiss says nothing when holds is true.
type criterion struct {
	count       func(m *Match) int
	holds       func(m *Match, req *Request, text string) bool
	explainMiss func(m *Match, req *Request, text string) []string
}

// criteria are every kind of match criterion, in the order their misses are explained.
// Adding a criterion is adding an entry here.
var criteria = [...]criterion{
	{ // route
		count: func(m *Match) int { return len(m.Routes) },
		holds: func(m *Match, req *Request, _ string) bool {
			return len(m.Routes) == 0 || slices.Contains(m.Routes, req.Route)
		},
		explainMiss: func(m *Match, req *Request, _ string) []string {
			if len(m.Routes) == 0 || slices.Contains(m.Routes, req.Route) {
				return nil
			}
			return []string{fmt.Sprintf("route %s is not %s", req.Route, strings.Join(m.Routes, " or "))}
		},
	},
	{ // message
		count: func(m *Match) int { return boolCount(m.Message != nil) },
		holds: func(m *Match, _ *Request, text string) bool {
			return m.Message == nil || (m.prefix.admits(text) && m.Message.MatchString(text))
		},
		explainMiss: func(m *Match, _ *Request, text string) []string {
			if m.Message == nil || m.Message.MatchString(text) {
				return nil
			}
			return []string{fmt.Sprintf("message %q does not match /%s/", clip(text, 80), m.Message)}
		},
	},
	{ // forwardedProps
		count: func(m *Match) int { return len(m.ForwardedProps) },
		holds: func(m *Match, req *Request, _ string) bool {
			fp, _ := req.Input.ForwardedProps.(map[string]any)
			for key, want := range m.ForwardedProps {
				if !subset(fp[key], want) {
					return false
				}
			}
			return true
		},
		explainMiss: func(m *Match, req *Request, _ string) []string {
			var reasons []string
			fp, _ := req.Input.ForwardedProps.(map[string]any)
			for _, key := range slices.Sorted(maps.Keys(m.ForwardedProps)) {
				if !subset(fp[key], m.ForwardedProps[key]) {
					reasons = append(reasons, fmt.Sprintf("forwardedProps.%s is %s, not %s", key, show(fp[key]), show(m.ForwardedProps[key])))
				}
			}
			return reasons
		},
	},
	{ // state
		count: func(m *Match) int { return boolCount(m.State != nil) },
		holds: func(m *Match, req *Request, _ string) bool {
			return m.State == nil || subset(req.Input.State, m.State)
		},
		explainMiss: func(m *Match, req *Request, _ string) []string {
			if m.State == nil || subset(req.Input.State, m.State) {
				return nil
			}
			return []string{fmt.Sprintf("state does not contain %s", show(m.State))}
		},
	},
	{ // tools
		count: func(m *Match) int { return len(m.Tools) },
		holds: func(m *Match, req *Request, _ string) bool {
			for _, name := range m.Tools {
				if !offersTool(req, name) {
					return false
				}
			}
			return true
		},
		explainMiss: func(m *Match, req *Request, _ string) []string {
			var reasons []string
			for _, name := range m.Tools {
				if !offersTool(req, name) {
					reasons = append(reasons, fmt.Sprintf("the client does not offer tool %s", name))
				}
			}
			return reasons
		},
	},
	{ // headers
		count: func(m *Match) int { return len(m.Headers) },
		holds: func(m *Match, req *Request, _ string) bool {
			for name, re := range m.Headers {
				if !headerMatches(req, name, re) {
					return false
				}
			}
			return true
		},
		explainMiss: func(m *Match, req *Request, _ string) []string {
			var reasons []string
			for _, name := range slices.Sorted(maps.Keys(m.Headers)) {
				if re := m.Headers[name]; !headerMatches(req, name, re) {
					reasons = append(reasons, fmt.Sprintf("header %s %q does not match /%s/", name, req.Header.Get(name), re))
				}
			}
			return reasons
		},
	},
}

// boolCount is 1 for a criterion that is given, 0 otherwise.
func boolCount(given bool) int {
	if given {
		return 1
	}
	return 0
}

// offersTool reports whether the client offers the named tool.
func offersTool(req *Request, name string) bool {
	return slices.ContainsFunc(req.Input.Tools, func(t protocol.Tool) bool { return t.Name == name })
}

// headerMatches reports whether the request has the header and its first value matches.
func headerMatches(req *Request, name string, re *regexp.Regexp) bool {
	return len(req.Header.Values(name)) > 0 && re.MatchString(req.Header.Get(name))
}

// Criteria counts the criteria given; more specific scenarios win ties of priority.
func (m Match) Criteria() int {
	n := 0
	for i := range criteria {
		n += criteria[i].count(&m)
	}
	return n
}

// holds reports whether every criterion holds; it stops at the first that fails.
func (m *Match) holds(req *Request, text string) bool {
	for i := range criteria {
		if !criteria[i].holds(m, req, text) {
			return false
		}
	}
	return true
}

// test checks every criterion and returns the captures, or the reasons it fails.
func (m *Match) test(req *Request) (map[string]string, []string) {
	msg, _ := req.Input.LastUserMessage()
	text := msg.Text()
	var reasons []string
	for i := range criteria {
		reasons = append(reasons, criteria[i].explainMiss(m, req, text)...)
	}
	return m.captures(text), reasons
}

// captures returns the groups of the message pattern, by number and by name.
func (m *Match) captures(text string) map[string]string {
	if m.Message == nil {
		return nil
	}
	found := m.Message.FindStringSubmatch(text)
	if found == nil {
		return nil
	}
	captures := map[string]string{}
	for i, name := range m.Message.SubexpNames() {
		if i > 0 {
			captures[strconv.Itoa(i)] = found[i]
			if name != "" {
				captures[name] = found[i]
			}
		}
	}
	return captures
}

// subset reports whether want is contained in got: objects by their members, arrays by
// each wanted item being contained in some item, scalars by equality.
func subset(got, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			gv, has := g[k]
			if !has || !subset(gv, wv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok {
			return false
		}
		for _, wv := range w {
			if !slices.ContainsFunc(g, func(gv any) bool { return subset(gv, wv) }) {
				return false
			}
		}
		return true
	case json.Number:
		wf, _ := w.Float64()
		switch g := got.(type) {
		case json.Number:
			gf, err := g.Float64()
			return err == nil && gf == wf
		case float64:
			return g == wf
		}
		return false
	}
	return got == want
}

func show(v any) string {
	if v == nil {
		return "absent"
	}
	b, _ := json.Marshal(v)
	return clip(string(b), 80)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
