package accounting_test

import (
	"fmt"
	"math"

	"github.com/dpmc/dpmc/accounting"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/laplace"
)

// A solver adds Laplace noise of scale 10 to a statistic of ℓ1 sensitivity
// 1 in each of 100 iterations. What does the whole run guarantee at
// δ = 1e-6?
func ExampleCompose() {
	m, err := laplace.New(10)
	if err != nil {
		panic(err)
	}
	totals, err := accounting.Compose(m, noise.Sensitivity{L1: 1}, 100, 1e-6)
	if err != nil {
		panic(err)
	}
	for _, name := range accounting.Accountants() {
		fmt.Printf("%-12s ε = %.3f\n", name, totals.ByName(name).Epsilon)
	}
	best, _ := totals.Tightest()
	fmt.Println("tightest:", best.Accountant)
	// Output:
	// basic        ε = 10.000
	// advanced_kov ε = 4.775
	// advanced_drv ε = 6.308
	// rdp          ε = 4.996
	// pld          ε = 4.693
	// tightest: pld
}

// How much Gaussian noise do 1000 releases of a statistic of ℓ2
// sensitivity 1 need for (ε, δ) = (1, 1e-5) in total? (Exactly √1000 times
// the σ = 3.73 of one release, since Gaussian releases compose into one.)
func ExampleCalibrate() {
	family := func(sigma float64) (noise.Mechanism, error) { return gaussian.New(sigma) }
	sigma, totals, err := accounting.Calibrate(family, noise.Sensitivity{L2: 1}, 1000, 1, 1e-5, 1, 1e4)
	if err != nil {
		panic(err)
	}
	best, _ := totals.Tightest()
	fmt.Printf("σ = %.1f: %v\n", sigma, best)
	// Output:
	// σ = 118.0: pld: (ε, δ) = (1, 1e-05)
}

// The same run with the exact discrete Laplace noise that unseeded dpmc
// releases use: the statistic is rounded to the noise's grid γ first, so
// the sensitivity grows by γ (one changed coordinate), and the PLD
// accountant works on the noise's own lattice.
func ExampleComposeDiscrete() {
	m, err := discrete.NewLaplace(10)
	if err != nil {
		panic(err)
	}
	totals, cost, err := accounting.ComposeDiscrete(m, noise.Sensitivity{L1: 1}, 1, 100, 1e-6)
	if err != nil {
		panic(err)
	}
	best, _ := totals.Tightest()
	fmt.Printf("grid γ = 2^%d, Δ₁′ − Δ₁ = %.3g\n", math.Ilogb(cost.Grid), cost.Rounded-cost.Sensitivity)
	fmt.Printf("%s ε = %.3f\n", best.Accountant, best.Epsilon)
	// Output:
	// grid γ = 2^-37, Δ₁′ − Δ₁ = 7.28e-12
	// pld ε = 4.693
}
