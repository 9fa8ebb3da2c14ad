package scenarios

import (
	"context"
	"net/textproto"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// Request is a run request as scenarios see it.
type Request struct {
	Route string
	// Agent is the agent a run of the CopilotKit runtime's routes names
	// (/copilotkit/agent/:agent/run); "" for a run posted to any other route.
	Agent string
	Input *protocol.RunAgentInput
	// Header is the request's HTTP header; its Get and Values find a name in any case.
	Header textproto.MIMEHeader
	// History returns the thread's messages before this run's events, the input's
	// included. Nil means the input's messages are the whole history.
	History func() []map[string]any
}

// Timed is an event and when it is due, measured from the start of the run.
type Timed struct {
	At    time.Duration
	Event protocol.Event
	Step  string // the id of the step that wrote it, if the step has one (for breakpoints)
	Fault *Fault // instead of an event: the stream breaks here
}

// Plan is the timed event stream of one run.
type Plan struct {
	Scenario *Scenario
	Events   []Timed
	// Next is where the conversation continues when the run pauses for an interrupt or
	// for frontend tool results; nil when the scenario is done.
	Next *Cursor
	// Stopped says why the run stops without a terminal event, held open where its
	// events end: the client stopped it while it was recorded. "" for any other run.
	Stopped string
}

// PlanOptions configures how a run's plan is made.
type PlanOptions struct {
	// Seed and Turn, with the scenario and what the request says, decide generated ids,
	// fake data and jitter; see runKey.
	Seed   uint64
	Turn   int       // how many runs the thread started before this one
	Timing Timing    // the server's defaults; the scenario's own timing applies on top
	Now    time.Time // when the run starts, for interrupt expiry
	Speed  float64   // the run's speed factor, so expiry counts from when an interrupt is sent
	// FixedTime, when set, is the run's clock instead of the wall clock: the time an
	// event carries (now, fromNow, expiresAt) is FixedTime plus the event's offset in the
	// plan, whatever the speed.
	FixedTime time.Time
	// Limits bound the work of the run's templates; see Limits.
	Limits Limits
	// Dialect is the server's default, for the scenarios that name none; empty: agui.
	Dialect Dialect
	// Usage, for a scenario of steps that says nothing of usage, reports on the run's
	// RUN_FINISHED or RUN_ERROR the token usage estimated from its request and stream.
	Usage bool
	// Client, when set, is the context of the request the run answers, where the run's
	// own context outlives it: planning stops, too, when it ends.
	Client context.Context
}

// Stopped returns why planning under ctx with these options stops early: ctx's cause,
// or the end of the Client's context; nil while neither has ended.
func (o PlanOptions) Stopped(ctx context.Context) error { return stopped(ctx, o.Client) }

// stopped is PlanOptions.Stopped for what keeps the client's context apart from the
// options: a template's budget.
func stopped(ctx, client context.Context) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if client != nil && client.Err() != nil {
		return context.Cause(client)
	}
	return nil
}

// Start says where a run begins: a new conversation, with the captures of its match, or
// the continuation of a paused one.
type Start struct {
	Captures map[string]string
	Resume   *Cursor
	// answers are the resume entries that answer Resume's interrupts (Continue reads
	// them from the run's resume, or from its LangGraph command).
	answers []protocol.ResumeEntry
	// forced picks the branch of one pending item instead of its answer; loading uses
	// it to try every branch.
	forced *branchChoice
}

// MaxRunEvents is how many events one run may plan: a scenario file within its size
// limit can still hold a text of millions of words, each a delta event of its own.
const MaxRunEvents = 100_000

// Plan builds the run's event stream. Its templates stop, and it fails, when ctx is
// done or they go past opts.Limits (a *LimitError).
func (s *Scenario) Plan(ctx context.Context, req *Request, start Start, opts PlanOptions) (*Plan, error) {
	plan, _, err := s.plan(ctx, req, start, opts, false)
	return plan, err
}
