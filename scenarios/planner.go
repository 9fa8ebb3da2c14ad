package scenarios

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"text/template"
	"time"

	"github.com/brianvoe/gofakeit/v7"

	"github.com/agui-mock/agui-mock/protocol"
)

// plan builds the run's event stream; with trace it also returns, for each event, the
// position of the step that wrote it, for load-time diagnostics.
func (s *Scenario) plan(ctx context.Context, req *Request, start Start, opts PlanOptions, trace bool) (*Plan, []pos, error) {
	seed := runKey(opts.Seed, s.ID, opts.Turn, req.Input)
	captures := start.Captures
	p := s.newPlanner()
	defer s.donePlanner(p)
	*p = planner{
		ids:           p.ids,
		openCalls:     p.openCalls,
		activityTypes: p.activityTypes,
		lastTexts:     p.lastTexts,
		seed:          seed,
		trace:         trace,
		events:        make([]Timed, 0, s.eventsHint),
		current:       s.Source,
		timing:        s.Timing.Apply(opts.Timing),
		now:           opts.Now,
		speed:         opts.Speed,
		fixed:         opts.FixedTime,
		state:         req.Input.State,
		dialect:       cmp.Or(s.Dialect, opts.Dialect, DialectAGUI),
		usage:         s.usage,
		estimateUsage: opts.Usage,
	}
	if c := start.Resume; c != nil {
		captures = c.captures
		p.ids, p.openCalls, p.activityTypes = maps.Clone(c.ids), maps.Clone(c.openCalls), maps.Clone(c.activities)
		p.lastTexts = maps.Clone(c.lastTexts)
	}
	p.captures = captures
	p.req = req
	// The source, the generator and the renderer live in the planner: one allocation.
	p.pcg = *rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)
	p.rand = *rand.New(&p.pcg)
	p.rng = &p.rand
	p.r = &p.rend
	p.rend = renderer{p: p, plain: s.plain, base: s.templates, budget: newBudget(ctx, opts)}
	if err := p.build(s, req.Input, start); err != nil {
		return nil, nil, fmt.Errorf("scenario %s: %w", s.ID, err)
	}
	if p.next != nil {
		p.next.Scenario = s
	}
	return &Plan{Scenario: s, Events: p.events, Next: p.next, Stopped: p.stopped}, p.origins, nil
}

// runKey is the key of a run's random source, which decides its generated ids, fake
// data and jitter. It is made of the server's seed, the scenario, the thread's turn (how
// many runs the thread started before this one) and what the request says: each
// message's role and content (its text or content parts; a tool message's result) and
// each resume answer's status and payload, in order, and a LangGraph command's answer.
// Ids are left out — the thread's, the run's, the messages', the interrupts' — because
// clients mint fresh ones for every run: the same conversation, played again with the
// same seed, gets the same stream.
func runKey(seed uint64, scenario string, turn int, in *protocol.RunAgentInput) uint64 {
	h := fnv.New64a()
	writeUint := func(n uint64) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], n)
		h.Write(b[:])
	}
	// every variable-length part is written with its length, so no two inputs run together
	writeString := func(s string) {
		writeUint(uint64(len(s)))
		h.Write([]byte(s))
	}
	writeJSON := func(v any) {
		if s, ok := v.(string); ok {
			writeString(s)
			return
		}
		b, _ := json.Marshal(v) // decoded JSON always encodes, with object keys sorted
		writeString(string(b))
	}
	writeUint(seed)
	writeString(scenario)
	writeUint(uint64(turn))
	writeUint(uint64(len(in.Messages)))
	for _, m := range in.Messages {
		writeString(m.Role)
		writeJSON(m.Content)
	}
	writeUint(uint64(len(in.Resume)))
	for _, r := range in.Resume {
		writeString(r.Status)
		writeJSON(r.Payload)
	}
	if in.Command != nil {
		writeJSON(in.Command.Resume)
	}
	return h.Sum64()
}

// newPlanner returns a planner of the scenario's pool, its maps empty, or a new one.
func (s *Scenario) newPlanner() *planner {
	if p, ok := s.planners.Get().(*planner); ok {
		return p
	}
	return &planner{}
}

