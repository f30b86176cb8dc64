package accounting

import (
	"strconv"
	"testing"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
)

// BenchmarkCompose times Compose (all five accountants) at δ = 1e-6 for
// one release and for k = 1000, the setting of the README's reference
// values.
func BenchmarkCompose(b *testing.B) {
	s := noise.Sensitivity{L1: 1, L2: 1}
	for _, m := range []noise.Mechanism{mustLaplace(b, 1), mustGaussian(b, 10), mustHuber(b, 1, 1)} {
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
		family func(p float64) (noise.Mechanism, error)
		hi     float64
	}{
		{"gaussian", func(p float64) (noise.Mechanism, error) { return gaussian.New(p) }, 1000},
		{"huber", func(p float64) (noise.Mechanism, error) { return huber.New(3, p) }, 3000},
	}
	for _, f := range families {
		b.Run(f.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := Calibrate(f.family, noise.Sensitivity{L1: 1, L2: 1}, 1000, 1, 1e-5, f.hi*1e-6, f.hi); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDiscretePLD times the pessimistic lattice PLD of one release
// (the construction alone: buckets, bounds, split) at the production grids
// for k = 1 and 1000, and the whole PLD accountant (construction, FFT
// composition, inversion at δ = 1e-6), for the discrete Laplace (b = 1),
// Gaussian (σ = 10) and Huber (α = 1, s = 1) at Δ = 1, one coordinate.
func BenchmarkDiscretePLD(b *testing.B) {
	s := noise.Sensitivity{L1: 1, L2: 1}
	lap, _ := discrete.NewLaplace(1)
	gau, _ := discrete.NewGaussian(10)
	hub, _ := discrete.NewHuber(1, 1)
	for _, m := range []discrete.Mechanism{lap, gau, hub} {
		rs, err := discrete.RoundedSensitivity(s, 1, m.Granularity())
		if err != nil {
			b.Fatal(err)
		}
		for _, k := range []int{1, 1000} {
			md, err := prepare(m, rs, k)
			if err != nil {
				b.Fatal(err)
			}
			if md.scalar != nil {
				md.lattice = md.scalar
			}
			b.Run(m.Name()+"/construct/k="+strconv.Itoa(k), func(b *testing.B) {
				for b.Loop() {
					if _, err := md.pldParts(k); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(m.Name()+"/accountant/k="+strconv.Itoa(k), func(b *testing.B) {
				for b.Loop() {
					if _, err := md.pldTotal(k, 1e-6); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
