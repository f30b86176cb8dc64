package utility

import (
	"math"
	"strings"
	"testing"
)

func TestSideBySideMarkdown(t *testing.T) {
	res := func(name string, def1, def10, mean float64) *Result {
		return &Result{Name: name, Runs: 2, Delta: 1e-6, Points: []Point{
			{Model: ModelMean, Epsilon: math.Inf(1), Mean: mean},
			{Model: ModelDefault, Epsilon: 1, Mean: def1},
			{Model: ModelDefault, Epsilon: 10, Mean: def10},
		}}
	}
	for _, c := range []struct {
		name        string
		s           SideBySide
		want, avoid []string
	}{
		{"within", SideBySide{Real: res("real", 1.05, 0.99, 1.13), Generated: res("gen", 1.055, 0.985, 1.125), Tolerance: 0.01},
			[]string{"### gen beside real", "unseeded: crypto/rand noise", "not released", "| " + ModelDefault + " | 1 | 1.0500 | 1.0550 | +0.0050 |", "3 of 3 figures within ±0.01", "| " + ModelMean + " | non-private |"},
			[]string{"**+", "**-"}},
		{"beyond", SideBySide{Real: res("real", 1.05, 0.99, 1.13), Generated: res("gen", 1.05, 1.02, 1.13), Tolerance: 0.01},
			[]string{"| **+0.0300** |", "2 of 3 figures within ±0.01; the largest difference is +0.0300 (" + ModelDefault + " at 10)"},
			nil},
	} {
		var b strings.Builder
		if err := c.s.WriteMarkdown(&b); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: lacks %q:\n%s", c.name, w, b.String())
			}
		}
		for _, a := range c.avoid {
			if strings.Contains(b.String(), a) {
				t.Errorf("%s: has %q:\n%s", c.name, a, b.String())
			}
		}
		if strings.Count(b.String(), ModelMean) != 1 {
			t.Errorf("%s: a non-private model must be listed once:\n%s", c.name, b.String())
		}
	}
	if err := (&SideBySide{Real: res("real", 1, 1, 1)}).WriteMarkdown(&strings.Builder{}); err == nil {
		t.Error("a missing curve: no error")
	}
}
