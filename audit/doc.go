// Package audit tests differential-privacy claims empirically: it draws the
// outputs of a procedure on two neighbouring inputs and looks for an event E
// whose probabilities under the two contradict the claim, reporting a lower
// bound on ε that holds with a stated confidence. A bound above the claimed
// ε is statistical evidence that the claim is false; a bound below it is no
// proof of privacy, only the absence of evidence against it.
//
// # How the parts fit
//
// Everything rests on one function for scalar outputs. Samples (one pair)
// and Audit (several pairs under one union bound) take the values of any
// 1-D statistic on the two neighbours, A and B, so any procedure can be
// audited once its output is reduced to a number: a released noisy value,
// a privacy-loss statistic, a coordinate of a trained model. Each pair is
// split in two: the first SelectFraction of each side (in the order given;
// the values must be i.i.d. draws in sampling order) chooses the events,
// and the rest estimates their probabilities. Because the events are fixed
// before the estimation samples are looked at, the confidence statement is
// exact, not approximate. The event families are
//
//   - Thresholds: {s ≥ t} and {s ≤ t} for a grid of t (quantiles of the
//     selection samples). When s is the privacy-loss statistic these are
//     the likelihood-ratio sets, the optimal tests by Neyman–Pearson.
//   - Histogram: fixed-width bins (Freedman–Diaconis width, as in Google's
//     stochastic tester) plus two overflow bins, and the two unions of bins
//     where one side's selection frequency exceeds e^ε times the other's,
//     which carry the hockey-stick divergence δ(ε).
//   - Bits: the low 1, 2 and 3 bits of the float64 mantissa, within each
//     binade (sign and exponent) and over all of them, the kind of
//     bit-pattern feature DP-Sniper uses. These expose outputs whose
//     floating-point support depends on the input, the weakness Mironov
//     (2012) found in textbook Laplace samplers.
//   - Lattice: sets fixed before sampling, given by the Statistic's Sets.
//     Mechanism uses them, with MechanismOptions.Support, for the events
//     "y is a value the sampler can emit on x" and "… on x′": a
//     floating-point sampler whose outputs lie on input-dependent lattices
//     (FloatSupport: math/rand/v2's ziggurat draws are j·w[i] for one of a
//     few hundred constants w[i]) is caught almost surely, while a sampler
//     on the grid γℤ whose release is round_γ(x) + γ·J (Grid, GridNoise)
//     gives the same answer on both neighbours.
//
// For every event E and both orderings, P₁ = P[one side ∈ E] and
// P₂ = P[other side ∈ E] get exact Clopper–Pearson intervals, each at level
// 1 − (1 − Confidence)/(2K) for K events in all (Bonferroni). With
// probability at least Confidence every interval holds at once, so every
// bound below holds at once:
//
//	ε ≥ log((P₁lower − δ) / P₂upper)   (the reported EpsilonLower, at the claimed δ)
//	δ(ε) ≥ P₁lower − e^ε · P₂upper     (the reported DeltaLower, at the claimed ε)
//
// where δ(ε) = sup_E P₁(E) − e^ε P₂(E) is the smallest δ that the claimed ε
// allows. The verdict is Violation when either bound exceeds the claim.
// The false-alarm rate of a correct claim is therefore at most
// 1 − Confidence (5 % by default) for the whole audit, whatever the number
// of events; at a fixed seed the result is deterministic.
//
// Mechanism audits a noise mechanism on top of this: it draws Samples
// outputs of M(x) and M(x + shift) with per-chunk random streams over a pool
// of workers and reduces each (vector) output y to its privacy loss
// L(y) = Σᵢ log p(yᵢ − xᵢ) − log p(yᵢ − xᵢ − shiftᵢ) with the noise's
// LogPDF, and rounded to 2⁻³² nats. The rounding is a post-processing, so
// it keeps every bound valid; it keeps the round-off of computing L in
// float64 from carrying the outputs' low-order bits into these events, so
// that they measure the real-valued mechanism. With Dims d > 1 there are two tests, Δ on one coordinate and Δ
// spread over all d (Δ/d each under the ℓ1 norm, Δ/√d under ℓ2). With Bits,
// the raw first coordinate of the first test is audited with the bit
// family too, under the same union bound; with Support, with the Lattice
// family. A Noise that is a Releaser (such as GridNoise) releases
// m.Release(x) instead of x + noise, and its loss is computed with
// LogLikelihood.
//
// # Reports and policy
//
// MechanismReport and TrainReport render an audit as text (WriteText) or
// JSON (WriteJSON), as dpmc audit prints it. The default claim of a
// mechanism audit is the mechanism's own guarantee (GuaranteeClaim at
// DefaultClaimDelta); NewUserTrainSetup and NewPaperTrainSetup configure
// the training audits of dpmc audit --train on TinyTrainData: the userdp
// pipeline against its accountant, and the paper's algorithms, which
// guarantee nothing.
//
// # References
//
//   - Wilson, Zhang, Lam, Desfontaines, Simmons-Marengo, Gipson:
//     "Differentially private SQL with bounded user contribution",
//     arXiv:1909.01917, §5.3 (Google's stochastic tester: histograms of
//     outputs on neighbouring inputs, compared bin by bin).
//   - Bichsel, Steffen, Bogunovic, Vechev: "DP-Sniper: Black-box discovery
//     of differential privacy violations using classifiers", IEEE S&P 2021
//     (threshold events on a learned statistic, estimated on fresh samples
//     with Clopper–Pearson bounds; bit-pattern features).
//   - Mironov: "On significance of the least significant bits for
//     differential privacy", ACM CCS 2012 (floating-point Laplace samplers
//     have input-dependent supports).
//   - Marsaglia, Tsang: "The ziggurat method for generating random
//     variables", Journal of Statistical Software 5(8), 2000 (the
//     construction of math/rand/v2's ExpFloat64 and NormFloat64, whose
//     lattices FloatSupport describes).
package audit
