package gcpace

import (
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live, floor uint64
		want        int
	}{
		{live: 4 * mib, floor: 32 * mib, want: 800},   // the goal is 32 MiB above the heap
		{live: 3 * mib, floor: 32 * mib, want: 1067},  // rounded up, never under the floor
		{live: 32 * mib, floor: 32 * mib, want: 100},  // as large as the floor: Go's pace
		{live: 500 * mib, floor: 32 * mib, want: 100}, // larger: never below Go's default
		{live: 0, floor: 32 * mib, want: 3200},        // an empty heap counts as 1 MiB
		{live: 10 * mib, floor: 0, want: 100},
	} {
		if got := Percent(c.live, c.floor); got != c.want {
			t.Errorf("Percent(%d MiB, %d MiB) = %d, want %d", c.live/mib, c.floor/mib, got, c.want)
		}
	}
}

// TestPacerSetsThePercentAfterEveryCollection collects twice and sees the pacer set
// the percent each time, then stops it and sees Go's default put back and nothing set
// after the next collection.
func TestPacerSetsThePercentAfterEveryCollection(t *testing.T) {
	set := make(chan int, 16)
	const floor = 1 << 40 // far above any test's heap: the percent is well over 100
	p := start(floor, func(percent int) { set <- percent })
	for i := range 2 {
		runtime.GC()
		select {
		case got := <-set:
			if got <= defaultPercent {
				t.Fatalf("collection %d: percent %d, want above %d", i+1, got, defaultPercent)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("collection %d: the pacer set no percent", i+1)
		}
	}
	p.Stop()
	if got := <-set; got != defaultPercent {
		t.Fatalf("Stop set %d, want Go's default %d", got, defaultPercent)
	}
	p.Stop() // a second Stop does nothing
	runtime.GC()
	runtime.GC()
	select {
	case got := <-set:
		t.Fatalf("after Stop the pacer set %d", got)
	default:
	}
}
