package calibrate

import (
	"math"
	"testing"

	"github.com/dpmc/dpmc/noise/huber"
)

func TestForVariance(t *testing.T) {
	for _, name := range []string{"gaussian", "laplace", "huber"} {
		for _, v := range []float64{0.5, 2, 3, 4} {
			m, err := ForVariance(name, v)
			if err != nil {
				t.Fatalf("%s at %v: %v", name, v, err)
			}
			if m.Name() != name || math.Abs(m.Variance()-v) > 1e-9*v {
				t.Errorf("ForVariance(%s, %v) = %v with variance %v", name, v, m, m.Variance())
			}
		}
	}
	m, _ := ForVariance("huber", 1)
	if h := m.(*huber.Mechanism); h.Alpha() != 3 || h.Scale() != 1 {
		t.Errorf("huber at variance 1 = %v, want the paper's α = 3, s = 1", m)
	}
	if m, err := ForVariance(None, 1); m != nil || err != nil {
		t.Errorf("none = %v, %v; want nil, nil", m, err)
	}
}

func TestForVarianceErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		v    float64
	}{{"cauchy", 1}, {"gaussian", 0}, {"laplace", -1}, {"huber", math.NaN()}, {"", 1}} {
		if _, err := ForVariance(tt.name, tt.v); err == nil {
			t.Errorf("ForVariance(%q, %v): no error", tt.name, tt.v)
		}
	}
}
