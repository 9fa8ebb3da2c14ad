package protocol

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Version is an AG-UI protocol version, MAJOR.MINOR.
type Version struct{ Major, Minor int }

// Newest returns the newest protocol version this server speaks.
func Newest() Version { return Version{1, 1} }

// String writes the version as MAJOR.MINOR.
func (v Version) String() string { return strconv.Itoa(v.Major) + "." + strconv.Itoa(v.Minor) }

// Less reports whether v is older than w.
func (v Version) Less(w Version) bool {
	return v.Major < w.Major || (v.Major == w.Major && v.Minor < w.Minor)
}

// ParseVersion reads "MAJOR.MINOR"; a trailing ".PATCH" is tolerated and ignored.
func ParseVersion(s string) (Version, error) {
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("protocol version %q is not MAJOR.MINOR", s)
	}
	var nums [2]int
	for i := range nums {
		n, err := strconv.Atoi(parts[i])
		if err != nil || n < 0 {
			return Version{}, fmt.Errorf("protocol version %q is not MAJOR.MINOR", s)
		}
		nums[i] = n
	}
	return Version{nums[0], nums[1]}, nil
}

// Peer is what the requesting client understands. Clients of the 1.x line send their
// protocolVersion in the run input; 0.0.x clients send none and are treated as legacy.
type Peer struct {
	Legacy  bool
	Version Version // the version both sides speak; zero for legacy peers
}

// PeerFor returns the peer described by a run input's protocolVersion.
func PeerFor(protocolVersion string) Peer {
	if protocolVersion == "" {
		return Peer{Legacy: true}
	}
	v, err := ParseVersion(protocolVersion)
	if err != nil || v.Major == 0 {
		return Peer{Legacy: true}
	}
	if Newest().Less(v) {
		v = Newest()
	}
	return Peer{Version: v}
}

// String names the peer's protocol line or version, for logs.
func (p Peer) String() string {
	if p.Legacy {
		return "0.0.x"
	}
	return p.Version.String()
}

// Declare gives a RUN_STARTED the protocolVersion both sides speak, for a 1.x peer: what
// the mock declares when it speaks for itself. A stream played as written (a recording)
// declares only what it says.
func (p Peer) Declare(ev Event) Event {
	if ev.Type != RunStarted || p.Legacy {
		return ev
	}
	return ev.With("protocolVersion", p.Version.String())
}

// Adapt rewrites an event into what the peer accepts. It reports false when the peer has
// no way to receive the event at all (it would be fatal there), so it must be dropped.
// A RUN_STARTED that declares a protocolVersion newer than the peer's declares the
// peer's, since the rest of the stream is adapted to it; 0.0.x peers get none. A
// RUN_STARTED that declares none is left so.
func (p Peer) Adapt(ev Event) (Event, bool) {
	if ev.Type == RunStarted {
		ev = p.adaptDeclared(ev)
	}
	if p.Legacy {
		switch ev.Type {
		case SubagentStarted, SubagentFinished, SubagentError:
			return ev, false
		case RunFinished:
			ev = legacyUsage(legacyRunFinished(ev))
		case RunError:
			ev = legacyUsage(ev)
		case ToolCallResult:
			if parts, ok := ev.Get("content"); ok {
				if _, isList := parts.([]any); isList {
					ev = ev.With("content", flattenParts(parts.([]any)))
				}
			}
		}
		if _, has := ev.Get("subagentRunId"); has {
			ev = ev.Without("subagentRunId")
		}
		return ev, true
	}
	if p.Version.Less(Version{1, 1}) {
		if _, has := ev.Get("encryptedValueType"); has {
			ev = ev.Without("encryptedValueType")
		}
	}
	return ev, true
}

// adaptDeclared lowers the protocolVersion a RUN_STARTED declares to what the peer speaks.
func (p Peer) adaptDeclared(ev Event) Event {
	declared, has := ev.Get("protocolVersion")
	if !has {
		return ev
	}
	if p.Legacy {
		return ev.Without("protocolVersion")
	}
	if s, ok := declared.(string); ok {
		if v, err := ParseVersion(s); err == nil && !p.Version.Less(v) {
			return ev
		}
	}
	return ev.With("protocolVersion", p.Version.String())
}

// legacyRunFinished maps the 1.x-only outcomes onto what 0.0.53–0.0.58 accept: a
// cancelled run becomes RUN_ERROR with code "cancelled", success loses
// pendingToolCallIds (those outcome objects are strict there), and interrupts lose the
// subagent attribution.
func legacyRunFinished(ev Event) Event {
	o := ev.Outcome()
	if o == nil {
		return ev
	}
	switch o["type"] {
	case "cancelled":
		return NewEvent(RunError, "message", "Run cancelled", "code", "cancelled")
	case "success":
		if _, has := o["pendingToolCallIds"]; has {
			return ev.With("outcome", map[string]any{"type": "success"})
		}
	case "interrupt":
		return ev.With("outcome", withoutAttribution(o))
	}
	return ev
}

// withoutAttribution returns an interrupt outcome whose interrupts carry no
// subagentRunId, which 0.0.x does not know; the outcome itself when none does.
func withoutAttribution(o map[string]any) map[string]any {
	list, _ := o["interrupts"].([]any)
	var out []any
	for i, item := range list {
		in, ok := item.(map[string]any)
		if _, has := in["subagentRunId"]; !ok || !has {
			continue
		}
		if out == nil {
			out = slices.Clone(list)
		}
		out[i] = maps.Clone(in)
		delete(out[i].(map[string]any), "subagentRunId")
	}
	if out == nil {
		return o
	}
	o = maps.Clone(o)
	o["interrupts"] = out
	return o
}

// flattenParts turns tool-result content parts into the plain string 0.0.x expects: the
// text parts joined, or the parts as JSON text when there are non-text parts.
func flattenParts(parts []any) string {
	var texts []string
	for _, p := range parts {
		pm, _ := p.(map[string]any)
		s, isText := pm["text"].(string)
		if pm["type"] != "text" || !isText {
			b, _ := json.Marshal(parts)
			return string(b)
		}
		texts = append(texts, s)
	}
	return strings.Join(texts, "")
}
