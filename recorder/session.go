package recorder

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// session is what the recorder remembers of a thread it is recording.
type session struct {
	file     string                   // the fixture the thread's runs go into
	stem     string                   // its first request's file name, without time stamp or extension
	id       string                   // the fixture's scenario id
	shadowed bool                     // an earlier recording answers the same first request
	path     []scenarios.RecordedWhen // the answers that chose each run from the root run's to the latest
	ids      map[string]string        // upstream ids → local names, shared by the thread's runs
	counts   map[string]int           // per prefix, names handed out so far
	runs     int
	// unrecorded marks a thread whose latest run was not recorded: the runs continuing it
	// are not recorded either.
	unrecorded bool
	// awaiting lists, in the order the last run raised them, the upstream ids of its
	// interrupts or of its tool calls left without a result: the order replays match
	// answers in.
	awaiting []string
	// toolCalls lists, in the same order, the upstream ids of the tool calls the last
	// run left without a result, when it raised no interrupt.
	toolCalls []string
	// written are the files the thread's sessions wrote, by stem: a later session of the
	// thread with the same first request must not replace one.
	written map[string]string
}

// answersUnseen reports whether a run answers something of an earlier run: interrupts
// (resume, or a LangGraph command), or tool calls, whose results follow its last user
// message. Its recording is not a first run, whatever session it belongs to.
func answersUnseen(in *protocol.RunAgentInput) bool {
	if len(in.Resume) > 0 || in.Command != nil {
		return true
	}
	for i := len(in.Messages) - 1; i >= 0 && in.Messages[i].Role != "user"; i-- {
		if in.Messages[i].Role == "tool" {
			return true
		}
	}
	return false
}

// unplaced says why a run of the thread does not continue the session's latest run.
func (s *session) unplaced(in *protocol.RunAgentInput) string {
	switch interrupts := len(s.awaiting) - len(s.toolCalls); {
	case interrupts > 0:
		return fmt.Sprintf("it answers none of the %d interrupt(s) the thread's latest run raised", interrupts)
	case len(s.toolCalls) > 0:
		results := protocol.ToolResults(in)
		answered := 0
		for _, id := range s.toolCalls {
			if _, ok := results[id]; ok {
				answered++
			}
		}
		return fmt.Sprintf("it brings results for %d of the %d tool call(s) the thread's latest run left waiting", answered, len(s.toolCalls))
	}
	return "the thread's latest run waits for nothing, and the run's last user message is the one that session began with"
}

// noteAwaiting records what the session's latest run waits for.
func (s *session) noteAwaiting(events []capturedEvent) {
	interrupts, calls := protocol.Awaited(events, func(ce capturedEvent) protocol.Event { return ce.event })
	s.awaiting = nil
	for _, wire := range interrupts {
		if id, ok := wire["id"].(string); ok {
			s.awaiting = append(s.awaiting, id)
		}
	}
	s.toolCalls = nil
	for _, start := range calls {
		s.awaiting = append(s.awaiting, start.Str("toolCallId"))
		s.toolCalls = append(s.toolCalls, start.Str("toolCallId"))
	}
}

// raisesLangGraphInterrupts reports whether a run waits for interrupts it raised in the
// LangGraph dialect: what it waits for (protocol.Awaited) is interrupts, and its
// RUN_FINISHED has no interrupt outcome, so they are its on_interrupt events. Its
// fixture is then of that dialect.
func raisesLangGraphInterrupts(events []capturedEvent) bool {
	interrupts, _ := protocol.Awaited(events, func(ce capturedEvent) protocol.Event { return ce.event })
	if len(interrupts) == 0 {
		return false
	}
	for _, ce := range events {
		if _, ok := ce.event.Outcome()["interrupts"]; ok && ce.event.Type == protocol.RunFinished {
			return false
		}
	}
	return true
}

// continuedBy reports whether a run continues the session's latest run, by the rule a
// replay follows (protocol.IsContinuation). What a run that was not recorded waits for
// is unknown; the tool results at the end of the run's messages are taken to answer it.
func (s *session) continuedBy(in *protocol.RunAgentInput) bool {
	pending := s.toolCalls
	if s.unrecorded {
		pending = nil
		for i := len(in.Messages) - 1; i >= 0 && in.Messages[i].Role == "tool"; i-- {
			pending = append(pending, in.Messages[i].ToolCallID)
		}
	}
	return protocol.IsContinuation(in, pending)
}

