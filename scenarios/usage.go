package scenarios

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/protocol"
)

// usageMode is what a scenario says of the token usage its runs report.
type usageMode int

const (
	usageUnsaid    usageMode = iota // nothing: the server's default (PlanOptions.Usage)
	usageNone                       // none: no usage, whatever the default
	usageEstimated                  // auto: estimated from the run's request and stream
	usageWritten                    // the entries as written
)

// usageSpec is a scenario's usage key.
type usageSpec struct {
	mode    usageMode
	entries []protocol.TokenUsage
}

// The provider and model an estimated usage entry names.
const (
	estimatedProvider = "agui-mock"
	estimatedModel    = "agui-mock-estimate"
)

// usage reads a scenario's usage: auto, none, one entry or a list of entries, each
// checked against the protocol's accounting.
func (l *fileLoader) usage(n *yaml.Node) usageSpec {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.Value {
		case "auto":
			return usageSpec{mode: usageEstimated}
		case "none":
			return usageSpec{mode: usageNone}
		}
		l.diag.add(l.pos(n), "auto (estimated from the run), none, or entries such as {provider: openai, model: gpt-4o, inputTokens: 120, outputTokens: 40}",
			"usage is auto, none, an entry or a list of entries, got %q", n.Value)
		return usageSpec{}
	case yaml.MappingNode:
		return l.usageEntries([]*yaml.Node{n})
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			l.diag.add(l.pos(n), "write usage: none for a run without usage", "usage lists no entry")
			return usageSpec{}
		}
		return l.usageEntries(n.Content)
	}
	l.diag.add(l.pos(n), "", "usage is auto, none, an entry or a list of entries")
	return usageSpec{}
}

// usageEntries reads the entries of a usage list and checks them together.
func (l *fileLoader) usageEntries(items []*yaml.Node) usageSpec {
	spec := usageSpec{mode: usageWritten}
	where := make([]map[string]*yaml.Node, len(items))
	for i, item := range items {
		f := l.fields(item, "a usage entry", protocol.UsageMembers())
		where[i] = f
		u := protocol.TokenUsage{Counts: map[string]int64{}}
		if v := f[protocol.UsageProvider]; v != nil {
			u.Provider = l.name(v, "a usage provider")
		}
		if v := f[protocol.UsageModel]; v != nil {
			u.Model = l.name(v, "a usage model")
		}
		for _, name := range protocol.UsageCounts() {
			if v := f[name]; v != nil {
				if c, ok := l.count(v, name); ok {
					u.Counts[name] = c
				}
			}
		}
		if f != nil && len(f) == 0 {
			l.diag.add(l.pos(item), "e.g. {provider: openai, model: gpt-4o, inputTokens: 120, outputTokens: 40}", "a usage entry says nothing")
		}
		spec.entries = append(spec.entries, u)
	}
	for _, p := range protocol.CheckUsage(spec.entries) {
		at := items[p.Index]
		if v := where[p.Index][p.Member]; v != nil {
			at = v
		}
		hint := "inputTokens and outputTokens are totals; reasoningTokens, cachedInputTokens and cacheWriteInputTokens are parts of them; totalTokens is their sum"
		if p.Member == protocol.UsageModel {
			hint = "add their counts up in one entry"
		}
		l.diag.add(l.pos(at), hint, "%s", p.Message)
	}
	return spec
}

// count reads a token count: a whole number from 0 to protocol.MaxSafeInteger.
func (l *fileLoader) count(n *yaml.Node, name string) (int64, bool) {
	if !l.scalar(n, name+" as a number") {
		return 0, false
	}
	c, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil || n.ShortTag() != "!!int" || c < 0 || c > protocol.MaxSafeInteger {
		l.diag.add(l.pos(n), "", "%s must be a whole number from 0 to %d, got %q", name, int64(protocol.MaxSafeInteger), n.Value)
		return 0, false
	}
	return c, true
}

// runUsage is the usage the run's terminal event reports, or nil for none: the
// scenario's own, else the server's default.
func (p *planner) runUsage() []any {
	mode := p.usage.mode
	if mode == usageUnsaid && p.estimateUsage {
		mode = usageEstimated
	}
	switch mode {
	case usageWritten:
		return protocol.UsageWire(p.usage.entries)
	case usageEstimated:
		return protocol.UsageWire([]protocol.TokenUsage{estimateUsage(p.req.Input, p.events)})
	}
	return nil
}

// withUsage gives a terminal event the run's usage, when it reports one.
func (p *planner) withUsage(ev protocol.Event) protocol.Event {
	if usage := p.runUsage(); usage != nil {
		return ev.With("usage", usage)
	}
	return ev
}

// tokens estimates how many tokens a model counts in a text: about four characters
// each, as for English text.
func tokens(text string) int64 {
	return int64(utf8.RuneCountInString(text)+3) / 4
}

// messageOverhead is what a chat model counts for each message besides its content
// (its role and the separators), and replyOverhead what primes its reply.
const (
	messageOverhead = 4
	replyOverhead   = 3
)

// estimateUsage is the usage of one model call that read the request and wrote the
// run's streamed text: the prompt (every message, the tools offered and the context) as
// input, the messages of earlier turns read from the provider's cache; the text,
// reasoning and tool arguments the run streamed as output, reasoning a part of it.
// It is a function of the request and the stream alone, so a run played again under the
// same seed reports the same usage.
func estimateUsage(in *protocol.RunAgentInput, events []Timed) protocol.TokenUsage {
	var input, cached int64 = replyOverhead, 0
	lastUser := -1
	for i, m := range in.Messages {
		if m.Role == "user" {
			lastUser = i
		}
	}
	for i, m := range in.Messages {
		n := messageOverhead + tokens(m.Text())
		if calls, ok := m.Raw["toolCalls"]; ok {
			b, _ := json.Marshal(calls) // decoded JSON always encodes
			n += tokens(string(b))
		}
		input += n
		if i < lastUser {
			cached += n
		}
	}
	for _, t := range in.Tools {
		b, _ := json.Marshal(t.Parameters) // decoded JSON always encodes
		input += tokens(t.Name) + tokens(t.Description) + tokens(string(b))
	}
	for _, c := range in.Context {
		input += tokens(c.Description) + tokens(c.Value)
	}
	var output, reasoning int64
	for _, t := range events {
		st, ok := protocol.Streamed(t.Event.Type)
		if !ok {
			if t.Event.Type == protocol.ToolCallStart {
				output += tokens(t.Event.Str("toolCallName"))
			}
			continue
		}
		n := tokens(t.Event.Str(st.DeltaField))
		output += n
		if st.Family == protocol.ReasoningStream || st.Family == protocol.ThinkingStream {
			reasoning += n
		}
	}
	counts := map[string]int64{
		protocol.UsageInputTokens:  input,
		protocol.UsageOutputTokens: output,
		protocol.UsageTotalTokens:  input + output,
	}
	if reasoning > 0 {
		counts[protocol.UsageReasoningTokens] = reasoning
	}
	if cached > 0 {
		counts[protocol.UsageCachedInputTokens] = cached
	}
	return protocol.TokenUsage{Provider: estimatedProvider, Model: estimatedModel, Counts: counts}
}
