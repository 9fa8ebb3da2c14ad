package scenarios

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/protocol"
)

// A match's conversation names every message of the request, in order: what tells the
// turns of one conversation apart when their last user messages are alike — "tell me
// another" asked twice, or a run the client starts with no new user message at all. An
// example's conversation is the messages its request sends, in place of its message and
// system.

// MessagePattern is what one message of a request's conversation must be: of its role,
// and with a text its pattern matches, when it has one.
type MessagePattern struct {
	Role string
	Text *regexp.Regexp
}

// String writes the pattern as a miss says it.
func (p MessagePattern) String() string {
	if p.Text == nil {
		return p.Role
	}
	return p.Role + " /" + p.Text.String() + "/"
}

// matches reports whether a message is of the pattern's role and its text matches.
func (p MessagePattern) matches(m protocol.Message) bool {
	return m.Role == p.Role && (p.Text == nil || p.Text.MatchString(m.Text()))
}

// conversationHolds reports whether the request's messages are, one for one, those the
// patterns describe; none given holds of any.
func conversationHolds(want []MessagePattern, msgs []protocol.Message) bool {
	if len(want) == 0 {
		return true
	}
	if len(want) != len(msgs) {
		return false
	}
	for i, p := range want {
		if !p.matches(msgs[i]) {
			return false
		}
	}
	return true
}

// conversationMiss says where the request's messages first depart from the patterns.
func conversationMiss(want []MessagePattern, msgs []protocol.Message) []string {
	if conversationHolds(want, msgs) {
		return nil
	}
	if len(want) != len(msgs) {
		return []string{fmt.Sprintf("the conversation has %s (%s), not %d (%s)",
			count(len(msgs), "message"), clip(rolesOf(msgs), 120), len(want), clip(patternRoles(want), 120))}
	}
	for i, p := range want {
		switch m := msgs[i]; {
		case m.Role != p.Role:
			return []string{fmt.Sprintf("message %d of the conversation is %s, not %s", i+1, m.Role, p.Role)}
		case !p.matches(m):
			return []string{fmt.Sprintf("message %d of the conversation (%s) %q does not match /%s/", i+1, m.Role, clip(m.Text(), 80), p.Text)}
		}
	}
	return nil
}

// count says how many of a noun there are.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func rolesOf(msgs []protocol.Message) string {
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = m.Role
	}
	return strings.Join(roles, ", ")
}

func patternRoles(want []MessagePattern) string {
	roles := make([]string, len(want))
	for i, p := range want {
		roles[i] = p.Role
	}
	return strings.Join(roles, ", ")
}

// conversationHint shows how a match's conversation is written.
const conversationHint = "e.g. conversation: [user: ^Tell me a story$, assistant, user: ^Another one$]"

// matchConversation reads a match's conversation: a list whose items are a role alone
// (any message of that role) or a mapping of one role to the pattern its text matches.
func (l *fileLoader) matchConversation(n *yaml.Node) []MessagePattern {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		l.diag.add(l.pos(n), conversationHint, "match.conversation must be a list of the request's messages, one item each")
		return nil
	}
	want := make([]MessagePattern, 0, len(n.Content))
	for i, it := range n.Content {
		if it.Kind == yaml.AliasNode {
			it = it.Alias
		}
		var p MessagePattern
		var roleNode *yaml.Node
		switch {
		case it.Kind == yaml.ScalarNode:
			p.Role, roleNode = it.Value, it
		case it.Kind == yaml.MappingNode && len(it.Content) == 2:
			p.Role, roleNode = it.Content[0].Value, it.Content[0]
			if v := it.Content[1]; !(v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null") {
				p.Text = l.regex(v)
			}
		default:
			l.diag.add(l.pos(it), conversationHint, "match.conversation item %d must be a role, or one role and the pattern its text matches", i+1)
			continue
		}
		if !slices.Contains(protocol.MessageRoles(), p.Role) {
			l.diag.add(l.pos(roleNode), conversationHint, "match.conversation item %d: unknown role %q (one of %s)", i+1, p.Role, strings.Join(protocol.MessageRoles(), ", "))
			continue
		}
		want = append(want, p)
	}
	return want
}

// exampleConversation reads an example's conversation: the messages its request sends,
// as RunAgentInput carries them (role, content, toolCalls, toolCallId, …). Ids may be
// left out: each run of the example gives the messages ids of its own.
func (l *fileLoader) exampleConversation(n *yaml.Node) []map[string]any {
	list, ok := l.literal(n).([]any)
	if !ok || len(list) == 0 {
		l.diag.add(l.pos(n), "e.g. conversation: [{role: user, content: Tell me a story}, {role: assistant, content: Once upon a time}]", "an example's conversation must be a list of the messages its request sends")
		return nil
	}
	msgs := make([]map[string]any, 0, len(list))
	for i, item := range list {
		m, ok := item.(map[string]any)
		role, _ := m["role"].(string)
		if !ok || !slices.Contains(protocol.MessageRoles(), role) {
			l.diag.add(l.pos(n), "", "an example's conversation, message %d: a message is a mapping with a role (one of %s)", i+1, strings.Join(protocol.MessageRoles(), ", "))
			return nil
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// conversationMessages are an example's conversation as a run sends it: each message
// with the id it was given, or one of the run's own (the last message takes the run's
// message id, the others that id with their position).
func (ex Example) conversationMessages(id string) []any {
	msgs := make([]any, len(ex.Conversation))
	for i, m := range ex.Conversation {
		out := make(map[string]any, len(m)+1)
		for k, v := range m {
			out[k] = v
		}
		if _, ok := out["id"]; !ok {
			out["id"] = id
			if i < len(ex.Conversation)-1 {
				out["id"] = id + "-" + strconv.Itoa(i+1)
			}
		}
		msgs[i] = out
	}
	return msgs
}

// sampleConversation makes up messages a match's conversation takes: each of its role,
// with a text its pattern matches, and what a message of that role must carry besides.
func sampleConversation(want []MessagePattern) []map[string]any {
	msgs := make([]map[string]any, len(want))
	for i, p := range want {
		text := "sample"
		if p.Text != nil {
			text, _ = sampleMessage(p.Text)
		}
		m := map[string]any{"role": p.Role, "content": text}
		switch p.Role {
		case "tool":
			m["toolCallId"] = "sample-call-" + strconv.Itoa(i+1)
		case "activity":
			m["activityType"], m["content"] = "sample", map[string]any{}
		}
		msgs[i] = m
	}
	return msgs
}
