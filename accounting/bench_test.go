package accounting

import (
	"strconv"
	"testing"

	"github.com/dpmc/dpmc/gaussian"
	"github.com/dpmc/dpmc/huber"
	"github.com/dpmc/dpmc/mechanism"
)

// BenchmarkCompose times Compose (all five accountants) at δ = 1e-6 for
// one release and for k = 1000, the setting of the README's reference
// values.
func BenchmarkCompose(b *testing.B) {
	s := mechanism.Sensitivity{L1: 1, L2: 1}
	for _, m := range []mechanism.Mechanism{mustLaplace(b, 1), mustGaussian(b, 10), mustHuber(b, 1, 1)} {
		for _, k := range []int{1, 1000} {
			b.Run(m.Name()+"/k="+strconv.Itoa(k), func(b *testing.B) {
				for b.Loop() {
					if _, err := Compose(m, s, k, 1e-6); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkCalibrate times a full calibration for k = 1000 and target
// (1, 1e-5) over a bracket of six decades, as dpmc account does.
func BenchmarkCalibrate(b *testing.B) {
	families := []struct {
		name   string
		family func(p float64) (mechanism.Mechanism, error)
		hi     float64
	}{
		{"gaussian", func(p float64) (mechanism.Mechanism, error) { return gaussian.New(p) }, 1000},
		{"huber", func(p float64) (mechanism.Mechanism, error) { return huber.New(3, p) }, 3000},
	}
	for _, f := range families {
		b.Run(f.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := Calibrate(f.family, mechanism.Sensitivity{L1: 1, L2: 1}, 1000, 1, 1e-5, f.hi*1e-6, f.hi); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
