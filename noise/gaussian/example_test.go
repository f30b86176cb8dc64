package gaussian_test

import (
	"fmt"

	"github.com/dpmc/dpmc/noise/gaussian"
)

// The exact (analytic) ε of σ = 1 noise on a statistic of ℓ2 sensitivity 5,
// against the classic formula, which is not a guarantee at that ε.
func ExampleEpsilon() {
	eps, err := gaussian.Epsilon(1, 5, 1e-5)
	if err != nil {
		panic(err)
	}
	classic, err := gaussian.ClassicEpsilon(1, 5, 1e-5)
	fmt.Printf("analytic ε = %.3f; classic formula %.3f (%v)\n", eps, classic, err != nil)
	// Output:
	// analytic ε = 33.104; classic formula 24.224 (true)
}

// Calibrate σ for a target (ε, δ).
func ExampleSigma() {
	sigma, err := gaussian.Sigma(1, 1, 1e-5)
	if err != nil {
		panic(err)
	}
	fmt.Printf("σ = %.3f for (1, 1e-5)-DP at Δ₂ = 1\n", sigma)
	// Output:
	// σ = 3.731 for (1, 1e-5)-DP at Δ₂ = 1
}
