package scenarios

import (
	"math"
	"time"
)

// ValidSpeed reports whether f can be a speed factor: a finite number of 0 or more.
// Infinity and NaN are not: they would make every delay meaningless.
func ValidSpeed(f float64) bool {
	return f >= 0 && !math.IsInf(f, 1) // NaN fails the comparison
}

// Scale multiplies a delay by a speed factor. A product too long for a time.Duration
// is the longest one, never a wrapped-around or negative delay.
func Scale(d time.Duration, speed float64) time.Duration {
	scaled := float64(d) * speed
	if scaled >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(scaled)
}
