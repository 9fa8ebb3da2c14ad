package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// frame is one event of the journal stream.
type frame struct {
	kind string
	data map[string]any
}

// streamFrames reads the frames of a recorded journal stream.
func streamFrames(t *testing.T, body string) []frame {
	t.Helper()
	var frames []frame
	for _, raw := range strings.Split(body, "\n\n") {
		kind, data, ok := strings.Cut(raw, "\ndata: ")
		if !ok {
			continue
		}
		f := frame{kind: strings.TrimPrefix(kind, "event: ")}
		if err := json.Unmarshal([]byte(data), &f.data); err != nil {
			t.Fatalf("frame %q: %v", raw, err)
		}
		frames = append(frames, f)
	}
	return frames
}

// subscribe opens the journal stream; stop ends it and returns its frames.
func subscribe(t *testing.T, s *Server) (stop func() []frame) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan *streamRecorder)
	go func() {
		rec := newRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequestWithContext(ctx, http.MethodGet, AdminPrefix+"/journal/stream", nil))
		rec.Flush()
		done <- rec
	}()
	synctest.Wait()
	return func() []frame {
		cancel()
		return streamFrames(t, (<-done).body())
	}
}

func TestJournalStreamSendsEachChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		yaml := "timing: {firstEvent: 0, firstToken: 0, stepGap: 300ms, tokensPerSecond: 1000, jitter: 0}\nsteps:\n  - text: one\n  - text: two\n"
		s := newServer(t, yaml, nil)
		stop := subscribe(t, s)
		post(t.Context(), s, "/agui/chat", `{"threadId":"th","messages":[]}`, map[string]string{TestIDHeader: "t1"})
		time.Sleep(journalFeedDelay) // the stream writes what it gathered
		synctest.Wait()
		if err := s.Reload(t.Context()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(journalFeedDelay)
		synctest.Wait()
		frames := stop()
		var kinds []string
		for _, f := range frames {
			if len(kinds) == 0 || kinds[len(kinds)-1] != f.kind {
				kinds = append(kinds, f.kind)
			}
		}
		if got := strings.Join(kinds, " "); got != "ready started progress entry reload" {
			t.Fatalf("changes %q", got)
		}
		started, entry := frames[1].data, frames[len(frames)-2].data
		if started["scenario"] != "test" || started["testId"] != "t1" || started["seq"] != 0.0 || started["requestId"] == "" {
			t.Errorf("started %v", started)
		}
		if entry["seq"] != 1.0 || entry["requestId"] != started["requestId"] || entry["outcome"] != "success" || entry["selection"] != "matched" || entry["request"] != nil {
			t.Errorf("entry %v", entry)
		}
		if reload := frames[len(frames)-1].data; reload["reloads"] != 1.0 {
			t.Errorf("reload %v", reload)
		}
	})
}

// A subscriber that reads nothing holds no run up: it loses the changes past its buffer
// and is told to resync.
func TestASlowSubscriberNeverHoldsARunUp(t *testing.T) {
	s := newServer(t, "steps: [{text: hi}]\n", nil)
	sub := s.feed.Subscribe(1)
	defer s.feed.Unsubscribe(sub)
	for range 5 {
		if rec := post(t.Context(), s, "/agui/chat", `{"messages":[]}`, map[string]string{SpeedHeader: "0"}); rec.status != 200 {
			t.Fatal(rec.status)
		}
	}
	if !sub.Resync() {
		t.Error("the subscriber lost changes and was not told")
	}
}

// The stream ends when the server shuts down, so that a page left open does not hold
// the shutdown up.
func TestJournalStreamEndsOnShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, "", nil)
		stop := subscribe(t, s)
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
		synctest.Wait()
		if frames := stop(); len(frames) != 1 || frames[0].kind != changeReady {
			t.Errorf("frames %v", frames)
		}
	})
}

// A batch that holds a run's entry leaves out its start and progress, and nothing else.
func TestABatchSendsARunThatEndedAsItsEntryAlone(t *testing.T) {
	run := func(kind, id string) journalChange {
		return journalChange{kind: kind, entry: JournalEntry{RequestID: id}, progress: runProgress{RequestID: id}}
	}
	batch := []journalChange{
		run(changeStarted, "a"), run(changeStarted, "b"), run(changeProgress, "a"),
		{kind: changeReload}, run(changeEntry, "a"), run(changeProgress, "b"),
	}
	var sent []string
	_ = sendBatch(batch, func(kind string, data any) error {
		sent = append(sent, kind)
		return nil
	})
	if got := strings.Join(sent, " "); got != "started reload entry progress" {
		t.Errorf("sent %q", got)
	}
}
