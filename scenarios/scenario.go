package scenarios

import (
	"fmt"
	"slices"
	"sync"
	"text/template"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// Scenario is one scripted agent behaviour.
type Scenario struct {
	ID          string
	Description string
	Source      Position // where the scenario starts
	Priority    int
	// Broken, when set, says why the scenario deliberately breaks the protocol; its
	// event sequence is then not checked.
	Broken string
	// Breaks lists the AG-UI producer rules the scenario's runs break on purpose, as the
	// agent it was recorded from does (see protocol.Rule): the load-time check lets
	// them, and verify expects the live agent to break them too.
	Breaks []protocol.Rule
	// Stopped, when set, says why the run of the explicit events form stops without a
	// terminal event (a run the client stopped while it was recorded): after its last
	// event it holds the stream open, as a stall fault does, until the client goes away
	// or the run is cancelled. Its events are checked as a run under way.
	Stopped  string
	Dialect  Dialect // how its interrupts reach the client; empty: the server's default (PlanOptions.Dialect)
	Match    Match
	Timing   TimingOverride
	Examples []Example
	// Thread, when set, makes this no scenario but a thread document: a conversation
	// every test starts from (see Set.Threads), whose ID is ThreadDocumentID's.
	Thread *protocol.SeededThread

	steps     []step     // the steps form
	run       *eventsRun // the explicit form
	result    *value
	usage     usageSpec // what its runs report of token usage
	templates *template.Template
	stepIDs   []string               // ids of the steps, nested ones included, in file order
	plain     map[string][]plainPart // the templates that need no text/template
	// fallback marks a scenario of a Fallback source (the built-in set): its examples may
	// select the user's scenarios, which are meant to take its requests.
	fallback bool
	// eventsHint is how many events the first run had in the load-time check: a plan
	// starts with room for that many rather than growing to it.
	eventsHint int
	// planners lends the planners of finished plans to the next runs, with their maps.
	planners sync.Pool // of *planner
}

// Default reports whether the scenario is of a Fallback source (the built-in set): a
// default, which every scenario of the other sources comes before.
func (sc *Scenario) Default() bool { return sc.fallback }

// StepIDs returns the ids given to the scenario's steps, nested ones included, in file
// order.
func (sc *Scenario) StepIDs() []string { return slices.Clone(sc.stepIDs) }

// Dialect is how interrupts reach the client and how it answers them.
type Dialect string

const (
	// DialectAGUI is the standard: RUN_FINISHED with an interrupt outcome, answered by
	// the next run's resume.
	DialectAGUI Dialect = "agui"
	// DialectLangGraph is what LangGraph agents behind CopilotKit send: an on_interrupt
	// custom event whose value is the interrupt (as a JSON string), the run finishing
	// normally; the next run answers in forwardedProps.command.resume (or in resume).
	DialectLangGraph Dialect = "langgraph"
)

// Dialects lists the dialects, the default first.
func Dialects() []Dialect { return []Dialect{DialectAGUI, DialectLangGraph} }

// ParseDialect reads a dialect's name; the error lists the known ones.
func ParseDialect(name string) (Dialect, error) {
	for _, d := range Dialects() {
		if string(d) == name {
			return d, nil
		}
	}
	return "", fmt.Errorf("unknown dialect %q (one of agui, langgraph)", name)
}

// Example is a request a scenario documents and must answer; loading checks that each
// example selects its scenario.
type Example struct {
	Route          string            `json:"route,omitempty"`
	Agent          string            `json:"agent,omitempty"` // posted to the CopilotKit runtime's run route of this agent
	Message        string            `json:"message,omitempty"`
	System         string            `json:"system,omitempty"` // a system message before the user's
	ForwardedProps map[string]any    `json:"forwardedProps,omitempty"`
	State          any               `json:"state,omitempty"`
	Tools          []ExampleTool     `json:"tools,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	Context        []ContextItem     `json:"context,omitempty"`
	// Conversation is every message the request sends, in place of Message and System.
	Conversation []map[string]any `json:"conversation,omitempty"`
	pos          pos
}

// ExampleTool is a tool an example's client offers. An example may name a tool alone;
// its description and the JSON Schema of its parameters, when given, are sent as
// written, so that an agent that reads them answers as it answered the client.
type ExampleTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

// ContextItem is one piece of application context an example request carries.
type ContextItem struct {
	Description string `json:"description"`
	Value       string `json:"value"`
}

// Timing is the pacing of a run. Every duration is scaled by the server's speed factor.
type Timing struct {
	FirstEvent      time.Duration // before RUN_STARTED
	FirstToken      time.Duration // between RUN_STARTED and the first step
	StepGap         time.Duration // between steps, unless a step sets its own delay
	TokensPerSecond float64       // streaming rate of text, reasoning and tool arguments
	Jitter          float64       // relative random variation of each token gap, 0 to 1
}

// DefaultTiming resembles a fast hosted model.
func DefaultTiming() Timing {
	return Timing{
		FirstEvent:      50 * time.Millisecond,
		FirstToken:      400 * time.Millisecond,
		StepGap:         120 * time.Millisecond,
		TokensPerSecond: 40,
		Jitter:          0.3,
	}
}

// TimingOverride holds the timing fields a scenario sets; nil fields keep the default.
type TimingOverride struct {
	FirstEvent      *time.Duration
	FirstToken      *time.Duration
	StepGap         *time.Duration
	TokensPerSecond *float64
	Jitter          *float64
}

// Apply returns t with the override's fields set.
func (o TimingOverride) Apply(t Timing) Timing {
	if o.FirstEvent != nil {
		t.FirstEvent = *o.FirstEvent
	}
	if o.FirstToken != nil {
		t.FirstToken = *o.FirstToken
	}
	if o.StepGap != nil {
		t.StepGap = *o.StepGap
	}
	if o.TokensPerSecond != nil {
		t.TokensPerSecond = *o.TokensPerSecond
	}
	if o.Jitter != nil {
		t.Jitter = *o.Jitter
	}
	return t
}
