package recorder

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/scenarios"
)

// Replace puts what the recorder recorded of a thread's session in place of the scenario
// that starts at target, in its file: the recorded runs, under the scenario's id, with
// the description, priority, match and examples it had. The file's other scenarios, and its other
// documents, stay as they are; the file is written atomically, and only when it still
// loads.
func (r *Recorder) Replace(threadID string, target scenarios.Position, id string) error {
	r.mu.Lock()
	s := r.sessions[threadID]
	r.mu.Unlock()
	if s == nil || s.unrecorded {
		return errors.New("nothing was recorded of the session")
	}
	recorded, err := r.load(s.file)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(target.File)
	if err != nil {
		return err
	}
	var docs []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fmt.Errorf("%s: %w", target.File, err)
		}
		docs = append(docs, &doc)
	}
	replaced := false
	for _, doc := range docs {
		if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode || doc.Content[0].Line != target.Line {
			continue
		}
		doc.Content[0] = recorded.InPlaceOf(doc.Content[0], id, fmt.Sprintf("Re-recorded by agui-mock verify -update from %s at %s.\nIt replays with the recorded timing; edit it freely (see docs/recording.md in agui-mock).",
			r.cfg.Upstream.Redacted(), time.Now().UTC().Format(time.RFC3339)))
		replaced = true
	}
	if !replaced {
		return fmt.Errorf("%s has no scenario at line %d any more", target.File, target.Line)
	}
	written := make([]any, len(docs)) // the other documents as they were
	for i, doc := range docs {
		written[i] = doc
	}
	return r.write(target.File, written...)
}
