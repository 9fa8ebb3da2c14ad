package testctl

import "sync"

// Queue holds, per test id, values set through the admin API for the test's next
// requests, first in, first out. Each value is good for a number of takes, or for every
// take while that number is 0, which keeps it at the head of its queue for good.
type Queue[T any] struct {
	mu     sync.Mutex
	byTest map[string][]*queued[T]
}

type queued[T any] struct {
	value T
	times int // takes left; 0 is every take
}

// Push adds a value at the end of a test's queue, good for times takes (0: every take).
func (q *Queue[T]) Push(testID string, v T, times int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.byTest == nil {
		q.byTest = map[string][]*queued[T]{}
	}
	q.byTest[testID] = append(q.byTest[testID], &queued[T]{value: v, times: times})
}

// Replace makes a value, good for times takes (0: every take), the only one in a test's
// queue.
func (q *Queue[T]) Replace(testID string, v T, times int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.byTest == nil {
		q.byTest = map[string][]*queued[T]{}
	}
	q.byTest[testID] = []*queued[T]{{value: v, times: times}}
}

// Take returns the value at the head of a test's queue, counting the take, or false
// when the queue is empty.
func (q *Queue[T]) Take(testID string) (T, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	list := q.byTest[testID]
	if len(list) == 0 {
		var zero T
		return zero, false
	}
	head := list[0]
	if head.times > 0 {
		if head.times--; head.times == 0 {
			if len(list) == 1 {
				delete(q.byTest, testID)
			} else {
				q.byTest[testID] = list[1:]
			}
		}
	}
	return head.value, true
}

// Reset empties a test's queue (testID "" names the requests without one), or every
// queue with all.
func (q *Queue[T]) Reset(testID string, all bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if all {
		q.byTest = nil
		return
	}
	delete(q.byTest, testID)
}
