package server

import (
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// deadlineRecorder is a response writer that records the write deadlines it is given.
type deadlineRecorder struct {
	*streamRecorder
	deadlines []time.Duration // from the start
}

func (d *deadlineRecorder) SetWriteDeadline(t time.Time) error {
	d.deadlines = append(d.deadlines, t.Sub(d.start))
	return nil
}

func TestWriteDeadlinesAreRenewedWhenHalfSpent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &deadlineRecorder{streamRecorder: newRecorder()}
		w := newEventWriter(rec, false, 10*time.Second, nil)
		w.begin()
		for i := range 13 { // one event a second
			if err := w.event(protocol.NewEvent(protocol.Custom, "name", "tick", "value", i), time.Now().UnixMilli()); err != nil {
				t.Fatal(err)
			}
			if err := w.flush(); err != nil {
				t.Fatal(err)
			}
			if len(rec.deadlines) == 0 {
				t.Fatal("no write deadline was set")
			}
			if left := rec.deadlines[len(rec.deadlines)-1] - time.Since(rec.start); left < 5*time.Second {
				t.Fatalf("event %d was written with %v left before its deadline", i, left)
			}
			time.Sleep(time.Second)
		}
		if want := []time.Duration{10 * time.Second, 16 * time.Second, 22 * time.Second}; !reflect.DeepEqual(rec.deadlines, want) {
			t.Errorf("deadlines %v, want %v", rec.deadlines, want)
		}
		if len(rec.writes) != 13 {
			t.Errorf("%d writes, want 13", len(rec.writes))
		}
	})
}