// continuesUnrecorded reports whether a run continues one that was not recorded.
func (r *Recorder) continuesUnrecorded(in *protocol.RunAgentInput) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sessions[in.ThreadID]
	return s != nil && s.unrecorded && s.continuedBy(in)
}

// unrecorded notes that a run of a thread was not recorded, so that the runs continuing
// it are not recorded either (they would be placed after the wrong run), but still go
// upstream.
func (r *Recorder) unrecorded(in *protocol.RunAgentInput) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var written map[string]string
	if s := r.sessions[in.ThreadID]; s != nil {
		written = s.written
	}
	r.sessions[in.ThreadID] = &session{unrecorded: true, written: written}
}

// save writes a run into its session's fixture, or apart as an incomplete recording, and
// returns the file and how many secrets were redacted from what it wrote.
func (r *Recorder) save(route string, in *protocol.RunAgentInput, events []capturedEvent, problem string) (string, int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sessions[in.ThreadID]
	continuing := s != nil && s.continuedBy(in)
	rd := r.redactor()
	if !continuing {
		earlier := s
		s = &session{ids: map[string]string{}, counts: map[string]int{}}
		r.name(s, route, in)
		if earlier != nil {
			s.written = earlier.written
		}
		first, why := "", ""
		switch written, repeated := s.written[s.stem]; {
		case problem != "":
		case repeated:
			first, why = written, earlier.unplaced(in)
		case r.cfg.Dedupe && answersUnseen(in) && exists(s.file):
			first, why = s.file, "it answers interrupts or tool calls of a run this recorder did not record (before it started, or on a thread it has forgotten), so it is not the first run of a session"
		}
		if why != "" {
			r.nameApart(s)
			r.cfg.Logger.Warn("a run the recorder cannot place in the session it belongs to would replace an earlier recording: it is recorded in a file of its own, which replays of that request do not reach, and the earlier file stays as it was",
				"thread", in.ThreadID, "run", in.RunID, "why", why, "earlier", first, "file", s.file)
		}
	}
	threadID, runID := in.ThreadID, in.RunID
	if len(events) > 0 && events[0].event.Type == protocol.RunStarted {
		threadID, runID = events[0].event.Str("threadId"), events[0].event.Str("runId")
	}
	recorded := s.templated(rd.events(slices.Clone(events)), threadID, runID, in.Messages)
	if problem != "" {
		file, err := r.saveUnfinished(s, route, in, recorded, problem, continuing, rd)
		return file, rd.count, err
	}
	var path []scenarios.RecordedWhen
	if continuing {
		path = append(slices.Clone(s.path), s.whenFor(in, rd))
	}
	var doc *scenarios.Recording
	if continuing {
		var err error
		if doc, err = r.load(s.file); err != nil {
			return "", 0, fmt.Errorf("the fixture of this session cannot be read: %w", err)
		}
		if err := doc.Place(path, recorded, ""); err != nil {
			return "", 0, err
		}
	} else {
		// the first run of a session starts the fixture afresh, keeping the branches
		// earlier sessions with the same first request recorded
		sc := r.newScenario(s, route, in, "", rd)
		sc.Events = recorded
		doc = sc.Recording()
	}
	if raisesLangGraphInterrupts(events) {
		doc.SetDialect(scenarios.DialectLangGraph)
	}
	doc.MarkBreaks(brokenRules(events))
	if !continuing {
		if old, _ := r.load(s.file); old != nil {
			doc.KeepNext(old)
		}
	}
	if err := r.write(s.file, doc); err != nil {
		return "", 0, err
	}
	s.noteAwaiting(events)
	if !continuing {
		s.written = maps.Clone(s.written)
		if s.written == nil {
			s.written = map[string]string{}
		}
		if _, ok := s.written[s.stem]; !ok {
			s.written[s.stem] = s.file
		}
	}
	s.runs++
	if continuing {
		s.path = path
	}
	r.sessions[in.ThreadID] = s
	return s.file, rd.count, nil
}

