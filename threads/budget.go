package threads

import (
	"fmt"

	"github.com/agui-mock/agui-mock/protocol"
)

// DefaultMaxBytes is the threads' byte budget unless told otherwise: 64 MiB, thousands of
// ordinary conversations. The collector lets the heap grow to twice what is live, so
// what a 512 MiB container (GOMEMLIMIT 450 MiB) can keep for good is about 200 MiB:
// this, the journal's run records and bodies, and the runs streaming share it.
const DefaultMaxBytes = 64 << 20

// settle measures what a thread keeps now: its conversation as frozen (or, when it
// could not be, as its values take), and the events it keeps of the runtime's runs. The
// caller holds s.mu, and the thread's conversation is not changing: no run streams on
// it, or it has just been built.
func (s *Store) settle(t *Thread) {
	t.convMu.Lock()
	size := int64(len(t.frozen))
	if t.frozen == nil {
		size = protocol.Footprint(t.conv.Messages) + protocol.Footprint(t.conv.State)
	}
	t.convMu.Unlock()
	if t.kept != nil {
		size += t.kept.bytes
	}
	s.bytes += size - t.size
	t.size = size
}

// shedBytes forgets threads until the rest fit within Limits.MaxBytes: latest, the
// thread whose run has just ended, when it alone takes more than the budget (no other
// thread is forgotten for it), else the least recently used ones. A thread with a run
// streaming is never forgotten. The caller holds s.mu.
func (s *Store) shedBytes(latest *Thread) {
	if s.limits.MaxBytes <= 0 || s.bytes <= s.limits.MaxBytes {
		return
	}
	if latest.size > s.limits.MaxBytes && latest.active == nil {
		s.forget(latest)
		s.shed++
		return
	}
	for e := s.lru.Back(); e != nil && s.bytes > s.limits.MaxBytes; {
		t := e.Value.(*Thread)
		prev := e.Prev()
		if t.active == nil {
			s.forget(t)
			s.shed++
		}
		e = prev
	}
}

// Usage is what the store holds: its threads, what they keep in bytes (as of their
// last runs' ends), and how many threads it forgot to stay within its byte budget.
type Usage struct {
	Threads int
	Bytes   int64
	Shed    uint64
}

// Usage returns what the store holds now.
func (s *Store) Usage() Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Usage{Threads: len(s.threads), Bytes: s.bytes, Shed: s.shed}
}

// TooLargeError says that a seeded thread alone would keep more than the threads' byte
// budget.
type TooLargeError struct{ Bytes, Limit int64 }

// Error says how large the thread would be, and the budget.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the seeded thread would keep about %d bytes, more than the %d bytes all threads may keep together (--threads-max-bytes)", e.Bytes, e.Limit)
}
