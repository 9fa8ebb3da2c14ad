package scenarios

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// DefaultRoutes returns the run endpoints every server answers on. Scenarios may add
// others with match.route.
func DefaultRoutes() []string { return []string{"/", "/agui/chat"} }

// Set is an immutable, validated collection of scenarios, ordered by precedence.
type Set struct {
	scenarios []*Scenario
	index     *index // finds the scenarios that may match a request
	byID      map[string]*Scenario
	limits    Limits                     // of the dry runs
	dryRuns   map[*Scenario][]Diagnostic // what each scenario's dry runs found: warnings alone, in a valid set
	examples  map[*Scenario][]exampleOutcome
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
// reloads are: what a load read, parsed, dry-ran and checked is kept in mem, and the
// next load reuses what has not changed since (see Memory). A nil mem keeps nothing.
// When ctx is done the load stops and fails with ctx's cause.
func LoadRemembering(ctx context.Context, limits Limits, mem *Memory, extra []*Scenario, sources ...Source) (*Set, error) {
	all, diags := gather(ctx, mem, extra, sources...)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("loading scenarios: %w", context.Cause(ctx))
	}
	if len(diags) > 0 {
		return nil, &LoadError{Diagnostics: diags}
	}
	set, err := newSet(ctx, limits, all, mem.lastSet())
	if err == nil {
		mem.remember(set)
	}
	return set, err
}

// Gather reads every source (stopping when ctx is done) and returns the scenarios a set of them holds, with the
// problems of their files: the scenarios added at run time (extra) first, overriding
// those of the same id; then the sources' scenarios, except those a source omits and
// those of a Fallback source that another scenario of the same id overrides.
func Gather(ctx context.Context, extra []*Scenario, sources ...Source) ([]*Scenario, []Diagnostic) {
	return gather(ctx, nil, extra, sources...)
}

// gather is Gather that recalls, through mem, what the files it remembers gave (nil:
// nothing).
func gather(ctx context.Context, mem *Memory, extra []*Scenario, sources ...Source) ([]*Scenario, []Diagnostic) {
	mem.startLoad()
	defer mem.endLoad()
	all := slices.Clone(extra)
	var diags []Diagnostic
	runtime := map[string]bool{}
	for _, sc := range extra {
		runtime[sc.ID] = true
	}
	defined := maps.Clone(runtime)
	var fallback []*Scenario
	for _, src := range sources {
		list, d := readFiles(ctx, mem, src)
		diags = append(diags, d...)
		list = slices.DeleteFunc(list, func(sc *Scenario) bool { return slices.Contains(src.Omit, sc.ID) })
		if src.Fallback {
			for _, sc := range list {
				if !sc.fallback { // a scenario a memory recalls is marked already, and may be playing
					sc.fallback = true
				}
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
// scenarios before the built-in ones, see sortByPrecedence). Each example must
// select its own scenario, except that an example of a fallback scenario may select one
// of another source: that scenario overrides it. Each scenario is dry-run within limits;
// when ctx is done the dry runs stop and NewSet fails with ctx's cause.
func NewSet(ctx context.Context, limits Limits, list []*Scenario) (*Set, error) {
	return newSet(ctx, limits, list, nil)
}

// newSet is NewSet that reuses what prev, a valid set, found of the scenarios both
// hold: their dry runs, and the outcomes of their examples that cannot have changed.
func newSet(ctx context.Context, limits Limits, list []*Scenario, prev *Set) (*Set, error) {
	set := &Set{routes: map[string]bool{}, limits: limits}
	for _, sc := range list {
		if sc.Thread != nil {
			set.threads = append(set.threads, sc)
		} else {
			set.scenarios = append(set.scenarios, sc)
		}
	}
	if prev != nil && prev.limits != limits {
		prev = nil // the dry runs were within other limits
	}
	var diags []Diagnostic
	seen := map[string]*Scenario{}
	for _, sc := range set.scenarios {
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
	set.dryRuns = make(map[*Scenario][]Diagnostic, len(set.scenarios))
	found := make([][]Diagnostic, len(set.scenarios))
	parallel(len(set.scenarios), func(i int) {
		sc := set.scenarios[i]
		if warnings, ok := prev.dryRunOf(sc); ok {
			found[i] = warnings
		} else if ctx.Err() == nil {
			found[i] = sc.dryRun(ctx, limits)
		}
	})
	if ctx.Err() != nil {
		return nil, fmt.Errorf("loading scenarios: %w", context.Cause(ctx))
	}
	var warnings []Diagnostic
	for i, c := range found {
		set.dryRuns[set.scenarios[i]] = c
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
	sortByPrecedence(set.scenarios)
	set.index = newIndex(set.scenarios)
	set.byID = make(map[string]*Scenario, len(set.scenarios))
	for _, sc := range slices.Backward(set.scenarios) { // the first of an id, as a scan finds it
		set.byID[sc.ID] = sc
	}
	examples, err := set.checkExamples(ctx, prev)
	if err != nil {
		return nil, err
	}
	diags = append(diags, examples...)
	diags = append(diags, set.checkThreads(ctx, limits)...)
	if len(diags) > 0 {
		return nil, &LoadError{Diagnostics: append(diags, warnings...)}
	}
	set.warnings = warnings
	return set, nil
}

// sortByPrecedence orders scenarios by precedence. The built-in scenarios are
// defaults: every scenario of the user's sources comes before them, whatever its
// priority, so that a request both match plays the user's. Within each group the higher
// priority comes first, then the scenario with more match criteria, then the one loaded
// first (the sort is stable, and the scenarios come in load order).
func sortByPrecedence(list []*Scenario) {
	type ranked struct {
		sc       *Scenario
		criteria int // counted once: counting is a dozen calls
	}
	keys := make([]ranked, len(list))
	for i, sc := range list {
		keys[i] = ranked{sc, sc.Match.Criteria()}
	}
	slices.SortStableFunc(keys, func(a, b ranked) int {
		if a.sc.fallback != b.sc.fallback {
			return boolCount(a.sc.fallback) - boolCount(b.sc.fallback)
		}
		if a.sc.Priority != b.sc.Priority {
			return cmp.Compare(b.sc.Priority, a.sc.Priority)
		}
		return cmp.Compare(b.criteria, a.criteria)
	})
	for i, k := range keys {
		list[i] = k.sc
	}
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