// donePlanner gives a planner back once its plan is made. The plan and its cursor hold
// its events, its pending items and copies of its maps, never the maps themselves: the
// next run empties and refills those.
func (s *Scenario) donePlanner(p *planner) {
	ids, openCalls, activityTypes, lastTexts := p.ids, p.openCalls, p.activityTypes, p.lastTexts
	clear(ids)
	clear(openCalls)
	clear(activityTypes)
	clear(lastTexts)
	*p = planner{ids: ids, openCalls: openCalls, activityTypes: activityTypes, lastTexts: lastTexts}
	s.planners.Put(p)
}

// planner accumulates the timed events of one run.
type planner struct {
	stopped       string // why the run stops without a terminal event (see stop)
	req           *Request
	seed          uint64 // of the run's random choices and fake data
	timing        Timing
	rng           *rand.Rand
	r             *renderer
	pcg           rand.PCG // rng's source
	rand          rand.Rand
	rend          renderer // r
	now           time.Time
	speed         float64
	fixed         time.Time // the run's clock starts here instead of now; zero: the wall clock
	at            time.Duration
	events        []Timed
	captures      map[string]string
	ids           map[string]string // local names → generated ids
	openCalls     map[string]bool   // ids of tool calls made without a result
	activityTypes map[string]string // activity ids → their types
	lastTexts     map[string]string // per subagentRunId ("" for the agent itself), its latest text message
	terminated    bool
	ending        []endingFault      // fault steps that rewrite the run's RUN_FINISHED
	dialect       Dialect            // how the run's interrupts reach the client
	usage         usageSpec          // the scenario's usage
	estimateUsage bool               // the server's default for a scenario that says none
	interrupts    []PendingInterrupt // raised by this run
	pendingTools  []PendingToolCall  // frontend tool calls this run left unanswered
	next          *Cursor
	stepName      string      // the id of the step being planned, or of the step it is inside
	metadata      any         // the metadata of the step being planned, for the events it writes
	subagents     []string    // the ids of the subagent invocations the step is inside, innermost last
	entered       *invocation // a subagent step just announced, whose children play next
	// subagentFailed says that an error step ended the innermost invocation: the rest of
	// its steps do not play.
	subagentFailed bool
	trace          bool  // record origins
	current        pos   // the step being planned
	origins        []pos // per event, the step that wrote it
	// state follows snapshots and deltas so that a delta that cannot apply is caught.
	state      any
	stateKnown bool
}

// templateFuncs are the functions of the run's templates: seeded by the run, its ids
// and its clock.
func (p *planner) templateFuncs() template.FuncMap {
	funcs := funcMap(gofakeit.New(p.seed), p.localID)
	funcs["fromNow"] = after(p.clock)
	if !p.fixed.IsZero() {
		funcs["now"] = formatNow(p.clock)
	}
	return funcs
}

// stepError is a problem of one step, found while planning.
type stepError struct {
	at  pos
	err error
}

