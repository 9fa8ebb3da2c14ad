package testctl

import (
	"strings"
	"testing"
)

func TestAQueueHandsOutEachValueItsNumberOfTimesInOrder(t *testing.T) {
	var q Queue[string]
	q.Push("t1", "a", 2)
	q.Push("t1", "b", 1)
	q.Push("t2", "other", 1)
	var got []string
	for {
		v, ok := q.Take("t1")
		if !ok {
			break
		}
		got = append(got, v)
	}
	if got, want := strings.Join(got, " "), "a a b"; got != want {
		t.Errorf("took %q, want %q", got, want)
	}
	if v, ok := q.Take("t2"); !ok || v != "other" {
		t.Errorf("another test's queue: %q %v", v, ok)
	}
}

func TestAValueForEveryTakeStaysAtTheHead(t *testing.T) {
	var q Queue[int]
	q.Push("", 7, 0)
	q.Push("", 8, 1)
	for range 5 {
		if v, ok := q.Take(""); !ok || v != 7 {
			t.Fatalf("took %d %v, want 7 every time", v, ok)
		}
	}
}

func TestReplaceLeavesOneValue(t *testing.T) {
	var q Queue[string]
	q.Push("t1", "a", 0)
	q.Replace("t1", "b", 1)
	if v, ok := q.Take("t1"); !ok || v != "b" {
		t.Errorf("took %q %v, want b", v, ok)
	}
	if v, ok := q.Take("t1"); ok {
		t.Errorf("took %q after the only value was used up", v)
	}
}

func TestResetEmptiesOneTestsQueueOrAll(t *testing.T) {
	var q Queue[string]
	for _, id := range []string{"t1", "t2", ""} {
		q.Push(id, id, 0)
	}
	q.Reset("t1", false)
	if _, ok := q.Take("t1"); ok {
		t.Error("t1's queue survived its reset")
	}
	if v, ok := q.Take("t2"); !ok || v != "t2" {
		t.Error("resetting t1 emptied t2's queue")
	}
	q.Reset("", false) // the requests without a test id
	if _, ok := q.Take(""); ok {
		t.Error("the untagged queue survived its reset")
	}
	q.Reset("", true)
	if _, ok := q.Take("t2"); ok {
		t.Error("t2's queue survived resetting all")
	}
}
