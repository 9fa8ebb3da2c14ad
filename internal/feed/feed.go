// Package feed fans values out to subscribers that may be slow, without ever making the
// publisher wait: each subscriber has a bounded buffer, and one that falls behind loses
// what does not fit and is told so, to catch up from the source (resync).
package feed

import (
	"sync"
	"sync/atomic"
)

// Feed publishes values of type T to its subscribers. The zero Feed has none and is
// ready to use.
type Feed[T any] struct {
	mu     sync.RWMutex
	subs   map[*Subscription[T]]struct{}
	active atomic.Int32 // len(subs), read without the lock by every Publish
}

// Subscription is one subscriber's view of a feed.
type Subscription[T any] struct {
	values chan T
	lost   atomic.Bool   // a value did not fit since the last Lost
	wake   chan struct{} // signalled when lost becomes true, so that a waiting reader hears of it
}

// Active reports whether anybody subscribes, so that a publisher can skip building a
// value nobody reads.
func (f *Feed[T]) Active() bool { return f.active.Load() > 0 }

// Publish offers v to every subscriber. It never waits: a subscriber whose buffer is
// full loses v and is marked to resync.
func (f *Feed[T]) Publish(v T) {
	if !f.Active() {
		return
	}
	f.mu.RLock()
	defer f.mu.RUnlock()
	for s := range f.subs {
		select {
		case s.values <- v:
		default:
			if !s.lost.Swap(true) {
				select {
				case s.wake <- struct{}{}:
				default:
				}
			}
		}
	}
}

// Subscribe adds a subscriber whose buffer holds up to buffer values (at least one).
// Cancel it with Unsubscribe.
func (f *Feed[T]) Subscribe(buffer int) *Subscription[T] {
	s := &Subscription[T]{values: make(chan T, max(buffer, 1)), wake: make(chan struct{}, 1)}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs == nil {
		f.subs = map[*Subscription[T]]struct{}{}
	}
	f.subs[s] = struct{}{}
	f.active.Store(int32(len(f.subs)))
	return s
}

// Unsubscribe removes a subscriber; it receives nothing more.
func (f *Feed[T]) Unsubscribe(s *Subscription[T]) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.subs, s)
	f.active.Store(int32(len(f.subs)))
}

// Values delivers the subscriber's values in the order they were published.
func (s *Subscription[T]) Values() <-chan T { return s.values }

// Lost is signalled when a value did not fit in the buffer.
func (s *Subscription[T]) Lost() <-chan struct{} { return s.wake }

// Resync reports whether values were lost since the last call, and empties the buffer:
// a subscriber that lost values reads the source's state afresh, and what was buffered
// before that is older than what it reads.
func (s *Subscription[T]) Resync() bool {
	if !s.lost.Swap(false) {
		return false
	}
	for {
		select {
		case <-s.values:
		default:
			return true
		}
	}
}