// whenFor describes the answers a continuation run brought — its resume entries (or the
// one its LangGraph command stands for), or the results of the frontend tool calls the previous run left — in the order the previous run
// raised what they answer, which is the order a replay matches them in. Secrets in the
// answers are redacted: a tool result's pattern matches any text where one was.
func (s *session) whenFor(in *protocol.RunAgentInput, rd *redactor) scenarios.RecordedWhen {
	entries := slices.Clone(in.Resume)
	if len(entries) == 0 && in.Command != nil {
		entries = append(entries, in.Command.Answer(""))
	}
	if len(entries) > 0 {
		slices.SortStableFunc(entries, func(a, b protocol.ResumeEntry) int { return s.rank(a.InterruptID) - s.rank(b.InterruptID) })
		resume := make([]scenarios.Answer, len(entries))
		for i, e := range entries {
			resume[i] = scenarios.Answer{Status: e.Status}
			if e.Payload != nil {
				resume[i].Payload = rd.value(e.Payload, false)
			}
		}
		return scenarios.RecordedWhen{Resume: resume}
	}
	brought := protocol.ToolResults(in)
	results := make([]string, len(s.toolCalls))
	for i, id := range s.toolCalls {
		results[i] = anchored(rd.text(brought[id]))
	}
	return scenarios.RecordedWhen{ToolResults: results}
}

// stampFormat is the UTC time in the names of recordings kept apart.
const stampFormat = "20060102T150405.000"

// name gives a new session its fixture file and scenario id. With dedupe both derive
// from the first request alone, so that repeating it updates the fixture. Without, a
// time stamp (and a counter, should two sessions start within a millisecond) keeps every
// session's file and id apart; and a session whose first request an earlier recording
// already answers gets no example, since that recording replays first.
func (r *Recorder) name(s *session, route string, in *protocol.RunAgentInput) {
	msg, _ := in.LastUserMessage()
	rd := r.redactor() // counted where the fixture writes it
	text := rd.text(msg.Text())
	conversation := ""
	if laterTurn(in) {
		conversation = keyText(conversationKey(in, rd))
	}
	stem := slug(text) + "-" + fixtureKey(route, msg.Text(), in.ForwardedProps, conversation)
	s.stem = stem
	s.id = "rec-" + slug(text) + "-" + fixtureKey(route, text, in.ForwardedProps, conversation)
	if r.cfg.Dedupe {
		s.file = filepath.Join(r.cfg.OutDir, stem+".yaml")
		return
	}
	s.shadowed = r.recorded(stem)
	stamp := time.Now().UTC().Format(stampFormat)
	suffix := "-" + stamp
	for n := 2; exists(filepath.Join(r.cfg.OutDir, stem+suffix+".yaml")); n++ {
		suffix = fmt.Sprintf("-%s-%d", stamp, n)
	}
	s.file, s.id = filepath.Join(r.cfg.OutDir, stem+suffix+".yaml"), s.id+suffix
}

// nameApart gives a session whose file would replace an earlier recording of the same
// first request (see save) a file of its own. Without dedupe every session has one
// already. With it, the file is named after the earlier one's, with a time stamp after
// "_", so that it loads after it: the earlier one keeps answering the request, and the
// later one has no example, which would select the earlier one.
func (r *Recorder) nameApart(s *session) {
	s.shadowed = true
	if !r.cfg.Dedupe {
		return
	}
	stamp := time.Now().UTC().Format(stampFormat)
	suffix := stamp
	for n := 2; exists(filepath.Join(r.cfg.OutDir, s.stem+"_"+suffix+".yaml")); n++ {
		suffix = fmt.Sprintf("%s-%d", stamp, n)
	}
	s.file, s.id = filepath.Join(r.cfg.OutDir, s.stem+"_"+suffix+".yaml"), s.id+"-"+suffix
}

// recorded reports whether the output directory holds a fixture of a first request,
// by its file name's stem.
func (r *Recorder) recorded(stem string) bool {
	entries, _ := os.ReadDir(r.cfg.OutDir)
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() && strings.HasSuffix(name, ".yaml") && (name == stem+".yaml" || strings.HasPrefix(name, stem+"-")) {
			return true
		}
	}
	return false
}

// exists reports whether a file exists.
func exists(file string) bool {
	_, err := os.Stat(file)
	return err == nil
}

