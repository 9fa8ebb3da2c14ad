package scenarios

import (
	"math"
	"testing"
	"time"
)

func TestValidSpeedIsFiniteAndNotNegative(t *testing.T) {
	for f, want := range map[float64]bool{0: true, 0.5: true, 1e300: true, -1: false, math.Inf(1): false, math.Inf(-1): false, math.NaN(): false} {
		if got := ValidSpeed(f); got != want {
			t.Errorf("ValidSpeed(%v) = %v, want %v", f, got, want)
		}
	}
}

func TestScaleSaturatesInsteadOfOverflowing(t *testing.T) {
	tests := []struct {
		d     time.Duration
		speed float64
		want  time.Duration
	}{
		{time.Second, 0.5, 500 * time.Millisecond},
		{time.Second, 0, 0},
		{time.Second, 1e300, math.MaxInt64},
		{math.MaxInt64, 2, math.MaxInt64},
		{math.MaxInt64, 1, math.MaxInt64},
	}
	for _, tt := range tests {
		if got := Scale(tt.d, tt.speed); got != tt.want {
			t.Errorf("Scale(%v, %v) = %v, want %v", tt.d, tt.speed, got, tt.want)
		}
	}
}
