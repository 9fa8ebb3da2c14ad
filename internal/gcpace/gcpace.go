// Package gcpace gives the garbage collector of a small heap a fixed minimum of room.
//
// Go starts a collection when the heap has grown by GOGC percent of what the last one
// left live: 100 % by default. A mock's live heap is small (its scenarios and the
// threads it keeps), so under a stream of short runs it collects many times a second,
// each time to find little live. Keeping the goal at least a fixed number of bytes
// above the live heap collects less often while the heap is small, and changes
// nothing once the live heap is larger than that floor: the memory it can add is
// bounded by the floor.
package gcpace

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// defaultPercent is Go's GOGC when the environment sets none: the pacer never goes
// below it, and puts it back when it stops.
const defaultPercent = 100

// liveHeapMetric is the heap the last collection found live, in bytes.
const liveHeapMetric = "/gc/heap/live:bytes"

// Pacer keeps the collector's goal at least a floor of bytes above the live heap, by
// setting the GOGC percent after every collection. It is meant for a process that runs
// with Go's default GOGC.
type Pacer struct {
	floor  uint64
	setGC  func(percent int) // debug.SetGCPercent, but for tests
	sample []metrics.Sample

	mu      sync.Mutex
	stopped bool
}

// Start paces the collector with the given floor until Stop.
func Start(floor uint64) *Pacer {
	return start(floor, func(percent int) { debug.SetGCPercent(percent) })
}

func start(floor uint64, setGC func(int)) *Pacer {
	p := &Pacer{floor: floor, setGC: setGC, sample: []metrics.Sample{{Name: liveHeapMetric}}}
	p.arm()
	return p
}

// Percent is the GOGC percent that puts the goal at least floor bytes above a live
// heap of live bytes, and never below Go's default.
func Percent(live, floor uint64) int {
	const minLive = 1 << 20 // a heap is never taken as smaller: the percent stays bounded
	live = max(live, minLive)
	return max(int((floor*100+live-1)/live), defaultPercent)
}

// arm sets a cleanup on a fresh object, which runs after the first collection to find
// it unreachable: that is, once after every collection.
func (p *Pacer) arm() {
	sentinel := new([16]byte) // big enough not to share a tiny-allocator block
	runtime.AddCleanup(sentinel, (*Pacer).collected, p)
}

// collected arms the next round, and sets the percent from the live heap the last
// collection left.
func (p *Pacer) collected() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.arm() // first: a collection that comes while this one sets the percent is seen
	metrics.Read(p.sample)
	if s := p.sample[0]; s.Value.Kind() == metrics.KindUint64 {
		p.setGC(Percent(s.Value.Uint64(), p.floor))
	}
}

// Stop ends the pacing and puts Go's default percent back.
func (p *Pacer) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.stopped {
		p.stopped = true
		p.setGC(defaultPercent)
	}
}
