package audit_test

import (
	"context"
	"fmt"
	"os"

	"github.com/dpmc/dpmc/audit"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/laplace"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/userdp"
)

// Audit one Laplace release (b = 1, Δ = 1, so ε = 1) against a claim of
// half its true ε.
func ExampleMechanism() {
	m, err := laplace.New(1)
	if err != nil {
		panic(err)
	}
	res, err := audit.Mechanism(context.Background(), m, audit.MechanismOptions{
		Options:     audit.Options{Claim: noise.Guarantee{Epsilon: 0.5}},
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
	res, err := audit.Samples(a, b, audit.Options{Claim: noise.Guarantee{Epsilon: 0.5}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s, %.2f ≤ ε ≤ 0.5\n", res.Verdict, res.EpsilonLower)
	// Output:
	// PASS, 0.45 ≤ ε ≤ 0.5
}

// Audit the Gaussian mechanism's floating-point sampler at x = 1000 with
// the lattice family, and print the report as dpmc audit does. The
// real-valued mechanism passes its own claim; the float64 releases do not:
// almost every release on x lies on x's ziggurat lattice, almost none on
// x + 1's.
func ExampleMechanismReport() {
	m, err := gaussian.New(49)
	if err != nil {
		panic(err)
	}
	claim, err := audit.GuaranteeClaim(m, 1, audit.DefaultClaimDelta(m))
	if err != nil {
		panic(err)
	}
	sup, err := audit.FloatSupport(m)
	if err != nil {
		panic(err)
	}
	opts := audit.MechanismOptions{
		Options:     audit.Options{Claim: claim},
		Sensitivity: 1,
		Samples:     20000,
		At:          1000,
		Seeded:      true, // reproducible; the audit releases nothing
		Seed:        1,
		Support:     sup,
	}
	res, err := audit.Mechanism(context.Background(), m, opts)
	if err != nil {
		panic(err)
	}
	// Elapsed is left zero, so that the report is reproducible.
	r := &audit.MechanismReport{Mechanism: m, Sampler: "float", Options: opts, Result: res, ClaimFromGuarantee: true}
	if err := r.WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// dpmc audit: gaussian(σ=49), sensitivity Δ = 1, neighbours x = 1000 and x′ = x + shift
	// claim:        (ε, δ) = (0.0599513, 1e-05), the mechanism's own guarantee
	// sampler:      float; emitted set S(x): the ziggurat lattice of the float sampler gaussian(σ=49)
	// samples:      20000 per neighbour per test, the first 2000 choose the events; seed 1 (reproducible)
	// test:         privacy loss L(y), Δ on 1 of 1 coordinate(s)
	// test:         raw output y₁ (emitted set S(x) of the ziggurat lattice of the float sampler gaussian(σ=49))
	// events:       166 tried; each Clopper–Pearson interval at 99.9849 % (Bonferroni)
	// lower bound:  ε ≥ 6.7205 at 95 % confidence (claimed 0.0599513)
	// best event:   y₁ ∈ S(x), x = 1000   [raw output y₁ (emitted set S(x) of the ziggurat lattice of the float sampler gaussian(σ=49))]
	//               P[M(x) ∈ E] ≥ 0.9981 (17986/18000), P[M(x′) ∈ E] ≤ 0.001204 (6/18000)
	// δ(ε):         ≥ 0.997 at the claimed ε (claimed δ = 1e-05); plug-in over histogram bins 0.00647
	// real-valued:  ε ≥ 0.0000 from the likelihood-ratio and histogram events alone
	// SAMPLER FINDING: whether y lies in the set the sampler emits on x reveals the input (the best event above); δ(ε) ≥ 0.997
	// time:         0.0 s
	// verdict:      VIOLATION (the claim is false unless a 5 % chance struck; only the sampler's releases, the real-valued mechanism passes)
}

// Audit the userdp pipeline (dpmc train --privacy user) at a total
// ε = 1, δ = 10⁻⁶ on the built-in tiny data, against its accountant's
// total, as dpmc audit --train does.
func ExampleNewUserTrainSetup() {
	o := userdp.Defaults(1, 1e-6, audit.TinyMin, audit.TinyMax)
	setup, err := audit.NewUserTrainSetup(context.Background(), o, 1, true)
	if err != nil {
		panic(err)
	}
	res, err := audit.Train(context.Background(), setup.Options(1000, 0, 0.95))
	if err != nil {
		panic(err)
	}
	fmt.Printf("claim (ε, δ) = (%.4g, %.3g), %s: %s; 1000 runs could show at most ε ≥ %.1f\n",
		setup.Claim.Epsilon, setup.Claim.Delta, setup.ClaimFrom, res.Verdict, res.Ceiling)
	// Output:
	// claim (ε, δ) = (1, 1e-06), the accountant's total: PASS; 1000 runs could show at most ε ≥ 4.6
}
