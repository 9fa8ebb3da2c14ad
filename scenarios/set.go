package scenarios

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// DefaultRoutes returns the run endpoints every server answers on. Scenarios may add
// others with match.route.
func DefaultRoutes() []string { return []string{"/", "/agui/chat"} }

// Set is an immutable, validated collection of scenarios, ordered by precedence.
type Set struct {
	scenarios []*Scenario
	threads   []*Scenario // the thread documents (Scenario.Thread)
	routes    map[string]bool
	agents    []string // the agents the scenarios name (match.agent), sorted
	warnings  []Diagnostic
}

// Scenarios returns the scenarios in the order they are tried.
func (s *Set) Scenarios() []*Scenario { return s.scenarios }

// Routes returns every route a run may be posted to.
func (s *Set) Routes() []string {
	return slices.Sorted(maps.Keys(s.routes))
}

// Agents returns the agents of the CopilotKit runtime's routes that the scenarios name,
// sorted.
func (s *Set) Agents() []string { return s.agents }

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
	return LoadRemembering(ctx, limits, nil, extra, sources...)
}

// LoadRemembering is LoadWith for loads repeated over the same sources, as a server's
// reloads are: the files a load refuses are remembered in refused, and a file unchanged
// since is refused again without being parsed (see Refusals). A nil refused remembers
// nothing.
func LoadRemembering(ctx context.Context, limits Limits, refused *Refusals, extra []*Scenario, sources ...Source) (*Set, error) {
	all, diags := gather(ctx, refused, extra, sources...)
	if len(diags) > 0 {
		return nil, &LoadError{Diagnostics: diags}
	}
	return NewSet(ctx, limits, all)
}

// Gather reads every source (stopping when ctx is done) and returns the scenarios a set of them holds, with the
// problems of their files: the scenarios added at run time (extra) first, overriding
// those of the same id; then the sources' scenarios, except those a source omits and
// those of a Fallback source that another scenario of the same id overrides.
func Gather(ctx context.Context, extra []*Scenario, sources ...Source) ([]*Scenario, []Diagnostic) {
	return gather(ctx, nil, extra, sources...)
}

// gather is Gather that refuses the files refused remembers without parsing them, and
// remembers those it refuses (nil: none).
func gather(ctx context.Context, refused *Refusals, extra []*Scenario, sources ...Source) ([]*Scenario, []Diagnostic) {
	refused.startLoad()
	defer refused.endLoad()
	all := slices.Clone(extra)
	var diags []Diagnostic
	runtime := map[string]bool{}
	for _, sc := range extra {
		runtime[sc.ID] = true
	}
	defined := maps.Clone(runtime)
	var fallback []*Scenario
	for _, src := range sources {
		list, d := readFiles(ctx, refused, src)
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
	return all, diags
}

// NewSet validates scenarios together and orders them by precedence (the user's
// scenarios before the built-in ones, see precedes). Each example must
// select its own scenario, except that an example of a fallback scenario may select one
// of another source: that scenario overrides it. Each scenario is dry-run within limits;
// when ctx is done the dry runs stop and NewSet fails with ctx's cause.
func NewSet(ctx context.Context, limits Limits, list []*Scenario) (*Set, error) {
	set := &Set{routes: map[string]bool{}}
	for _, sc := range list {
		if sc.Thread != nil {
			set.threads = append(set.threads, sc)
		} else {
			set.scenarios = append(set.scenarios, sc)
		}
	}
	var diags []Diagnostic
	seen := map[string]*Scenario{}
	for i, sc := range set.scenarios {
		sc.order = i
		if prev, dup := seen[sc.ID]; dup {
			diags = append(diags, sc.diagnostic(fmt.Sprintf("scenario id %q is already used by %s", sc.ID, prev.Source), "give one of them an explicit id"))
		}
		seen[sc.ID] = sc
	}
	for _, doc := range set.threads {
		if prev, dup := seen[doc.ID]; dup {
			diags = append(diags, doc.diagnostic(fmt.Sprintf("thread %q is already seeded by %s", doc.Thread.ThreadID, prev.Source), "seed each thread id once"))
		}
		seen[doc.ID] = doc
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
	var warnings []Diagnostic
	for _, c := range checks {
		for _, d := range c {
			if d.Severity == Warning {
				warnings = append(warnings, d)
			} else {
				diags = append(diags, d)
			}
		}
	}
	for _, r := range DefaultRoutes() {
		set.routes[r] = true
	}
	for _, sc := range set.scenarios {
		for _, r := range sc.Match.Routes {
			set.routes[r] = true
		}
		for _, a := range sc.Match.Agents {
			if !slices.Contains(set.agents, a) {
				set.agents = append(set.agents, a)
			}
		}
	}
	slices.Sort(set.agents)
	sort.SliceStable(set.scenarios, func(i, j int) bool { return precedes(set.scenarios[i], set.scenarios[j]) })
	for _, sc := range set.scenarios {
		for _, ex := range sc.Examples {
			req, err := ex.request()
			var sel *Selection
			if err == nil {
				sel, _ = set.Select(req)
			}
			switch {
			case err != nil:
				diags = append(diags, Diagnostic{File: ex.pos.File, Line: ex.pos.Line, Column: ex.pos.Column, Message: fmt.Sprintf("this example of scenario %s is not a run request a client can send: %v", sc.ID, err)})
			case sel == nil:
				diags = append(diags, Diagnostic{File: ex.pos.File, Line: ex.pos.Line, Column: ex.pos.Column, Message: fmt.Sprintf("this example of scenario %s matches no scenario", sc.ID),
					Hint: ownMisses(sc, req, "")})
			case sel.Scenario != sc && !(sc.fallback && !sel.Scenario.fallback): // the user's scenarios override fallback ones
				diags = append(diags, Diagnostic{File: ex.pos.File, Line: ex.pos.Line, Column: ex.pos.Column,
					Message: fmt.Sprintf("this example of scenario %s selects scenario %s (%s) instead", sc.ID, sel.Scenario.ID, sel.Scenario.Source),
					Hint:    ownMisses(sc, req, "raise the priority or narrow the match of one of them")})
			}
		}
	}
	diags = append(diags, set.checkThreads(ctx, limits)...)
	if len(diags) > 0 {
		return nil, &LoadError{Diagnostics: append(diags, warnings...)}
	}
	set.warnings = warnings
	return set, nil
}

// precedes says whether scenario a is tried before b. The built-in scenarios are
// defaults: every scenario of the user's sources comes before them, whatever its
// priority, so that a request both match plays the user's. Within each group the higher
// priority comes first, then the scenario with more match criteria, then the one loaded
// first.
func precedes(a, b *Scenario) bool {
	if a.fallback != b.fallback {
		return b.fallback
	}
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	if a.Match.Criteria() != b.Match.Criteria() {
		return a.Match.Criteria() > b.Match.Criteria()
	}
	return a.order < b.order
}

// Warnings are what the load-time check found that does not make the set invalid: what
// scenarios' events lose over the protobuf transport.
func (s *Set) Warnings() []Diagnostic { return s.warnings }

// ownMisses says why a scenario's own match misses its example's request, or, when it
// holds, the fallback hint.
func ownMisses(sc *Scenario, req *Request, fallback string) string {
	if _, reasons := sc.Match.test(req); len(reasons) > 0 {
		return "its own match misses it: " + strings.Join(reasons, "; ")
	}
	return fallback
}
