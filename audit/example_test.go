package audit_test

import (
	"context"
	"fmt"

	"github.com/dpmc/dpmc/audit"
	"github.com/dpmc/dpmc/laplace"
	"github.com/dpmc/dpmc/mechanism"
	"github.com/dpmc/dpmc/rng"
)

// Audit one Laplace release (b = 1, Δ = 1, so ε = 1) against a claim of
// half its true ε.
func ExampleMechanism() {
	m, err := laplace.New(1)
	if err != nil {
		panic(err)
	}
	res, err := audit.Mechanism(context.Background(), m, audit.MechanismOptions{
		Options:     audit.Options{Claim: mechanism.Guarantee{Epsilon: 0.5}},
		Sensitivity: 1,
		Samples:     100000,
		Seeded:      true, // reproducible; the audit releases nothing
		Seed:        1,
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: ε ≥ %.2f at %g %% confidence, by a %s event on %s\n",
		res.Verdict, res.EpsilonLower, 100*res.Confidence, res.Best.Family, res.Best.Statistic)
	// Output:
	// VIOLATION: ε ≥ 0.97 at 95 % confidence, by a thresholds event on privacy loss L(y), Δ on 1 of 1 coordinate(s)
}

// Audit any scalar statistic: here a noisy count on two neighbouring
// datasets (true counts 10 and 11).
func ExampleSamples() {
	m, _ := laplace.New(2) // ε = Δ/b = 0.5 for a count
	r := rng.Seeded(1)
	a, b := make([]float64, 50000), make([]float64, 50000)
	for i := range a {
		a[i] = 10 + m.Sample(r)
		b[i] = 11 + m.Sample(r)
	}
	res, err := audit.Samples(a, b, audit.Options{Claim: mechanism.Guarantee{Epsilon: 0.5}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s, %.2f ≤ ε ≤ 0.5\n", res.Verdict, res.EpsilonLower)
	// Output:
	// PASS, 0.45 ≤ ε ≤ 0.5
}
