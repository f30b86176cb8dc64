package huber_test

import (
	"fmt"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/rng"
)

// The paper's setting: α = 3 at scale 1 on ratings of range 5.
func Example() {
	m, err := huber.New(3, 1)
	if err != nil {
		panic(err)
	}
	g, err := m.Guarantee(noise.Sensitivity{L1: 5}, 0)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v: variance %.4f, %v\n", m, m.Variance(), g)

	r := rng.Seeded(1) // reproducible, so NOT private: experiments only
	x := []float64{4, 2.5, 1}
	noise.AddNoise(m, x, r)
	fmt.Println(len(x), "noisy values")
	// Output:
	// huber(α=3, s=1): variance 1.0036, ε = 15 (pure ε-DP)
	// 3 noisy values
}

// Calibrate α to a noise variance as the paper does, and s to a budget.
func ExampleAlphaForVariance() {
	alpha, err := huber.AlphaForVariance(2)
	if err != nil {
		panic(err)
	}
	fmt.Printf("α = %.4f gives variance 2 at s = 1, so ε = %.3f for Δ₁ = 5\n", alpha, 5*alpha)

	s, _ := huber.ScaleForEpsilon(1, alpha, 5)
	fmt.Printf("for ε = 1 at that α: s = %.3f\n", s)
	// Output:
	// α = 1.0760 gives variance 2 at s = 1, so ε = 5.380 for Δ₁ = 5
	// for ε = 1 at that α: s = 5.380
}
