package feed

import (
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestPublishWithoutSubscribersDoesNothing(t *testing.T) {
	var f Feed[int]
	if f.Active() {
		t.Fatal("a new feed is active")
	}
	f.Publish(1) // must not block or panic
}

func TestSubscribersReceiveInOrder(t *testing.T) {
	var f Feed[int]
	a, b := f.Subscribe(4), f.Subscribe(4)
	defer f.Unsubscribe(a)
	for i := range 3 {
		f.Publish(i)
	}
	for _, s := range []*Subscription[int]{a, b} {
		for want := range 3 {
			if got := <-s.Values(); got != want {
				t.Fatalf("got %d, want %d", got, want)
			}
		}
		if s.Resync() {
			t.Fatal("a subscriber that kept up is told to resync")
		}
	}
	f.Unsubscribe(b)
	f.Publish(9)
	select {
	case v := <-b.Values():
		t.Fatalf("an unsubscribed subscriber received %d", v)
	default:
	}
	if got := <-a.Values(); got != 9 {
		t.Fatalf("got %d, want 9", got)
	}
}

// A subscriber that reads nothing never holds the publisher up: it loses what does not
// fit, hears of it once, and after Resync starts from an empty buffer.
func TestSlowSubscriberLosesAndResyncs(t *testing.T) {
	var f Feed[int]
	slow := f.Subscribe(2)
	defer f.Unsubscribe(slow)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 1000 {
			f.Publish(i)
		}
	})
	wg.Wait() // finishes although nobody reads
	select {
	case <-slow.Lost():
	default:
		t.Fatal("a subscriber that lost values was not told")
	}
	if !slow.Resync() {
		t.Fatal("Resync says nothing was lost")
	}
	if len(slow.Values()) != 0 {
		t.Fatal("Resync left old values in the buffer")
	}
	if slow.Resync() {
		t.Fatal("a second Resync reports the same loss again")
	}
	f.Publish(1000)
	if got := <-slow.Values(); got != 1000 {
		t.Fatalf("after resync got %d, want 1000", got)
	}
}
