package discrete_test

import (
	"fmt"
	"math"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/rng"
)

// A private release of a vector with discrete Gaussian noise: round to the
// grid, add exact integer noise, and account for the rounding in Δ₂.
func Example() {
	m, err := discrete.NewGaussian(49) // σ = 49
	if err != nil {
		panic(err)
	}
	gamma := m.Granularity()
	// One user changes at most n = 3 coordinates, by Δ₂ = 5 in ℓ2 norm.
	sens, err := discrete.RoundedSensitivity(noise.Sensitivity{L2: 5}, 3, gamma)
	if err != nil {
		panic(err)
	}
	stats := []float64{1000, 1001.5, -3.25}
	// rng.Seeded is for this example only: private releases use rng.Crypto().
	if err := discrete.Release(m, stats, rng.Seeded(1)); err != nil {
		panic(err)
	}
	onGrid := true
	for _, y := range stats {
		onGrid = onGrid && y/gamma == math.Trunc(y/gamma)
	}
	rho, err := m.ZCDP(sens.L2) // per release; k releases: k·ρ
	if err != nil {
		panic(err)
	}
	eps, err := discrete.ZCDPEpsilon(100*rho, 1e-6) // 100 releases
	if err != nil {
		panic(err)
	}
	fmt.Printf("γ = 2^%d, outputs on the grid: %v\n", math.Ilogb(gamma), onGrid)
	fmt.Printf("ρ = %.6f per release; 100 releases: ε = %.4f at δ = 1e-6\n", rho, eps)
	// Output:
	// γ = 2^-23, outputs on the grid: true
	// ρ = 0.005206 per release; 100 releases: ε = 5.3424 at δ = 1e-6
}
