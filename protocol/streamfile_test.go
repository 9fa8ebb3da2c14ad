package protocol

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestReadStreamFileReadsEachFormWithPositions(t *testing.T) {
	const started, finished = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`, `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`
	for _, c := range []struct {
		name, data string
		at         [][2]int // line and column of each event
	}{
		{"run.json", "[\n  " + started + ",\n  " + finished + "\n]\n", [][2]int{{2, 3}, {3, 3}}},
		{"fixture.JSON", `{"name": "a run", "stream": [` + started + ", " + finished + "]}", [][2]int{{1, 30}, {1, 81}}},
		{"run.jsonl", started + "\n\n" + finished + "\n", [][2]int{{1, 1}, {3, 1}}},
		{"run.ndjson", started + "\n" + finished, [][2]int{{1, 1}, {2, 1}}},
	} {
		events, err := ReadStreamFile(c.name, []byte(c.data))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got [][2]int
		for _, ev := range events {
			got = append(got, [2]int{ev.Line, ev.Column})
		}
		if len(events) != 2 || events[0].Event.Type != RunStarted || events[1].Event.Type != RunFinished || fmt.Sprint(got) != fmt.Sprint(c.at) {
			t.Errorf("%s: %d events at %v, want RUN_STARTED, RUN_FINISHED at %v", c.name, len(events), got, c.at)
		}
	}
}

func TestReadStreamFileSaysWhereAndWhyItIsNoStream(t *testing.T) {
	for _, c := range []struct {
		name, data string
		line, col  int
		message    string
	}{
		{"empty.json", " \n", 1, 1, "the file is empty; expected AG-UI events"},
		{"object.json", `{"events": []}`, 1, 1, `expected an array of events, or an object with a "stream" array`},
		{"string.json", `"RUN_STARTED"`, 1, 1, "expected a JSON array of events"},
		{"cut.json", "[\n" + `{"type":"RUN_STARTED",`, 2, 1, "malformed JSON: "},
		{"unknown.json", `[{"type":"RUN_STARTED","threadId":"t","runId":"r"}, 42]`, 1, 53, "event 1: "},
		{"bad.jsonl", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n{not json\n", 2, 1, "line 2: "},
	} {
		_, err := ReadStreamFile(c.name, []byte(c.data))
		var fe *StreamFileError
		if !errors.As(err, &fe) || fe.Line != c.line || fe.Column != c.col || !strings.HasPrefix(err.Error(), c.message) {
			t.Errorf("%s: %v at %+v, want %d:%d %q", c.name, err, fe, c.line, c.col, c.message)
		}
	}
}

func TestIsStreamFileGoesByTheExtension(t *testing.T) {
	for name, want := range map[string]bool{"a.json": true, "a.JSONL": true, "a.ndjson": true, "a.yaml": false, "json": false} {
		if IsStreamFile(name) != want {
			t.Errorf("IsStreamFile(%q) = %v", name, !want)
		}
	}
}
