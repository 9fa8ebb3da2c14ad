package verify

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agui-mock/agui-mock/internal/upstreamclient"
	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// Config configures a verification.
type Config struct {
	Upstream *url.URL // the agent's run endpoint; an example's route is appended to its path
	// Header goes with every request to the agent (credentials, typically); it is never
	// written into a report or a file.
	Header      http.Header
	Timeout     time.Duration // the longest one run may take, its stream included
	Concurrency int           // how many scenarios are verified at once
	Client      *http.Client  // nil: upstreamclient.New()
	Compare     Options
	MaxFrame    int // the largest event accepted from the agent, in bytes; 0: 16 MiB
	// Proto asks the agent for the AG-UI protobuf transport instead of SSE. Either way,
	// the stream is read in the transport the agent's Content-Type names.
	Proto bool
	// Attempts is how many times a conversation that drifted is held with the agent, each
	// on a thread of its own, before it counts as drift: an agent's answers may differ
	// from run to run, and the recording is one of them. 0: DefaultAttempts.
	Attempts int
	// Strict fails every break of a producer rule (see protocol.Rule), even one the
	// scenario marks: without it, such a break the agent still makes is a warning.
	Strict bool
}

// DefaultAttempts is how many times verify holds a drifting conversation with the agent
// unless Config.Attempts says otherwise.
const DefaultAttempts = 3

// Limits of one example's exploration, as the load-time check of a scenario has.
const (
	maxTurns         = 6  // runs in one conversation
	maxConversations = 16 // conversations per example
)

// Status is a scenario's or a turn's verdict.
type Status string

// The verdicts.
const (
	Pass  Status = "pass"
	Drift Status = "drift"
	Error Status = "error" // the agent could not be asked: unreachable, refused, broken off
)

// Result is the verdict on one scenario.
type Result struct {
	Scenario string `json:"scenario"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Status   Status `json:"status"`
	// Difference is the first difference found, in words, with its example and turn; or
	// the error.
	Difference string `json:"difference,omitempty"`
	Turns      []Turn `json:"turns"`
	// Updated says what an update changed, when it re-recorded the scenario;
	// NotUpdated why it could not.
	Updated    string `json:"updated,omitempty"`
	NotUpdated string `json:"notUpdated,omitempty"`
}

// Where is the scenario's position, file:line.
func (r Result) Where() string { return fmt.Sprintf("%s:%d", r.File, r.Line) }

// Turn is the verdict on one run of one conversation.
type Turn struct {
	Example int `json:"example"` // from 1
	Turn    int `json:"turn"`    // from 1
	// Answers says how the conversation answered the runs before this one ("" for the
	// first run of a conversation).
	Answers     string        `json:"answers,omitempty"`
	Status      Status        `json:"status"`
	Differences []string      `json:"differences,omitempty"`
	Error       string        `json:"error,omitempty"`
	Duration    time.Duration `json:"durationNs"`

	// Breaks lists the producer rules the agent broke in the run; Warnings says what
	// passed but deserves a look: a rule the agent still breaks, as the scenario marks.
	Breaks   []protocol.Rule `json:"breaks,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
}

// Name names the turn in reports.
func (t Turn) Name() string {
	name := fmt.Sprintf("example %d, turn %d", t.Example, t.Turn)
	if t.Answers != "" {
		name += " after " + t.Answers
	}
	return name
}

// problem is the turn's first difference or its error.
func (t Turn) problem() string {
	if t.Error != "" {
		return t.Error
	}
	if len(t.Differences) > 0 {
		return t.Differences[0]
	}
	return ""
}

// Report is the verdict on every scenario verified.
type Report struct {
	Results []Result `json:"results"`
	// Skipped lists the scenarios not verified and why: no examples, broken on purpose, or
	// stopped without a terminal event.
	Skipped []Skip `json:"skipped"`
}

