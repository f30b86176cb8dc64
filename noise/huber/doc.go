// Package huber implements the Huber mechanism of Gowtham, M, Tholeti and
// Kalyani ("Introducing the Huber mechanism for differentially private
// low-rank matrix completion"): i.i.d. noise s·T added to every coordinate,
// where T has density
//
//	p(t; α) = κ_α · exp(−ρ_α(t)),
//	ρ_α(t)  = t²/2            for |t| ≤ α,
//	          α(|t| − α/2)    for |t| > α,
//
// the Huber loss: a Gaussian centre with exponential tails. Because ρ_α is
// α-Lipschitz, the mechanism gives pure ε-differential privacy with
// ε = α·Δ₁/s for a statistic of ℓ1 sensitivity Δ₁. The paper states the case
// s = 1; the scale s > 0 is this package's generalization.
//
// What is here:
//
//   - New builds the mechanism; Sample draws exactly from the distribution
//     (a mixture of a standard normal truncated to [−α, α] and two shifted
//     exponential tails ±(α + E/α), E ~ Exp(1)), fast at every α.
//   - PDF, LogPDF, CDF, Kappa and UnitVariance are closed forms via erf.
//   - Loss (ρ_α) and Influence (ψ_α, its derivative) are the functions the
//     IRLS solver uses for its weights.
//   - AlphaForVariance and ScaleForEpsilon calibrate the mechanism both
//     ways: α from a target variance at s = 1 (the paper's knob), and s from
//     a target ε at a given α.
//
// No Go library offers this distribution, so it is written here in full.
//
// At s = 1 the variance exceeds 1 for every finite α and tends to 1 as
// α → ∞; that is why the paper uses α = 3 (variance 1.0036) for "variance 1".
package huber
