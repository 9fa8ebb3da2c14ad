package scenarios

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/copilotkit"
	"github.com/agui-mock/agui-mock/protocol"
)

// A thread document is a YAML document of a scenario directory whose one key is thread:
// a conversation every test starts from (protocol.SeededThread, with the members POST
// /_mock/threads takes), which a CopilotKit app restores on its first load. It is
// checked when the directory loads, its problems reported at the member at fault; the
// set keeps it apart from the scenarios (Set.Threads).
//
//	thread:
//	  threadId: trip-yesterday
//	  scenario: trip-planner     # answers the thread's next run
//	  messages:
//	    - {role: user, content: Plan a trip to Lisbon}
//	    - {role: assistant, content: Here is a plan.}

// ThreadDocumentID is the id a thread document holds among the set's documents, so
// that two documents of one thread id are refused as two scenarios of one id are.
func ThreadDocumentID(threadID string) string { return "thread:" + threadID }

// isThreadDocument reports whether a document is a thread document: a mapping with a
// thread key.
func isThreadDocument(n *yaml.Node) bool {
	if n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == keyThread {
			return true
		}
	}
	return false
}

// threadDocument reads a thread document.
func (l *fileLoader) threadDocument(n *yaml.Node) *Scenario {
	f := l.fields(n, "a thread document", []string{keyThread})
	v := f[keyThread]
	if v == nil {
		return nil
	}
	minted := 0
	newID := func(kind string) string {
		minted++
		return kind + "-seeded-" + strconv.Itoa(minted)
	}
	thread, err := protocol.DecodeSeededThread(l.literal(v), newID)
	if err != nil {
		at, problem := v, err.Error()
		var ie *protocol.InputError
		if errors.As(err, &ie) {
			at, problem = nodeAt(v, ie.Field), ie.Problem
			if ie.Field != "" {
				problem = "thread." + ie.Field + ": " + problem
			}
		}
		l.diag.add(l.pos(at), "a thread document has the members of POST /_mock/threads (docs/copilotkit.md)", "%s", problem)
		return nil
	}
	return &Scenario{ID: ThreadDocumentID(thread.ThreadID), Source: l.pos(n), Thread: thread}
}

// nodeAt finds the node a member path such as runs[1].messages[0].role names under n:
// as deep as the path leads, n itself when it leads nowhere.
func nodeAt(n *yaml.Node, path string) *yaml.Node {
	for _, part := range strings.FieldsFunc(path, func(r rune) bool { return r == '.' || r == '[' || r == ']' }) {
		next := child(n, part)
		if next == nil {
			return n
		}
		n = next
	}
	return n
}

// child is the value of a mapping's key, or a sequence's item of an index.
func child(n *yaml.Node, part string) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == part {
				return n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(part); err == nil && i >= 0 && i < len(n.Content) {
			return n.Content[i]
		}
	}
	return nil
}

// Threads returns the set's thread documents, each a conversation tests start from.
func (s *Set) Threads() []*protocol.SeededThread {
	out := make([]*protocol.SeededThread, len(s.threads))
	for i, doc := range s.threads {
		out[i] = doc.Thread
	}
	return out
}

// Thread returns the thread document of a thread id, or nil.
func (s *Set) Thread(id string) *protocol.SeededThread {
	for _, doc := range s.threads {
		if doc.Thread.ThreadID == id {
			return doc.Thread
		}
	}
	return nil
}

// checkThreads checks that the scenario each thread document names is loaded and
// answers the thread's next run (SeedCursor), reporting a problem at the document.
func (s *Set) checkThreads(ctx context.Context, limits Limits) []Diagnostic {
	var diags []Diagnostic
	for _, doc := range s.threads {
		t := doc.Thread
		if t.Scenario == "" {
			continue
		}
		agent := t.Agent
		if agent == "" {
			agent = copilotkit.DefaultAgent
		}
		if _, err := s.SeedCursor(ctx, t, copilotkit.RunPath(copilotkit.DefaultBasePath, agent), PlanOptions{Limits: limits}); err != nil {
			diags = append(diags, doc.diagnostic(err.Error(), "name a scenario that is loaded and pauses where the thread waits"))
		}
	}
	return diags
}