// Skip is a scenario that was not verified.
type Skip struct {
	Scenario string `json:"scenario"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Reason   string `json:"reason"`
}

// Count returns how many scenarios have the status.
func (r *Report) Count(s Status) int {
	n := 0
	for _, res := range r.Results {
		if res.Status == s {
			n++
		}
	}
	return n
}

// Run verifies every scenario of the set that has examples against the agent.
func Run(ctx context.Context, cfg Config, set *scenarios.Set) *Report {
	cfg = cfg.withDefaults()
	rep := &Report{Skipped: []Skip{}, Results: []Result{}}
	var todo []*scenarios.Scenario
	for _, sc := range set.Scenarios() {
		switch {
		case len(sc.Examples) == 0:
			rep.Skipped = append(rep.Skipped, Skip{sc.ID, sc.Source.File, sc.Source.Line, "it has no examples"})
		case sc.Broken != "":
			rep.Skipped = append(rep.Skipped, Skip{sc.ID, sc.Source.File, sc.Source.Line, "it breaks the protocol on purpose: " + sc.Broken})
		case sc.Stopped != "":
			// The live agent answers the request to its end; what was recorded is cut where
			// the client stopped it, and where a run is stopped differs from one run to the next.
			rep.Skipped = append(rep.Skipped, Skip{sc.ID, sc.Source.File, sc.Source.Line, "its run stops without a terminal event, which no live run of the agent reproduces: " + sc.Stopped})
		default:
			todo = append(todo, sc)
		}
	}
	results := make([]Result, len(todo))
	sem := make(chan struct{}, cfg.Concurrency)
	var wg sync.WaitGroup
	for i, sc := range todo {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = verifyScenario(ctx, cfg, set, sc, directAgent{cfg})
		})
	}
	wg.Wait()
	slices.SortFunc(results, func(a, b Result) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Scenario, b.Scenario))
	})
	rep.Results = results
	return rep
}

func (cfg Config) withDefaults() Config {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Minute
	}
	if cfg.Client == nil {
		// No redirect is followed: the headers, credentials among them, go to the
		// upstream alone; a run a kept-alive connection lost as the agent closed it is
		// sent again.
		cfg.Client = upstreamclient.New()
	}
	if cfg.MaxFrame <= 0 {
		cfg.MaxFrame = 16 << 20
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = DefaultAttempts
	}
	return cfg
}

// verifyScenario verifies every example of a scenario, every way its conversation goes.
func verifyScenario(ctx context.Context, cfg Config, set *scenarios.Set, sc *scenarios.Scenario, ag agent) Result {
	res := Result{Scenario: sc.ID, File: sc.Source.File, Line: sc.Source.Line, Status: Pass, Turns: []Turn{}}
	for i, ex := range sc.Examples {
		explore(ctx, cfg, set, sc, example{ex, i + 1}, ag, false, func(t Turn) { res.Turns = append(res.Turns, t) })
	}
	for _, t := range res.Turns {
		if t.Status == Error || (t.Status == Drift && res.Status == Pass) {
			res.Status = t.Status
			res.Difference = t.Name() + ": " + t.problem()
			if t.Status == Error {
				break
			}
		}
	}
	return res
}

// example is a scenario's example and its number, from 1.
type example struct {
	scenarios.Example
	n int
}

// explore holds every conversation an example leads to: the first answers each paused
// run down branch 0 of its branches, and each other branch of each pause gets a
// conversation of its own, which repeats the runs before it (an agent's thread goes on only once). The
// turns a conversation repeats are reported again only when they differ. With
// recording, a conversation goes on past differences, to record the agent's answers.
// Without, a conversation that drifts is held again, up to cfg.Attempts times in all: one
// that then matches passes, its turns noting the attempt.
func explore(ctx context.Context, cfg Config, set *scenarios.Set, sc *scenarios.Scenario, ex example, ag agent, recording bool, report func(Turn)) {
	queue := [][]int{nil}
	for n := 0; len(queue) > 0 && n < maxConversations && ctx.Err() == nil; n++ {
		path := queue[0]
		queue = queue[1:]
		var turns []Turn
		var forks []int
		for attempt := 1; attempt <= cfg.Attempts && ctx.Err() == nil; attempt++ {
			c := &conversation{cfg: cfg, set: set, sc: sc, ex: ex, agent: ag, recording: recording}
			var held []Turn
			heldForks := c.run(ctx, path, func(t Turn) { held = append(held, t) })
			if attempt == 1 {
				turns, forks = held, heldForks
			}
			if recording || !drifted(held) {
				if attempt > 1 {
					for i := range held {
						if i < len(turns) && turns[i].Status == Drift {
							held[i].Warnings = append(held[i].Warnings, fmt.Sprintf("the agent's answers differ from run to run: this run matched on attempt %d of %d; the first differed: %s", attempt, cfg.Attempts, turns[i].problem()))
						}
					}
					turns, forks = held, heldForks
				}
				break
			}
		}
		for _, t := range turns {
			if t.Turn > len(path) || t.Status != Pass {
				report(t)
			}
		}
		for d, branches := range forks {
			for k := 1; k < branches; k++ {
				next := append(slices.Clone(path), make([]int, d)...)
				queue = append(queue, append(next, k))
			}
		}
	}
}

// drifted reports whether a conversation's turns differ from the scenario's; an error is
// not asked again.
func drifted(turns []Turn) bool {
	return slices.ContainsFunc(turns, func(t Turn) bool { return t.Status == Drift }) &&
		!slices.ContainsFunc(turns, func(t Turn) bool { return t.Status == Error })
}

// conversation is one conversation of an example with the agent and with the scenario.
type conversation struct {
	cfg       Config
	set       *scenarios.Set
	sc        *scenarios.Scenario
	ex        example
	agent     agent
	recording bool
	threadID  string
	answers   []string // how each pause was answered, for the turns' names
}

// side is one party of the conversation, the agent or the scenario: its history and
// what its last run waits for.
type side struct {
	history    []any    // the messages of the thread so far, as a client resends them
	state      any      // the thread's state as the client holds it
	interrupts []string // the ids of the interrupts the last run raised
	// onInterrupt holds, when the last run raised its interrupts in the LangGraph
	// dialect, the value of each on_interrupt event: such a pause is answered as
	// CopilotKit answers it, through forwardedProps.command.
	onInterrupt []any
	toolCalls   []string // the ids of the frontend tool calls it left without a result
}

// run holds the conversation, choosing at the d-th pause the branch path[d] (branch 0
// past the end of path), and returns how many branches each pause past path had.
func (c *conversation) run(ctx context.Context, path []int, report func(Turn)) (forks []int) {
	c.threadID = newUUID()
	// the example's messages (its system and user message, or its conversation), with ids
	// of their own, open the thread on both sides
	opening := c.ex.RunInput(scenarios.RunIDs{Message: newUUID()})["messages"].([]any)
	agentSide := &side{history: slices.Clone(opening), state: c.ex.State}
	mockSide := &side{history: make([]any, len(opening)), state: c.ex.State}
	for i, m := range opening {
		mockSide.history[i] = maps.Clone(m.(map[string]any))
	}
	var cursor *scenarios.Cursor
	var answers *scenarios.Answers
	for turn := 1; turn <= maxTurns; turn++ {
		t := Turn{Example: c.ex.n, Turn: turn, Answers: strings.Join(c.answers, ", "), Status: Pass}
		started := time.Now()
		runID := newUUID()
		agentEvents, at, err := c.agent.run(ctx, c.ex.Route, c.ex.Headers, c.body(runID, agentSide, answers))
		t.Duration = time.Since(started)
		if err != nil {
			t.Status, t.Error = Error, err.Error()
			report(t)
			return forks
		}
		agentSide.follow(agentEvents)
		plan, planErr := c.play(ctx, cursor, runID, mockSide, answers, turn)
		switch {
		case planErr != nil && !c.recording:
			t.Status, t.Error = Error, "the scenario cannot answer this run: "+planErr.Error()
		case planErr != nil:
			cursor = nil
		default:
			mockEvents, offsets := adapted(plan)
			mockSide.follow(mockEvents)
			// A stream the client would refuse is the first thing to say of it, then the
			// producer rules it breaks that the recording does not, or the other way round.
			c.checkRules(&t, agentEvents, mockEvents)
			t.Differences = append(t.Differences, Compare(ShapeOf(mockEvents, offsets), ShapeOf(agentEvents, at), c.cfg.Compare)...)
			if len(t.Differences) > 0 {
				t.Status = Drift
			}
			cursor = plan.Next
		}
		report(t)
		if t.Status != Pass && !c.recording {
			return forks
		}
		if len(agentSide.interrupts) == 0 && len(agentSide.toolCalls) == 0 {
			return forks // the agent waits for nothing: the conversation is over
		}
		branches := []scenarios.Answers{{}}
		if cursor != nil {
			branches = cursor.Branches()
		} else if !c.recording {
			return forks
		}
		choice := 0
		if d := turn - 1; d < len(path) {
			choice = path[d]
		} else {
			forks = append(forks, len(branches))
		}
		if choice >= len(branches) {
			return forks
		}
		answers = &branches[choice]
		c.answers = append(c.answers, describe(*answers, agentSide))
	}
	return forks
}

// play plans the scenario's run for the same request: the first run of the scenario,
// or the continuation its answers choose.
func (c *conversation) play(ctx context.Context, cursor *scenarios.Cursor, runID string, mock *side, answers *scenarios.Answers, turn int) (*scenarios.Plan, error) {
	body, err := jsonBody(c.body(runID, mock, answers))
	if err != nil {
		return nil, err
	}
	in, err := protocol.DecodeRunAgentInput(body, protocol.DecodeOptions{NewID: func(kind string) string { return protocol.NewID(kind, rand.Uint64()) }})
	if err != nil {
		return nil, fmt.Errorf("the request does not decode: %w", err)
	}
	req := &scenarios.Request{Route: c.ex.RunRoute(), Input: in, Header: c.ex.RunHeader()}
	now := time.Now()
	opts := scenarios.PlanOptions{Seed: 1, Turn: turn - 1, Timing: scenarios.DefaultTiming(), Now: now}
	if cursor == nil {
		if turn > 1 {
			return nil, errors.New("the scenario's conversation ended before the agent's")
		}
		sel := c.set.Force(c.sc.ID, req)
		return c.sc.Plan(ctx, req, scenarios.Start{Captures: sel.Captures}, opts)
	}
	start, continues, err := scenarios.Continue(cursor, in, now)
	if err != nil {
		return nil, err
	}
	if !continues {
		return nil, errors.New("the answers do not continue the scenario's conversation")
	}
	return c.sc.Plan(ctx, req, start, opts)
}

// adapted is the plan's events as the server plays them to a client of verify's protocol
// version, and when each falls due.
func adapted(plan *scenarios.Plan) ([]protocol.Event, []time.Duration) {
	peer := protocol.PeerFor(clientProtocolVersion)
	events := make([]protocol.Event, 0, len(plan.Events))
	offsets := make([]time.Duration, 0, len(plan.Events))
	for _, e := range plan.Events {
		if ev, ok := peer.Adapt(e.Event); ok {
			events, offsets = append(events, ev), append(offsets, e.At)
		}
	}
	return events, offsets
}

// follow takes a run's events into the side's history, and notes what the run waits for.
func (s *side) follow(events []protocol.Event) {
	conv := protocol.Conversation{State: s.state}
	for _, m := range s.history {
		conv.Messages = append(conv.Messages, m.(map[string]any))
	}
	for _, ev := range events {
		_ = conv.Apply(ev) // a stream the client would refuse has been reported as a difference
	}
	conv.Settle()
	s.state = conv.State
	s.history = s.history[:0]
	for _, m := range conv.Messages {
		s.history = append(s.history, m)
	}
	interrupts, calls := protocol.Awaited(events, func(ev protocol.Event) protocol.Event { return ev })
	s.interrupts, s.toolCalls, s.onInterrupt = nil, nil, nil
	if len(interrupts) > 0 {
		s.onInterrupt = onInterruptValues(events)
	}
	for _, wire := range interrupts {
		id, _ := wire["id"].(string)
		s.interrupts = append(s.interrupts, id)
	}
	for _, start := range calls {
		s.toolCalls = append(s.toolCalls, start.Str("toolCallId"))
	}
}

// describe says how a pause was answered, for the turns' names.
func describe(a scenarios.Answers, agent *side) string {
	var parts []string
	for i := range agent.interrupts {
		answer := scenarios.Answer{Status: protocol.ResumeResolved}
		if i < len(a.Resume) {
			answer = a.Resume[i]
		}
		part := fmt.Sprintf("interrupt %d %s", i+1, answer.Status)
		if payload, _ := json.Marshal(answer.Payload); answer.Payload != nil && string(payload) != "{}" {
			part += " with " + string(payload)
		}
		parts = append(parts, part)
	}
	for i := range agent.toolCalls {
		result := ""
		if i < len(a.Results) {
			result = a.Results[i]
		}
		parts = append(parts, fmt.Sprintf("tool result %q", clip(result)))
	}
	return strings.Join(parts, " and ")
}

// onInterruptValues returns the values of a run's on_interrupt events when the run
// raised its interrupts through them alone (its RUN_FINISHED lists none).
func onInterruptValues(events []protocol.Event) []any {
	var values []any
	for _, ev := range events {
		switch {
		case ev.Type == protocol.Custom && ev.Str("name") == protocol.OnInterrupt:
			value, _ := ev.Get("value")
			values = append(values, value)
		case ev.Type == protocol.RunFinished && ev.Outcome()["interrupts"] != nil:
			return nil
		}
	}
	return values
}
