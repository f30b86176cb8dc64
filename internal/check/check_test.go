package check

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestChecks(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name string
		err  error
		ok   bool
	}{
		{"finite", Finite("x", 1), true},
		{"finite NaN", Finite("x", nan), false},
		{"positive", Positive("x", 1e-300), true},
		{"positive zero", Positive("x", 0), false},
		{"positive Inf", Positive("x", inf), false},
		{"nonnegative zero", NonNegative("x", 0), true},
		{"nonnegative negative", NonNegative("x", -1e-9), false},
		{"in range", InRange("x", 2, 1, 2), true},
		{"out of range", InRange("x", 3, 1, 2), false},
		{"probability", Probability("x", 0.5), true},
		{"probability 0", Probability("x", 0), false},
		{"probability 1", Probability("x", 1), false},
		{"noise param", NoiseParam("x", 1e100), true},
		{"noise param tiny", NoiseParam("x", 1e-101), false},
		{"noise param huge", NoiseParam("x", 1e101), false},
	}
	for _, tt := range tests {
		if (tt.err == nil) != tt.ok {
			t.Errorf("%s: err = %v, want ok = %v", tt.name, tt.err, tt.ok)
		}
		if tt.err != nil && (!errors.Is(tt.err, ErrParam) || !strings.Contains(tt.err.Error(), "x = ")) {
			t.Errorf("%s: error %q does not wrap ErrParam or name the parameter", tt.name, tt.err)
		}
	}
}
