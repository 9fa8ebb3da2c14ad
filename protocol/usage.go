package protocol

import (
	"fmt"
	"strconv"
)

// MaxSafeInteger is the largest count a token usage entry may carry: beyond it a JSON
// number does not survive a round trip through a JavaScript client.
const MaxSafeInteger = 1<<53 - 1

// The members of a token usage entry, as RUN_FINISHED and RUN_ERROR carry them.
const (
	UsageProvider              = "provider"
	UsageModel                 = "model"
	UsageInputTokens           = "inputTokens"
	UsageOutputTokens          = "outputTokens"
	UsageTotalTokens           = "totalTokens"
	UsageReasoningTokens       = "reasoningTokens"
	UsageCachedInputTokens     = "cachedInputTokens"
	UsageCacheWriteInputTokens = "cacheWriteInputTokens"
)

// UsageCounts lists the count members of a token usage entry, in the schema's order.
func UsageCounts() []string {
	return []string{UsageInputTokens, UsageOutputTokens, UsageTotalTokens, UsageReasoningTokens, UsageCachedInputTokens, UsageCacheWriteInputTokens}
}

// UsageMembers lists every member of a token usage entry: the labels, then the counts.
func UsageMembers() []string { return append([]string{UsageProvider, UsageModel}, UsageCounts()...) }

// TokenUsage is one entry of a run's usage: the token counts of one provider and model.
// Counts are totals (input, output) or named parts of them (reasoning of output,
// cached and cache-written of input); total is input plus output. A count left out is
// absent from the entry.
type TokenUsage struct {
	Provider, Model string
	// Counts holds the counts given, by member name (UsageCounts).
	Counts map[string]int64
}

// Wire is the entry as an event carries it.
func (u TokenUsage) Wire() map[string]any {
	m := make(map[string]any, len(u.Counts)+2)
	if u.Provider != "" {
		m[UsageProvider] = u.Provider
	}
	if u.Model != "" {
		m[UsageModel] = u.Model
	}
	for k, n := range u.Counts {
		m[k] = n
	}
	return m
}

// UsageWire is a usage list as RUN_FINISHED and RUN_ERROR carry it.
func UsageWire(entries []TokenUsage) []any {
	out := make([]any, len(entries))
	for i, u := range entries {
		out[i] = u.Wire()
	}
	return out
}

// UsageProblem is a rule of the protocol's accounting that an entry of a usage list
// breaks: the entry's index, the member at fault and what is wrong.
type UsageProblem struct {
	Index   int
	Member  string
	Message string
}

// CheckUsage applies the protocol's accounting to a usage list: every count a whole
// number from 0 to MaxSafeInteger; reasoningTokens a part of outputTokens;
// cachedInputTokens and cacheWriteInputTokens disjoint parts of inputTokens; totalTokens
// inputTokens plus outputTokens; one entry per provider and model.
func CheckUsage(entries []TokenUsage) []UsageProblem {
	var problems []UsageProblem
	add := func(i int, member, format string, args ...any) {
		problems = append(problems, UsageProblem{Index: i, Member: member, Message: fmt.Sprintf(format, args...)})
	}
	seen := map[[2]string]int{}
	for i, u := range entries {
		c := u.Counts
		for _, name := range UsageCounts() {
			if n, has := c[name]; has && (n < 0 || n > MaxSafeInteger) {
				add(i, name, "%s is %d: a count is a whole number from 0 to %d", name, n, int64(MaxSafeInteger))
			}
		}
		in, hasIn := c[UsageInputTokens]
		out, hasOut := c[UsageOutputTokens]
		if r, has := c[UsageReasoningTokens]; has && hasOut && r > out {
			add(i, UsageReasoningTokens, "reasoningTokens (%d) is a part of outputTokens (%d), so it cannot be more", r, out)
		}
		cached, hasCached := c[UsageCachedInputTokens]
		written, hasWritten := c[UsageCacheWriteInputTokens]
		if hasIn && (hasCached || hasWritten) && cached+written > in {
			member := UsageCachedInputTokens
			if hasWritten {
				member = UsageCacheWriteInputTokens
			}
			add(i, member, "cachedInputTokens (%d) and cacheWriteInputTokens (%d) are parts of inputTokens (%d), so together they cannot be more", cached, written, in)
		}
		if total, has := c[UsageTotalTokens]; has {
			switch {
			case hasIn && hasOut && total != in+out:
				add(i, UsageTotalTokens, "totalTokens (%d) is inputTokens plus outputTokens (%d)", total, in+out)
			case hasIn && total < in, hasOut && total < out:
				add(i, UsageTotalTokens, "totalTokens (%d) is inputTokens plus outputTokens, so it cannot be less than either", total)
			}
		}
		key := [2]string{u.Provider, u.Model}
		if first, dup := seen[key]; dup {
			add(i, UsageModel, "entries %d and %d are both for provider %s and model %s: usage has one entry per provider and model", first, i, labelOr(u.Provider), labelOr(u.Model))
		} else {
			seen[key] = i
		}
	}
	return problems
}

func labelOr(s string) string {
	if s == "" {
		return "(none)"
	}
	return strconv.Quote(s)
}

// checkUsageList verifies a usage member's shape as the official client reads it: a
// list of objects whose labels are strings and whose counts are whole numbers from 0 to
// MaxSafeInteger.
func checkUsageList(v any) error {
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("expected an array of token usage entries, got %s", jsonKind(v))
	}
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return fmt.Errorf("the entry at index %d is %s, expected an object", i, jsonKind(e))
		}
		for _, name := range []string{UsageProvider, UsageModel} {
			if x, has := m[name]; has {
				if _, isStr := x.(string); !isStr {
					return fmt.Errorf("the entry at index %d: %s is %s, expected a string", i, name, jsonKind(x))
				}
			}
		}
		for _, name := range UsageCounts() {
			x, has := m[name]
			if !has {
				continue
			}
			if n, ok := jsonInt(x); !ok || n < 0 || n > MaxSafeInteger {
				return fmt.Errorf("the entry at index %d: %s is %s, expected a whole number from 0 to %d", i, name, showNumber(x), int64(MaxSafeInteger))
			}
		}
	}
	return nil
}

// showNumber writes a number as it is, any other value as its JSON type.
func showNumber(x any) string {
	if jsonKind(x) == "a number" {
		return fmt.Sprint(x)
	}
	return jsonKind(x)
}

// legacyUsage keeps of a usage list what 0.0.x clients define: every member but
// cacheWriteInputTokens, which their TokenUsage has no place for.
func legacyUsage(ev Event) Event {
	v, has := ev.Get("usage")
	list, ok := v.([]any)
	if !has || !ok {
		return ev
	}
	out := make([]any, len(list))
	changed := false
	for i, e := range list {
		out[i] = e
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		if _, has := m[UsageCacheWriteInputTokens]; has {
			kept := make(map[string]any, len(m))
			for k, x := range m {
				if k != UsageCacheWriteInputTokens {
					kept[k] = x
				}
			}
			out[i], changed = kept, true
		}
	}
	if !changed {
		return ev
	}
	return ev.With("usage", out)
}
