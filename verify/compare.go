package verify

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// Options say what a comparison takes into account beyond the structure.
type Options struct {
	// ExactText compares the text of every message too.
	ExactText bool
	// Timing, when set, compares when the first event after RUN_STARTED and the last
	// event come, within the tolerance.
	Timing *Tolerance
}

// Tolerance is how far a time may be from the fixture's: a fixed duration, or a
// fraction of the fixture's time.
type Tolerance struct {
	Fixed    time.Duration
	Relative float64
}

// allows reports whether got is close enough to want.
func (t Tolerance) allows(want, got time.Duration) bool {
	limit := t.Fixed
	if t.Relative > 0 {
		limit = time.Duration(t.Relative * float64(want))
	}
	d := got - want
	return d <= limit && -d <= limit
}

// String says the tolerance as the flag takes it.
func (t Tolerance) String() string {
	if t.Relative > 0 {
		return fmt.Sprintf("%g%%", t.Relative*100)
	}
	return t.Fixed.String()
}

// Compare lists, in words, how the agent's run differs from the fixture's, the most
// telling difference first: how the run ends, the sequence of events, the interrupts,
// the tools' arguments, the state, and then what the options ask for.
func Compare(fixture, agent Shape, opts Options) []string {
	var diffs []string
	add := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	if fixture.Terminal != agent.Terminal || fixture.Outcome != agent.Outcome {
		add("the run now ends %s (the fixture's ends %s)", ending(agent), ending(fixture))
	}
	if d := sequenceDifference(fixture.Steps, agent.Steps); d != "" {
		add("%s", d)
	}
	if len(fixture.Interrupts) != len(agent.Interrupts) {
		add("the agent now raises %d interrupt(s) (the fixture %d)", len(agent.Interrupts), len(fixture.Interrupts))
	}
	for i := range min(len(fixture.Interrupts), len(agent.Interrupts)) {
		f, a := fixture.Interrupts[i], agent.Interrupts[i]
		if f.Reason != a.Reason {
			add("interrupt %d now has reason %q (the fixture %q)", i+1, a.Reason, f.Reason)
		}
		if f.ResponseSchema != a.ResponseSchema {
			add("interrupt %d now asks for an answer of schema %s (the fixture %s)", i+1, orNone(a.ResponseSchema), orNone(f.ResponseSchema))
		}
	}
	if added, removed := setDifference(fixture.Unordered, agent.Unordered); len(added)+len(removed) > 0 {
		for _, kind := range added {
			add("the agent now sends %s", kind)
		}
		for _, kind := range removed {
			add("the agent no longer sends %s", kind)
		}
	} else if d := snapshotDifference(fixture.Snapshots, agent.Snapshots); d != "" {
		add("%s", d)
	}
	for _, pair := range pairCalls(fixture.Tools, agent.Tools) {
		if d := valueDifference("", pair[0].Args, pair[1].Args); d != "" {
			add("the arguments of tool %s: %s", pair[0].Name, d)
		}
	}
	added, removed := setDifference(fixture.StatePaths, agent.StatePaths)
	if len(added) > 0 {
		add("the agent now touches state %s", strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		add("the agent no longer touches state %s", strings.Join(removed, ", "))
	}
	if opts.ExactText && !slices.Equal(fixture.Texts, agent.Texts) {
		add("%s", textDifference(fixture.Texts, agent.Texts))
	}
	if t := opts.Timing; t != nil {
		if !t.allows(fixture.FirstStep, agent.FirstStep) {
			add("the first event after RUN_STARTED now comes after %s (the fixture's after %s, tolerance %s)", rounded(agent.FirstStep), rounded(fixture.FirstStep), t)
		}
		if !t.allows(fixture.End, agent.End) {
			add("the run now takes %s (the fixture's %s, tolerance %s)", rounded(agent.End), rounded(fixture.End), t)
		}
	}
	return diffs
}

func rounded(d time.Duration) time.Duration { return d.Round(time.Millisecond) }

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// ending says how a run ends.
func ending(s Shape) string {
	switch {
	case s.Terminal == "":
		return "without a terminal event"
	case s.Outcome == "error":
		return "with " + s.Terminal
	}
	return fmt.Sprintf("with %s (%s)", s.Terminal, s.Outcome)
}

// sequenceDifference says where the agent's sequence of steps first departs from the
// fixture's: a step it now sends, one it no longer sends, or one it sends instead.
func sequenceDifference(fixture, agent []Step) string {
	i := 0
	for i < len(fixture) && i < len(agent) && fixture[i] == agent[i] {
		i++
	}
	after := func() string {
		if i == 0 {
			return "first"
		}
		return "after " + fixture[i-1].String()
	}
	switch {
	case i == len(fixture) && i == len(agent):
		return ""
	case i == len(fixture):
		return fmt.Sprintf("the agent now sends %s %s, where the fixture's run ends", agent[i], after())
	case i == len(agent):
		return fmt.Sprintf("the agent no longer sends %s %s", fixture[i], after())
	}
	// The nearest point where the two sequences meet again says whether steps were added
	// (a tool call is three) or left out.
	for k := 1; i+k < max(len(fixture), len(agent)); k++ {
		switch {
		case i+k < len(agent) && agent[i+k] == fixture[i]:
			return fmt.Sprintf("the agent now sends %s before %s", agent[i], fixture[i])
		case i+k < len(fixture) && fixture[i+k] == agent[i]:
			return fmt.Sprintf("the agent no longer sends %s %s", fixture[i], after())
		}
	}
	return fmt.Sprintf("the agent now sends %s where the fixture has %s", agent[i], fixture[i])
}

// snapshotDifference says where the messages of the agent's last MESSAGES_SNAPSHOT first
// depart from the fixture's: a message of another role or calling other tools, or
// messages added or gone. The snapshots before it are the agent's scheduling (see Shape).
func snapshotDifference(fixture, agent [][]SnapshotMessage) string {
	if len(fixture) == 0 || len(agent) == 0 {
		return "" // a kind of snapshot added or gone is a difference of its own
	}
	f, a := fixture[len(fixture)-1], agent[len(agent)-1]
	for j := range min(len(f), len(a)) {
		if f[j].Role != a[j].Role || !slices.Equal(f[j].Tools, a[j].Tools) {
			return fmt.Sprintf("message %d of the last MESSAGES_SNAPSHOT is now %s (the fixture's is %s)", j+1, a[j], f[j])
		}
	}
	switch {
	case len(a) > len(f):
		return fmt.Sprintf("the last MESSAGES_SNAPSHOT now ends with %s more: %s", count(len(a)-len(f), "message"), a[len(f)])
	case len(a) < len(f):
		return fmt.Sprintf("the last MESSAGES_SNAPSHOT no longer ends with %s: %s", count(len(f)-len(a), "message"), f[len(a)])
	}
	return ""
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// pairCalls pairs the n-th call of each tool in the fixture with the n-th call of the
// same tool by the agent: a call added or left out is the sequence's difference, and
// does not shift the comparison of the others.
func pairCalls(fixture, agent []ToolCall) [][2]ToolCall {
	var pairs [][2]ToolCall
	used := make([]bool, len(agent))
	for _, f := range fixture {
		for j, a := range agent {
			if !used[j] && a.Name == f.Name {
				used[j] = true
				pairs = append(pairs, [2]ToolCall{f, a})
				break
			}
		}
	}
	return pairs
}

// valueDifference says where the shape of a JSON value first departs from the
// fixture's: a member added or gone, or a value of another type. Arrays are compared by
// their first elements; how many elements there are is data.
func valueDifference(path string, fixture, agent any) string {
	name := path
	if name == "" {
		name = "the arguments"
	} else {
		name = "argument " + strings.TrimPrefix(path, ".")
	}
	fk, ak := protocol.JSONKind(fixture), protocol.JSONKind(agent)
	if fk != ak {
		return fmt.Sprintf("%s is now %s (the fixture has %s)", name, ak, fk)
	}
	switch f := fixture.(type) {
	case map[string]any:
		a := agent.(map[string]any)
		added, removed := setDifference(slices.Sorted(maps.Keys(f)), slices.Sorted(maps.Keys(a)))
		if len(added) > 0 {
			return fmt.Sprintf("the agent now sends %s", memberList(path, added))
		}
		if len(removed) > 0 {
			return fmt.Sprintf("the agent no longer sends %s", memberList(path, removed))
		}
		for _, k := range slices.Sorted(maps.Keys(f)) {
			if d := valueDifference(path+"."+k, f[k], a[k]); d != "" {
				return d
			}
		}
	case []any:
		a := agent.([]any)
		if len(f) > 0 && len(a) > 0 {
			return valueDifference(path+"[]", f[0], a[0])
		}
	}
	return ""
}

// memberList names members of the object at path.
func memberList(path string, keys []string) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = strings.TrimPrefix(path+"."+k, ".")
	}
	word := "argument "
	if len(names) > 1 {
		word = "arguments "
	}
	return word + strings.Join(names, ", ")
}

// setDifference lists what b has that a lacks, and what a has that b lacks; both sorted.
func setDifference(a, b []string) (added, removed []string) {
	for _, s := range b {
		if !slices.Contains(a, s) {
			added = append(added, s)
		}
	}
	for _, s := range a {
		if !slices.Contains(b, s) {
			removed = append(removed, s)
		}
	}
	return added, removed
}

// textDifference says which message's text first differs.
func textDifference(fixture, agent []string) string {
	for i := range min(len(fixture), len(agent)) {
		if fixture[i] != agent[i] {
			return fmt.Sprintf("text message %d now says %q (the fixture %q)", i+1, clip(agent[i]), clip(fixture[i]))
		}
	}
	return fmt.Sprintf("the agent now sends %d text message(s) (the fixture %d)", len(agent), len(fixture))
}

// clip shortens a text for a message.
func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}
