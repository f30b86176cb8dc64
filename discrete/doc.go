// Package discrete implements exact discrete noise on a grid γℤ — discrete
// Laplace, discrete Gaussian and discrete Huber — and grid-aligned releases,
// so that no floating-point artefact of a sampler can reveal the data.
//
// # Why
//
// The continuous samplers of packages laplace, gaussian and huber are built
// on math/rand/v2's ziggurat ExpFloat64 and NormFloat64, whose outputs lie
// on a few lattices of spacing about 10⁻⁹ of the scale; x + noise then
// reveals which lattice, and so x, almost surely (Mironov 2012). The
// mechanisms here draw an integer K exactly from a distribution on ℤ using
// only uniform random integers (r.Uint64N, r.Uint64) and return γ·K, and a
// release rounds the statistic to γℤ first: every output is exactly
// γ·(round(x/γ) + K), a function of the integer round(x/γ) + K alone.
//
// # Exact Bernoulli(exp(−x))
//
// Every accept/reject test is a Bernoulli(exp(−x)) trial for a rational
// x = num/den ≥ 0 held in integers (128-bit on the fast path, math/big in
// far tails): exp(−x) = exp(−1)^⌊x⌋·exp(−{x}); each exp(−1) trial and the
// fractional one follow Canonne, Kamath & Steinke (2020, "The discrete
// Gaussian for differential privacy", CKS below), Algorithm 1: count K up
// while Bernoulli(x/K) trials succeed — each the AND of a uniform draw in
// [0, K) being 0 and a uniform draw in [0, den) being below num — and
// answer whether K ends odd; P(odd) = Σ_k (−x)^k/k! = e^{−x}. The integer
// trials stop at the first failure, so a large x costs ≈ 1.6 trials. No
// floating-point operation is involved. BernoulliExp exposes it.
//
// # Samplers
//
// Discrete Laplace, P(K = k) ∝ exp(−|k|·d/n) (CKS Algorithm 2): U uniform
// on [0, n), accepted with probability exp(−U/n), plus n·V with V counting
// successful exp(−1) trials, is geometric with ratio exp(−1/n); ⌊·/d⌋ of it
// is geometric with ratio exp(−d/n); a fair sign, rejecting (−, 0), makes
// it two-sided. Laplace uses d = 1, n = t.
//
// Discrete Gaussian, P(K = k) ∝ exp(−k²/(2S)), S a positive integer (CKS
// Algorithm 3): Y discrete Laplace with scale t = ⌊√S⌋ + 1, accepted with
// probability exp(−(|Y| − S/t)²/(2S)) = exp(−(|Y|t − S)²/(2St²)); at the
// S ≥ 2⁵⁶ used here about 1.32 proposals are needed per sample (measured:
// 1.315–1.319 over 10⁵ samples at σ = 1, 49, 1000).
//
// Discrete Huber, P(J = j) ∝ exp(−ρ_α(j/τ)) with ρ_α the Huber loss of
// package huber (ρ_α(u) = u²/2 for |u| ≤ α, α(|u| − α/2) beyond), τ = s/γ
// and α = a/τ integers over τ. Let c = min(α, 1) and propose J from the
// discrete Laplace P(j) ∝ exp(−c|j|/τ); accept with probability
// exp(−g(|J|/τ)) where
//
//	g(u) = ρ_α(u) − c·u + c²/2.
//
// Then P(J = j accepted) ∝ exp(−c|j|/τ − ρ_α(|j|/τ) + c|j|/τ − c²/2) ∝
// exp(−ρ_α(j/τ)), the target. g ≥ 0 is what makes it a probability:
//
//	α ≥ 1 (c = 1): g(u) = (u − 1)²/2 for u ≤ α and (α − 1)(u − (α+1)/2)
//	               ≥ (α − 1)²/2 beyond;
//	α < 1 (c = α): g(u) = (u − α)²/2 for u ≤ α and 0 beyond.
//
// With y = |j| and a = ατ these are, over the common denominator 2τ²,
// the integers (y − τ)², (a − τ)(2y − a − τ) and (y − a)²: the gap is
// exact. The acceptance rate is Σ_j e^{−ρ(j/τ)} / (e^{c²/2} Σ_j
// e^{−c|j|/τ}); for τ → ∞ (and τ ≥ 2⁴⁰ here) it is
// c·e^{−c²/2}·∫₀^c e^{−u²/2}du + e^{−c²} for α ≤ 1, which falls from 1 at
// α → 0 to 0.887 at α = 1, and (∫ e^{−ρ_α})/(2√e) for α ≥ 1, which falls
// from 0.887 to √(2π)/(2√e) = √(π/(2e)) ≈ 0.760 as α → ∞. So at least 76 %
// of proposals are accepted at every α (TestHuberAcceptance measures it).
//
// Draws with |K| ≥ 2⁶² are redrawn (int64 holds the result). The noise
// scales in grid units are at most 2⁴¹ (Laplace; Huber at α ≥ 1), 2²⁹
// (Gaussian) and τ/α ≤ 2⁴⁹ (Huber at α < 1, α ≥ MinHuberAlpha = 2⁻⁸), so
// this truncation has probability below 2·exp(−2¹³) ≈ 10⁻³⁵⁵⁷; it is the
// only departure from the exact distribution and, as a δ, it is below the
// smallest positive float64 (δ reported as 0).
//
// # The grid
//
// γ is the largest power of two ≤ scale·2⁻⁴⁰ for Laplace (scale b) and
// Huber (scale s), as Google's differential-privacy library does for its
// Laplace noise, and ≤ σ·2⁻²⁸ for the Gaussian, whose acceptance test
// squares numbers of the size S ≈ (σ/γ)² and must stay in 128 bits. The
// scale in grid units is then an integer (the scale rounded up to the grid,
// so the noise only grows, by less than 2⁻⁴⁰ relative), and Huber's α is
// rounded down to a multiple of 1/τ; the accessors report the parameters
// actually used, and the guarantees are computed from them.
//
// # Releases and what the rounding costs
//
// Release (and mechanism.AddNoise, since every type here is a
// mechanism.Granular) sets x_i to γ·(round(x_i/γ) + K_i). If a neighbouring
// change moves at most n coordinates, rounding can move each of them by
// one more γ: the rounded statistic has Δ₁′ = Δ₁ + n·γ and
// Δ₂′ = Δ₂ + γ√n (RoundedSensitivity). The guarantees, from Δ′:
//
//   - Laplace: pure ε-DP, ε = ⌈Δ₁′/γ⌉/t = ⌈Δ₁′/γ⌉·γ/b (δ = 0: a shift by
//     whole grid units keeps the normalizer, so the pmf ratio is at most
//     e^{D/t} for a total shift of D units).
//   - Huber: pure ε-DP, ε = α·⌈Δ₁′/γ⌉/τ = α·⌈Δ₁′/γ⌉·γ/s (ρ_α is
//     α-Lipschitz).
//   - Gaussian: ρ-zCDP with ρ = (Δ₂′/γ)²/(2S) = Δ₂′²/(2σ²) for a release
//     of any dimension (CKS Theorem 14), converted to (ε, δ) by
//     ZCDPEpsilon; the exact (ε, δ) curve of one coordinate (CKS
//     Theorem 7) is accounting.DiscreteGaussianPLD(S, d).Delta(ε) for
//     small S, where it can be enumerated.
//
// With γ ≈ 2⁻⁴⁰·b the rounding costs a factor (1 + nγ/Δ₁) in ε, below
// 1 + 10⁻¹² per changed coordinate at b/Δ₁ ≤ 1; for the Gaussian
// (1 + γ√n/Δ₂) with γ ≈ 2⁻²⁸σ, about 1 + 4·10⁻⁹·√n·σ/Δ₂.
//
// # Speed
//
// Median ns per sample (BenchmarkSample, 6 runs of 10⁵ draws on a shared
// 2.8 GHz Xeon, so ±10–20 %), with a seeded ChaCha8 source / rng.Crypto():
// discrete Laplace 140–155 / 270 at b = 1, 3.7, 100; discrete Gaussian
// 240–330 / 500–525 at σ = 1, 49, 1000; discrete Huber 220–315 / 355–570
// at s = 25.3 and α = 0.05, 1, 3, 40. The floating-point samplers are about
// ten times faster (BenchmarkAddNoise32: 32 Huber draws in 1.0 µs float,
// 10.5 µs discrete with rounding).
//
// # What remains
//
// Rejection sampling takes a random, data-independent number of steps:
// the running time depends on the noise drawn, not on the statistic, but an
// observer who can time individual draws learns something about the noise
// (the Gaussian's and Huber's rejection loops and the geometric loop of
// the Laplace sampler). dpmc does not address timing side channels. The
// output as a float64 is the float nearest γ·(round(x/γ) + K); beyond 2⁵³·γ
// that rounding is still a function of the released integer alone.
//
// Randomness is always injected: pass rng.Crypto() for private releases;
// seeded generators (rng.Seeded) are for experiments and are not private.
package discrete