func (e *stepError) Error() string { return e.at.String() + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// atStep places a problem at the step (or event) at, unless it already has a more
// precise place, such as the template it comes from.
func atStep(at pos, err error) error {
	var inner *stepError
	if errors.As(err, &inner) {
		return err
	}
	return &stepError{at: at, err: err}
}

// history returns a copy of the conversation before this run's events.
func (p *planner) history() []map[string]any {
	if p.req.History != nil {
		return p.req.History()
	}
	var conv protocol.Conversation
	conv.AddInput(p.req.Input)
	return conv.Messages
}

// emit adds an event to the run: attributed to the innermost subagent invocation the
// step is inside, and with the step's metadata, where the event says neither itself.
func (p *planner) emit(ev protocol.Event) {
	if sa := p.subagent(); sa != "" && protocol.Attributable(ev.Type) {
		if _, has := ev.Get("subagentRunId"); !has {
			ev = ev.With("subagentRunId", sa)
		}
	}
	if p.metadata != nil {
		if _, has := ev.Get("metadata"); !has {
			ev = ev.With("metadata", p.metadata)
		}
	}
	p.events = append(p.events, Timed{At: p.at, Event: ev, Step: p.stepName})
	if p.trace {
		p.origins = append(p.origins, p.current)
	}
}

// wait moves the run's timeline on by d: the next event is due d later.
func (p *planner) wait(d time.Duration) { p.at += d }

// sentAt is when the event being planned is sent, by the wall clock.
func (p *planner) sentAt() time.Time { return p.now.Add(Scale(p.at, p.speed)) }

// clock is the time the event being planned carries: when it is sent or, with a fixed
// time, the fixed time plus the event's offset in the plan.
func (p *planner) clock() time.Time {
	if p.fixed.IsZero() {
		return p.sentAt()
	}
	return p.fixed.Add(p.at)
}

// wallTime turns a time on the run's clock, such as an interrupt's expiresAt, into
// wall-clock time, keeping its distance from the event being planned.
func (p *planner) wallTime(t time.Time) time.Time { return t.Add(p.sentAt().Sub(p.clock())) }

// checkSize fails when the run, with more events to come, would exceed MaxRunEvents.
func (p *planner) checkSize(more int) error {
	if len(p.events)+more > MaxRunEvents {
		return fmt.Errorf("the run would stream more than %d events, the limit of one run", MaxRunEvents)
	}
	return nil
}

// newID returns a fresh id: unique within the thread, reproducible under a fixed seed.
func (p *planner) newID(prefix string) string {
	return protocol.NewID(prefix, p.rng.Uint64())
}

// localID returns the id named in the scenario, minting it on first use.
func (p *planner) localID(name string) string { return p.namedID(name, "id") }

// stepID mints the id of what a step creates, under the step's local name if it has one.
func (p *planner) stepID(c *stepCommon, prefix string) string {
	if c.localID == "" {
		return p.newID(prefix)
	}
	return p.namedID(c.localID, prefix)
}

// namedID returns the id of a local name, minting it with prefix on first use.
func (p *planner) namedID(name, prefix string) string {
	if id, ok := p.ids[name]; ok {
		return id
	}
	id := p.newID(prefix)
	put(&p.ids, name, id)
	return id
}

// put sets m[k], making the map on first use: most plans never need some of theirs.
func put[K comparable, V any](m *map[K]V, k K, v V) {
	if *m == nil {
		*m = make(map[K]V)
	}
	(*m)[k] = v
}

// stream emits a value's text as timed deltas of one event type, cut by split.
func (p *planner) stream(c *stepCommon, v *value, split func(text, mode string) []string, typ, idField, id string) error {
	text, err := p.renderText(v)
	if err != nil {
		return err
	}
	tps := p.timing.TokensPerSecond
	if c.tokensPerSecond != nil {
		tps = *c.tokensPerSecond
	}
	tokens := split(text, c.chunk)
	if err := p.checkSize(len(tokens)); err != nil {
		return fmt.Errorf("%w; stream long texts in bigger pieces (chunk: sentence or none)", err)
	}
	// One backing array for all the deltas' fields and one boxed id: a long text is
	// hundreds of events. Not for a text past detachedAbove, whose deltas may be large:
	// whatever keeps a few of its events (the journal's record of a run) would keep
	// every delta alive through the array.
	shared := len(text) <= detachedAbove
	fields, idValue := []protocol.Field(nil), any(id)
	if shared {
		fields = make([]protocol.Field, 2*len(tokens))
	}
	for i, tok := range tokens {
		if i > 0 {
			p.wait(p.tokenGap(tps))
		}
		var f []protocol.Field
		if shared {
			f = fields[2*i : 2*i+2 : 2*i+2]
		} else {
			f = make([]protocol.Field, 2)
		}
		f[0], f[1] = protocol.Field{Name: idField, Value: idValue}, protocol.Field{Name: "delta", Value: tok}
		p.emit(protocol.Event{Type: typ, Fields: f})
	}
	return nil
}

// tokenGap is the pause before the next token at the given rate, with jitter.
func (p *planner) tokenGap(tps float64) time.Duration {
	if tps <= 0 {
		return 0
	}
	base := float64(time.Second) / tps
	return time.Duration(base * (1 + p.timing.Jitter*(2*p.rng.Float64()-1)))
}

// applyPatch follows a STATE_DELTA on the state the planner knows of, so a scenario
// whose patch cannot apply to its own preceding snapshot fails at load time.
func (p *planner) applyPatch(delta any) error {
	if !p.stateKnown {
		return nil
	}
	next, err := protocol.ApplyPatch(p.state, delta)
	if err != nil {
		return fmt.Errorf("stateDelta does not apply to the state before it: %w", err)
	}
	p.state = next
	return nil
}
