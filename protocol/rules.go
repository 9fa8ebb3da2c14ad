package protocol

import (
	"fmt"
	"slices"
	"strings"
)

// Rule names one of the rules AG-UI 1.0 sets for the producer of a stream that real
// agents are known to break while the official client still reads their streams:
// @ag-ui/langgraph, for one, ends a run with LangGraph's own run id. RuleChecker fails a
// stream that breaks one, unless it is told to tolerate the rule (RuleChecker.Tolerate);
// a recording names the rules its agent breaks, so that the loader, replay and verify
// treat the break as the agent's known behaviour rather than a mistake.
type Rule string

// The named producer rules. Their names are stable: scenario files and reports carry
// them.
const (
	// RuleFinishedRunID: a RUN_FINISHED carries its RUN_STARTED's runId.
	RuleFinishedRunID Rule = "finished-run-id"
	// RuleFinishedThreadID: a RUN_FINISHED carries its RUN_STARTED's threadId.
	RuleFinishedThreadID Rule = "finished-thread-id"
	// RuleOneThread: every run of a stream carries one threadId, the input's.
	RuleOneThread Rule = "one-thread"
	// RuleUniqueInterruptIDs: the interrupts of an interrupt outcome have distinct ids.
	RuleUniqueInterruptIDs Rule = "unique-interrupt-ids"
	// RuleOpenEnd: a stream ends with a terminal event (RUN_FINISHED or RUN_ERROR) for
	// its last run.
	RuleOpenEnd Rule = "open-end"
)

// rules lists the named rules in the order they are documented.
var rules = [...]Rule{RuleFinishedRunID, RuleFinishedThreadID, RuleOneThread, RuleUniqueInterruptIDs, RuleOpenEnd}

// Rules returns every named producer rule.
func Rules() []Rule { return slices.Clone(rules[:]) }

// ParseRule returns the rule of a name.
func ParseRule(name string) (Rule, error) {
	if slices.Contains(rules[:], Rule(name)) {
		return Rule(name), nil
	}
	names := make([]string, len(rules))
	for i, r := range rules {
		names[i] = string(r)
	}
	return "", fmt.Errorf("unknown rule %q: the rules are %s", name, strings.Join(names, ", "))
}

// Markable reports whether a recording may be marked as breaking the rule, and so play
// the break back. A stream that ends open is not a run to replay but an incomplete
// recording (or a run the client stopped), which other marks say.
func (r Rule) Markable() bool { return r != RuleOpenEnd }

// Describe says what the rule asks of a stream, in words.
func (r Rule) Describe() string {
	switch r {
	case RuleFinishedRunID:
		return "a RUN_FINISHED carries its RUN_STARTED's runId"
	case RuleFinishedThreadID:
		return "a RUN_FINISHED carries its RUN_STARTED's threadId"
	case RuleOneThread:
		return "every run of a stream carries the input's threadId"
	case RuleUniqueInterruptIDs:
		return "the interrupts of an interrupt outcome have distinct ids"
	case RuleOpenEnd:
		return "a stream ends with RUN_FINISHED or RUN_ERROR"
	}
	return string(r)
}

// RuleError is a SequenceError's cause when the event breaks a named rule.
type RuleError struct {
	Rule    Rule
	Message string
}

// Error is the message with the rule's name.
func (e *RuleError) Error() string { return e.Message + " (rule " + string(e.Rule) + ")" }

// broke notes that the stream breaks a rule: a RuleError unless the checker tolerates
// the rule, which is then noted in Breaks, once.
func (v *RuleChecker) broke(rule Rule, format string, args ...any) error {
	if !slices.Contains(v.Tolerate, rule) {
		return &RuleError{Rule: rule, Message: fmt.Sprintf(format, args...)}
	}
	if !slices.Contains(v.Breaks, rule) {
		v.Breaks = append(v.Breaks, rule)
	}
	return nil
}

// MarkableRules returns the rules a recording may be marked as breaking (Markable): what
// recording and verifying a stream tolerate, and note.
func MarkableRules() []Rule {
	return slices.DeleteFunc(Rules(), func(r Rule) bool { return !r.Markable() })
}

// MarkableBreaks returns the markable rules a stream breaks, as BreaksOf finds them.
func MarkableBreaks(events []Event) []Rule {
	return slices.DeleteFunc(BreaksOf(events), func(r Rule) bool { return !r.Markable() })
}

// RuleNames lists rules by name, comma-separated, as logs and reports give them.
func RuleNames(rules []Rule) string {
	names := make([]string, len(rules))
	for i, r := range rules {
		names[i] = string(r)
	}
	return strings.Join(names, ",")
}

// BreaksOf returns the named rules a stream breaks, each once, in the order it first
// breaks them; it stops at the first violation of another rule.
func BreaksOf(events []Event) []Rule {
	v := &RuleChecker{Tolerate: Rules()}
	_ = v.Stream(events) // a violation of another rule ends the search
	return v.Breaks
}
