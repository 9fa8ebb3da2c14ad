// Package loadtest drives many concurrent AG-UI runs against any endpoint and measures
// throughput, time to first event, and how true the stream's timing stays to its script;
// it also serves the minimal SSE "floor" the comparison measures against.
package loadtest

import (
	"math"
	"slices"
	"time"
)

// Summary describes a sample of durations.
type Summary struct {
	Count int           `json:"count"`
	P50   time.Duration `json:"p50"`
	P99   time.Duration `json:"p99"`
	Max   time.Duration `json:"max"`
}

// Summarize computes the percentiles of a sample (nearest-rank).
func Summarize(sample []time.Duration) Summary {
	if len(sample) == 0 {
		return Summary{}
	}
	s := slices.Clone(sample)
	slices.Sort(s)
	rank := func(p float64) time.Duration {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return s[min(max(i, 0), len(s)-1)]
	}
	return Summary{Count: len(s), P50: rank(0.50), P99: rank(0.99), Max: s[len(s)-1]}
}

// SummarizeByPosition summarizes, for each position, the values at that position in
// every sample that has one: the first values of all samples, then the second values,
// and so on.
func SummarizeByPosition(samples [][]time.Duration) []Summary {
	var out []Summary
	for i := 0; ; i++ {
		var column []time.Duration
		for _, s := range samples {
			if i < len(s) {
				column = append(column, s[i])
			}
		}
		if len(column) == 0 {
			return out
		}
		out = append(out, Summarize(column))
	}
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