// redactor returns a redactor with the recorder's patterns.
func (r *Recorder) redactor() *redactor { return &redactor{patterns: r.cfg.Redact} }

// newScenario starts a session's fixture: its id, a match on the first request, and
// an example unless an earlier recording answers the same request.
func (r *Recorder) newScenario(s *session, route string, in *protocol.RunAgentInput, broken string, rd *redactor) scenarios.Recorded {
	msg, _ := in.LastUserMessage()
	text := rd.text(msg.Text())
	sc := scenarios.Recorded{
		Comment: fmt.Sprintf("Recorded by agui-mock from %s at %s.\nIt replays with the recorded timing; edit it freely (see docs/recording.md in agui-mock).",
			r.cfg.Upstream.Redacted(), time.Now().UTC().Format(time.RFC3339)),
		ID:          s.id,
		Description: "Recorded from " + r.cfg.Upstream.Redacted(),
		Broken:      broken,
	}
	var example scenarios.Example
	if !isDefaultRoute(route) {
		sc.Match.Route, example.Route = route, route
	}
	if text != "" {
		sc.Match.Message, example.Message = anchored(text), text
	}
	if laterTurn(in) {
		sc.Match.Conversation = conversationKey(in, rd)
		example.Message, example.Conversation = "", exampleConversation(in, rd)
	} else if system, ok := systemMessage(in); ok {
		example.System = rd.text(system)
	}
	if fp, ok := in.ForwardedProps.(map[string]any); ok {
		if name, ok := fp["scenario_name"].(string); ok {
			sc.Match.ForwardedProps = map[string]any{"scenario_name": name}
			example.ForwardedProps = sc.Match.ForwardedProps
		}
	}
	offered(&example, in, rd)
	if !s.shadowed {
		sc.Examples = []scenarios.Example{example}
	}
	return sc
}

// systemMessage is the text of a first turn's system message, if it has one.
func systemMessage(in *protocol.RunAgentInput) (string, bool) {
	for _, m := range in.Messages {
		if m.Role == "system" {
			return m.Text(), true
		}
	}
	return "", false
}

// offered adds to a recorded example what the first request offered the agent besides
// its message — its tools (with the description and parameters the agent read), context,
// state and forwardedProps — redacted as the rest of the fixture, so that the example asks what
// the recording was asked. Empty ones, which clients send by default, are left out.
func offered(example *scenarios.Example, in *protocol.RunAgentInput, rd *redactor) {
	for _, t := range in.Tools {
		tool := scenarios.ExampleTool{Name: t.Name, Description: rd.text(t.Description)}
		tool.Parameters, _ = rd.value(t.Parameters, false).(map[string]any) // an object, as the run's input is checked
		example.Tools = append(example.Tools, tool)
	}
	for _, c := range in.Context {
		example.Context = append(example.Context, scenarios.ContextItem{Description: rd.text(c.Description), Value: rd.text(c.Value)})
	}
	if state := rd.value(in.State, false); !isEmpty(state) {
		example.State = state
	}
	if props, ok := rd.value(in.ForwardedProps, false).(map[string]any); ok && len(props) > 0 {
		example.ForwardedProps = props // an example sends an object, as a scenario matches one
	}
}

// isEmpty reports a value a request carries by default: none, an empty object or list.
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// isDefaultRoute reports whether a route is one of the run endpoints every server
// answers on (scenarios.DefaultRoutes), which a recording's match then leaves out.
func isDefaultRoute(route string) bool {
	for _, r := range scenarios.DefaultRoutes() {
		if r == route {
			return true
		}
	}
	return false
}

// load reads a fixture back; nil when there is none.
func (r *Recorder) load(file string) (*scenarios.Recording, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return scenarios.ReadRecording(file, data)
}

// write encodes a fixture's documents (a scenarios.Recorded, a scenarios.Recording, or
// a *yaml.Node of a document that is kept as it is), checks that they load as
// scenarios, and writes them atomically.
func (r *Recorder) write(file string, docs ...any) error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	for _, doc := range docs {
		if err := enc.Encode(doc); err != nil {
			return err
		}
	}
	if _, diags := scenarios.Parse(file, buf.Bytes()); len(diags) > 0 {
		return fmt.Errorf("the recording does not load as a scenario: %w", diags[0])
	}
	return writeAtomically(file, buf.Bytes())
}
