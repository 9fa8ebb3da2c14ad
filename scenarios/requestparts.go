package scenarios

import (
	"fmt"
	"maps"
	"net/textproto"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// criterion is one part of a request — route, agent, message, … — as every place that
// knows request parts sees it: the key a match and an example give it under, how a match
// tests it and explains a miss, how the parser reads it into a match and into an
// example, how the load-time dry run makes it up for a match without examples, how an
// example's run sends it, and how a recorded scenario writes it. A column a part has no
// use for is nil, and its row says why. What a recording takes of each part is the
// recorder's to say, since it redacts what it takes: a recorder test keyed by these
// parts pins it.
type criterion struct {
	name string // the part's key, in a match and in an example

	// Matching. holds is the hot path of selection: it allocates nothing. explainMiss
	// says nothing when holds is true; its reasons are a no_scenario candidate's.
	describe    func(m *Match) string // what the criteria of this kind require, when given
	count       func(m *Match) int    // how many criteria of this kind the match gives
	holds       func(m *Match, req *Request, text string) bool
	explainMiss func(m *Match, req *Request, text string) []string

	// Reading: the part's node in a match, and in an example.
	readMatch   func(l *fileLoader, v *yaml.Node, m *Match)
	readExample func(l *fileLoader, v *yaml.Node, ex *Example)

	// sample gives an example the part as a match wants it: what the load-time dry run
	// sends a scenario without examples (sampleRequest).
	sample func(m *Match, ex *Example)
	// runInput puts the part into the RunAgentInput of an example's run (RunInput).
	runInput func(ex *Example, ids RunIDs, in map[string]any)

	// Writing a recorded scenario: the part's value in its match, and in an example,
	// nil when it has none. at places the member among an example's: who is asked
	// (route, agent), what is said (system, message, conversation), then what the client
	// offered, as a person reads a request.
	writeMatch   func(m *RecordedMatch) *yaml.Node
	writeExample func(ex *Example) (v *yaml.Node, at int)
}

// The labels that name a part in the problems the parser reports.
const (
	matchLabel   = "match."
	exampleLabel = "an example's "
)

// criteria are every part of a request, in the order a miss's reasons are explained.
// Adding a part is adding a row here, and its key in keys.go.
var criteria = [...]criterion{
	{
		name:     keyRoute,
		describe: func(m *Match) string { return strings.Join(m.Routes, " or ") },
		count:    func(m *Match) int { return len(m.Routes) },
		holds: func(m *Match, req *Request, _ string) bool {
			return len(m.Routes) == 0 || slices.Contains(m.Routes, req.Route)
		},
		explainMiss: func(m *Match, req *Request, _ string) []string {
			if len(m.Routes) == 0 || slices.Contains(m.Routes, req.Route) {
				return nil
			}
			return []string{fmt.Sprintf("route %s is not %s", req.Route, strings.Join(m.Routes, " or "))}
		},
		readMatch: func(l *fileLoader, v *yaml.Node, m *Match) { m.Routes = l.routes(v) },
		readExample: func(l *fileLoader, v *yaml.Node, ex *Example) {
			ex.Route = l.one(v, l.routes(v), "write one example for each route", "an example is one request: it has one route")
		},
		sample: func(m *Match, ex *Example) {
			if len(m.Routes) > 0 {
				ex.Route = m.Routes[0]
			}
		},
		// runInput: none. The route is where the run is posted (RunRoute), not a member
		// of its body.
		writeMatch:   func(m *RecordedMatch) *yaml.Node { return strOrNil(m.Route) },
		writeExample: func(ex *Example) (*yaml.Node, int) { return strOrNil(ex.Route), 0 },
	},
	{
		name:     keyAgent,
		describe: func(m *Match) string { return strings.Join(m.Agents, " or ") },
		count:    func(m *Match) int { return len(m.Agents) },
		holds: func(m *Match, req *Request, _ string) bool {
			return len(m.Agents) == 0 || slices.Contains(m.Agents, req.Agent)
		},
		explainMiss: func(m *Match, req *Request, _ string) []string {
			if len(m.Agents) == 0 || slices.Contains(m.Agents, req.Agent) {
				return nil
			}
			if req.Agent == "" {
				return []string{fmt.Sprintf("the run names no agent (it was not posted to a CopilotKit runtime route), not %s", strings.Join(m.Agents, " or "))}
			}
			return []string{fmt.Sprintf("agent %s is not %s", clip(req.Agent, 80), strings.Join(m.Agents, " or "))}
		},
		readMatch: func(l *fileLoader, v *yaml.Node, m *Match) { m.Agents = l.agents(v) },
		readExample: func(l *fileLoader, v *yaml.Node, ex *Example) {
			ex.Agent = l.one(v, l.agents(v), "write one example for each agent", "an example is one request: it names one agent")
		},
		sample: func(m *Match, ex *Example) {
			if len(m.Agents) > 0 {
				ex.Agent = m.Agents[0]
			}
		},
		// runInput: none. The agent is named by the route the run is posted to
		// (RunRoute). writeMatch: none. The recorder records AG-UI routes, which name no
		// agent.
		writeExample: func(ex *Example) (*yaml.Node, int) { return strOrNil(ex.Agent), 1 },
	},
	{
		name:     keyMessage,
		describe: func(m *Match) string { return "/" + m.Message.String() + "/" },
		count:    func(m *Match) int { return boolCount(m.Message != nil) },
		holds: func(m *Match, _ *Request, text string) bool {
			return m.Message == nil || (m.prefix.admits(text) && m.Message.MatchString(text))
		},
		explainMiss: func(m *Match, _ *Request, text string) []string {
			if m.Message == nil || m.Message.MatchString(text) {
				return nil
			}
			return []string{fmt.Sprintf("message %q does not match /%s/", clip(text, 80), m.Message)}
		},
		readMatch:   (*fileLoader).messagePattern,
		readExample: func(l *fileLoader, v *yaml.Node, ex *Example) { ex.Message = l.str(v) },
		sample: func(m *Match, ex *Example) {
			if m.Message != nil {
				ex.Message, _ = sampleMessage(m.Message)
			}
		},
		runInput: func(ex *Example, ids RunIDs, in map[string]any) {
			if len(ex.Conversation) == 0 { // the user message a run always sends, but in a conversation
				in["messages"] = []any{map[string]any{"id": ids.Message, "role": "user", "content": ex.Message}}
			}
		},
		writeMatch:   func(m *RecordedMatch) *yaml.Node { return strOrNil(m.Message) },
		writeExample: func(ex *Example) (*yaml.Node, int) { return strOrNil(ex.Message), 3 },
	},
	{
		name:     keySystem,
		describe: func(m *Match) string { return "/" + m.System.String() + "/" },
		count:    func(m *Match) int { return boolCount(m.System != nil) },
		holds: func(m *Match, req *Request, _ string) bool {
			return m.System == nil || systemMatches(req, m.System)
		},
		explainMiss: func(m *Match, req *Request, _ string) []string {
			if m.System == nil || systemMatches(req, m.System) {
				return nil
			}
			text, ok := systemText(req)
			if !ok {
				return []string{fmt.Sprintf("the request has no system or developer message to match /%s/", m.System)}
			}
			return []string{fmt.Sprintf("system message %q does not match /%s/", clip(text, 80), m.System)}
		},
		readMatch:   func(l *fileLoader, v *yaml.Node, m *Match) { m.System = l.regex(v) },
		readExample: func(l *fileLoader, v *yaml.Node, ex *Example) { ex.System = l.str(v) },
		sample: func(m *Match, ex *Example) {
			if m.System != nil {
				ex.System, _ = sampleMessage(m.System)
			}
		},
		runInput: func(ex *Example, ids RunIDs, in map[string]any) {
			if ex.System != "" && len(ex.Conversation) == 0 { // before the user message the message row, above, put
				system := map[string]any{"id": ids.Message + "-system", "role": "system", "content": ex.System}
				in["messages"] = append([]any{system}, in["messages"].([]any)...)
			}
		},
		// writeMatch: none. A recording is selected by its user message; the system
		// message is the example's, which repeats the request.
		writeExample: func(ex *Example) (*yaml.Node, int) { return strOrNil(ex.System), 2 },
	},
	{
		name:     keyForwardedProps,
		describe: func(m *Match) string { return show(m.ForwardedProps) },
		count:    func(m *Match) int { return len(m.ForwardedProps) },
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
		readMatch: func(l *fileLoader, v *yaml.Node, m *Match) {
			m.ForwardedProps = l.literalMapping(v, matchLabel+keyForwardedProps)
		},
		readExample: func(l *fileLoader, v *yaml.Node, ex *Example) {
			ex.ForwardedProps = l.literalMapping(v, exampleLabel+keyForwardedProps)
		},
		sample: func(m *Match, ex *Example) { ex.ForwardedProps = m.ForwardedProps },
		runInput: func(ex *Example, _ RunIDs, in map[string]any) {
			in["forwardedProps"] = objectOrEmpty(ex.ForwardedProps)
		},
		writeMatch: func(m *RecordedMatch) *yaml.Node {
			if m.ForwardedProps == nil {
				return nil
			}
			return valueNode(m.ForwardedProps)
		},
		writeExample: func(ex *Example) (*yaml.Node, int) {
			switch {
			case len(ex.ForwardedProps) == 0:
				return nil, 0
			case namesScenario(ex.ForwardedProps): // beside the message, as the match selects it
				return valueNode(ex.ForwardedProps), 5
			}
			return valueNode(ex.ForwardedProps), 9
		},
	},
	{
		name:     keyState,
		describe: func(m *Match) string { return "contains " + show(m.State) },
		count:    func(m *Match) int { return boolCount(m.State != nil) },
		holds: func(m *Match, req *Request, _ string) bool {
			return m.State == nil || subset(req.Input.State, m.State)
		},
		explainMiss: func(m *Match, req *Request, _ string) []string {
			if m.State == nil || subset(req.Input.State, m.State) {
				return nil
			}
			return []string{fmt.Sprintf("state does not contain %s", show(m.State))}
		},
		readMatch:   func(l *fileLoader, v *yaml.Node, m *Match) { m.State = l.literal(v) },
		readExample: func(l *fileLoader, v *yaml.Node, ex *Example) { ex.State = l.literal(v) },
		sample:      func(m *Match, ex *Example) { ex.State = m.State },
		runInput: func(ex *Example, _ RunIDs, in map[string]any) {
			in["state"] = ex.State
			if ex.State == nil {
				in["state"] = map[string]any{}
			}
		},
		// writeMatch: none. A recording replays whatever the state; the example keeps it.
		writeExample: func(ex *Example) (*yaml.Node, int) {
			if ex.State == nil {
				return nil, 0
			}
			return valueNode(ex.State), 8
		},
	},
	{
		name:     keyTools,
		describe: func(m *Match) string { return strings.Join(m.Tools, ", ") },
		count:    func(m *Match) int { return len(m.Tools) },
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
		readMatch:   func(l *fileLoader, v *yaml.Node, m *Match) { m.Tools = l.strings(v) },
		readExample: func(l *fileLoader, v *yaml.Node, ex *Example) { ex.Tools = l.exampleTools(v) },
		sample: func(m *Match, ex *Example) {
			for _, name := range m.Tools {
				ex.Tools = append(ex.Tools, ExampleTool{Name: name})
			}
		},
		runInput: func(ex *Example, _ RunIDs, in map[string]any) { in["tools"] = ex.runTools() },
		// writeMatch: none. A recording replays whatever the client offers; the example
		// keeps the tools.
		writeExample: func(ex *Example) (*yaml.Node, int) {
			if len(ex.Tools) == 0 {
				return nil, 0
			}
			tools := &yaml.Node{Kind: yaml.SequenceNode}
			for _, t := range ex.Tools {
				tools.Content = append(tools.Content, toolNode(t))
			}
			return tools, 6
		},
	},
	{
		name:        keyContext,
		describe:    func(m *Match) string { return joinStrings(m.Context) },
		count:       func(m *Match) int { return len(m.Context) },
		holds:       func(m *Match, req *Request, _ string) bool { return contextHolds(m.Context, req) },
		explainMiss: func(m *Match, req *Request, _ string) []string { return contextMiss(m.Context, req) },
		readMatch: func(l *fileLoader, v *yaml.Node, m *Match) {
			for _, c := range l.contextParts(v, matchLabel) {
				description, value := readParts(c, l.regex)
				m.Context = append(m.Context, ContextPattern{Description: description, Value: value})
			}
		},
		readExample: func(l *fileLoader, v *yaml.Node, ex *Example) {
			for _, c := range l.contextParts(v, exampleLabel) {
				description, value := readParts(c, l.str)
				ex.Context = append(ex.Context, ContextItem{Description: description, Value: value})
			}
		},
		sample: func(m *Match, ex *Example) {
			for _, c := range m.Context {
				var item ContextItem
				if c.Description != nil {
					item.Description, _ = sampleMessage(c.Description)
				}
				if c.Value != nil {
					item.Value, _ = sampleMessage(c.Value)
				}
				ex.Context = append(ex.Context, item)
			}
		},
		runInput: func(ex *Example, _ RunIDs, in map[string]any) {
			context := make([]any, len(ex.Context))
			for i, c := range ex.Context {
				context[i] = map[string]any{"description": c.Description, "value": c.Value}
			}
			in["context"] = context
		},
		// writeMatch: none. A recording replays whatever the context; the example keeps it.
		writeExample: func(ex *Example) (*yaml.Node, int) {
			if len(ex.Context) == 0 {
				return nil, 0
			}
			items := make([]any, len(ex.Context))
			for i, c := range ex.Context {
				items[i] = map[string]any{keyDescription: c.Description, keyValue: c.Value}
			}
			return valueNode(items), 7
		},
	},
	{
		name:     keyConversation,
		describe: func(m *Match) string { return joinStrings(m.Conversation) },
		count:    func(m *Match) int { return len(m.Conversation) }, // each message it pins counts
		holds: func(m *Match, req *Request, _ string) bool {
			return conversationHolds(m.Conversation, req.Input.Messages)
		},
		explainMiss: func(m *Match, req *Request, _ string) []string {
			return conversationMiss(m.Conversation, req.Input.Messages)
		},
		readMatch:   func(l *fileLoader, v *yaml.Node, m *Match) { m.Conversation = l.matchConversation(v) },
		readExample: func(l *fileLoader, v *yaml.Node, ex *Example) { ex.Conversation = l.exampleConversation(v) },
		sample: func(m *Match, ex *Example) {
			if len(m.Conversation) > 0 { // every message the request sends: no message or system besides
				ex.Message, ex.System, ex.Conversation = "", "", sampleConversation(m.Conversation)
			}
		},
		runInput: func(ex *Example, ids RunIDs, in map[string]any) {
			if len(ex.Conversation) > 0 {
				in["messages"] = ex.conversationMessages(ids.Message)
			}
		},
		writeMatch: func(m *RecordedMatch) *yaml.Node {
			if len(m.Conversation) == 0 {
				return nil
			}
			return conversationNode(m.Conversation)
		},
		writeExample: func(ex *Example) (*yaml.Node, int) {
			if len(ex.Conversation) == 0 {
				return nil, 0
			}
			items := &yaml.Node{Kind: yaml.SequenceNode}
			for _, m := range ex.Conversation {
				items.Content = append(items.Content, messageNode(m))
			}
			return items, 4
		},
	},
	{
		name: keyHeaders,
		describe: func(m *Match) string {
			var want []string
			for _, name := range slices.Sorted(maps.Keys(m.Headers)) {
				want = append(want, name+": /"+m.Headers[name].String()+"/")
			}
			return strings.Join(want, ", ")
		},
		count: func(m *Match) int { return len(m.Headers) },
		holds: func(m *Match, req *Request, _ string) bool {
			for name, re := range m.Headers {
				if !m.headerMatches(req, name, re) {
					return false
				}
			}
			return true
		},
		explainMiss: func(m *Match, req *Request, _ string) []string {
			var reasons []string
			for _, name := range slices.Sorted(maps.Keys(m.Headers)) {
				if re := m.Headers[name]; !m.headerMatches(req, name, re) {
					reasons = append(reasons, fmt.Sprintf("header %s %s does not match /%s/", name, quoteHeader(req, name), re))
				}
			}
			return reasons
		},
		readMatch: func(l *fileLoader, v *yaml.Node, m *Match) {
			m.Headers, m.headerKeys = map[string]*regexp.Regexp{}, map[string]string{}
			for name, hv := range l.headers(v, matchLabel) {
				if re := l.regex(hv); re != nil {
					m.Headers[strings.ToLower(name)] = re
					m.headerKeys[strings.ToLower(name)] = textproto.CanonicalMIMEHeaderKey(name)
				}
			}
		},
		readExample: func(l *fileLoader, v *yaml.Node, ex *Example) {
			ex.Headers = map[string]string{}
			for name, hv := range l.headers(v, exampleLabel) {
				ex.Headers[name] = l.str(hv)
			}
		},
		sample: func(m *Match, ex *Example) {
			ex.Headers = map[string]string{}
			for name, re := range m.Headers {
				value, ok := sampleMessage(re)
				if !ok || value == "" {
					value = "sample" // a pattern no text is made up for: the header is there all the same
				}
				ex.Headers[name] = value
			}
		},
		// runInput: none. Headers go on the run's request (RunHeader), not its body.
		// writeMatch: none. The recorder keeps no header: they may hold credentials.
		writeExample: func(ex *Example) (*yaml.Node, int) {
			if len(ex.Headers) == 0 {
				return nil, 0
			}
			headers := make(map[string]any, len(ex.Headers))
			for k, v := range ex.Headers {
				headers[k] = v
			}
			return valueNode(headers), 10
		},
	},
}

// requestKeys are the parts of a request that a match tests and an example gives, by
// their keys: the rows of criteria.
var requestKeys = func() []string {
	keys := make([]string, len(criteria))
	for i := range criteria {
		keys[i] = criteria[i].name
	}
	return keys
}()

// joinStrings writes a list of patterns as a miss says them, comma-separated.
func joinStrings[T fmt.Stringer](list []T) string {
	items := make([]string, len(list))
	for i, it := range list {
		items[i] = it.String()
	}
	return strings.Join(items, ", ")
}

// strOrNil writes a string that is given, and nothing for "".
func strOrNil(s string) *yaml.Node {
	if s == "" {
		return nil
	}
	return str(s)
}

// objectOrEmpty is an object a run sends, an empty one when there is none: clients send
// {} by default.
func objectOrEmpty(m map[string]any) any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
