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
// mechanisms here draw an integer K exactly from a distribution on ℤ,
// from uniform random words (r.Uint64N, r.Uint64), and return γ·K, and a
// release rounds the statistic to γℤ first: every output is exactly
// γ·(round(x/γ) + K), a function of the integer round(x/γ) + K alone.
// Floating point never makes K: it only answers, inside a proved error
// bound, comparisons that exact arithmetic would answer the same way (see
// "A ziggurat on the grid").
//
// # A ziggurat on the grid
//
// Int draws |K| = Y from P(Y = y) ∝ F(y) = C·exp(−e(y)/D) on y ≥ 0, with
// e(y) an integer, convex and increasing (2y for Laplace, y² for the
// Gaussian, the Huber numerator below) and D a positive integer, then a
// fair sign, redrawing (−, 0) — so P(K = k) ∝ F(|k|). Y comes from a
// ziggurat (Marsaglia & Tsang 2000) rebuilt so that every step is exact:
//
//   - Regions. 254 horizontal strips with integer heights C = h_0 > h_1 ≥
//     … ≥ h_254 ≥ 1; strip k spans y ∈ [0, c_k] and heights (h_k, h_{k−1}],
//     with c_1 ≤ c_2 ≤ … and, for each k, a sure bound s_k ≤ c_k such that
//     F(s_k) ≥ h_k > F(c_k + 1); both inequalities are certified by a
//     rigorous float64 bracket of F (fBounds, below), a few units either
//     side of max{y : F(y) ≥ h_k}, and TestZigTable re-checks them in
//     exact arithmetic. A base: the rectangle [0, c_N] × (0, h_N]
//     (N = 254) and a tail envelope beyond c_N made of blocks b = 0, 1, …
//     of 2^b·L integers starting at c_N + 1 + (2^b − 1)·L, of height
//     h_N·4^{−b}; its area is Σ_b 2^b·L·h_N·4^{−b} = 2L·h_N. The strips
//     and base cover the region under F: a column y ∈ (c_{k−1}, c_k] is
//     covered up to h_{k−1} > F(c_{k−1} + 1) ≥ F(y). The envelope covers
//     the tail because e's increments beyond c_N are at least 2m with
//     m = min(c_N, slope), slope = a for Huber, 1 for Laplace, ∞ for the
//     Gaussian; with L = ⌈D/m⌉, block b starts where F is below
//     F(c_N + 1)·e^{−2(2^b − 1)} ≤ h_N·4^{−b}.
//   - Choosing a region. The areas are integers; a padding region (always
//     rejected; C is chosen to keep it below 0.1 % of the total) makes
//     their sum a power of two, 2^(q+8), and an alias table (Walker 1977;
//     Vose 1991) built in exact integer arithmetic picks region i with
//     probability area_i/2^(q+8) exactly: 8 bits pick a column, and q
//     more, compared with the column's integer threshold, pick its item or
//     its alias (55 of them come with the first word; the rest only on a
//     tie).
//   - A point in the region: y uniform in its columns (r.Uint64N), and a
//     height t uniform in its range, accepted if t < F(y). When y ≤
//     s_{k−1}, F(y) ≥ h_{k−1} ≥ t, so the point is accepted without
//     drawing t — about 98 % of draws end there, after two words. At a
//     strip's edge, or in the tail, t < F(y) is the event U < p =
//     (F(y) − lo)/(hi − lo) for U uniform on [0, 1): p is bracketed in
//     float64 with an error bound proved in the comment of fBounds (a
//     relative (x + 1)·2⁻⁴⁴ on F(y) for x = e(y)/D, 32 times what the
//     roundings and the exponential's error give; TestFBounds checks it
//     against math/big) and U's first 53 bits decide unless they
//     fall inside the bracket, with probability below 2⁻³⁰; then math/big
//     decides, with every rounding directed outwards: e^{−x} is bracketed
//     by partial sums of its series at x/2^s < 1 and s squarings, and U's
//     bits and the bracket's precision grow until they separate
//     (expNegBounds, belowExact; TestZigBelowAgrees places U within a few
//     units of 2⁻⁶⁴ of p, TestZigExactPath runs the law tests through this
//     path alone).
//
// An accepted point is uniform under F, so Y has the law F. Every float64
// step that shapes a table or decides a draw uses basic IEEE-754
// operations only (expNeg and logDet, not math.Exp and math.Log, which
// differ between CPUs), so a table and the draws from given random words
// are the same on every machine (TestTableFingerprints): a retried job
// draws the noise its first attempt drew. The table is built on a
// mechanism's first draw — about 40 µs for Laplace and the Gaussian,
// whose shapes are computed once, and 0.5 ms for Huber — and is
// immutable; should
// it fail to build (no parameters of the constructors do, TestZigTable),
// Int uses the rejection samplers below, which are exact too and remain
// as references.
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
// # Rejection samplers
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
// Draws with |K| ≥ 2⁶² are redrawn (int64 holds the result), and the
// ziggurat also redraws tail points whose exponent e(y)/D is 2²⁰ or more
// (which keeps math/big's exponents in range). The noise scales in grid
// units are at most 2⁴¹ (Laplace; Huber at α ≥ 1), 2²⁹ (Gaussian) and
// τ/α ≤ 2⁴⁹ (Huber at α < 1, α ≥ MinHuberAlpha = 2⁻⁸), so this truncation
// has probability below 2·exp(−2¹³) ≈ 10⁻³⁵⁵⁷ (the second part below
// exp(−2²⁰)); it is the only departure from the exact distribution and,
// as a δ, it is below the smallest positive float64 (δ reported as 0).
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
// Release (and noise.AddNoise, since every type here is a
// noise.Granular) sets x_i to γ·(round(x_i/γ) + K_i). If a neighbouring
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
// Median ns per sample (BenchmarkSample, 6 alternated runs of 2·10⁵
// draws against the rejection samplers, on a shared 2.8 GHz Xeon under
// load, so ±30 % or worse), with a seeded ChaCha8 source / rng.Crypto():
// discrete Laplace 40–44 / 59–81 (rejection sampler 181–202 / 278–310) at
// b = 1, 3.7, 100; discrete Gaussian 40–45 / 60–63 (336–342 / 489–633)
// at σ = 1, 49, 1000; discrete Huber 37–45 / 63–70 (276–370 / 417–518) at
// s = 25.3 and α = 0.05, 1, 3, 40. BenchmarkAddNoise32, 32 Huber draws
// with rounding: 1.75 µs discrete (11.7 µs by rejection), 0.52 µs float.
// Most of a draw's cost from rng.Crypto() is its two crypto/rand words.
// A whole vector through AddNoise (Huber, Gaussian, Laplace) adds the same
// values from the same words as AddTo one at a time, faster from the
// seeded and keyed ChaCha8 streams (vector.go): no interface call per
// word, and no data-dependent branch in the common case; in the paper's
// IRLS run it halved the unseeded run's CPU time (docs/performance.md).
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
// Randomness is always injected: pass a stream of a per-run rng.Keyed
// (keyed from crypto/rand) or rng.Crypto() for private releases; seeded
// generators (rng.Seeded) are for experiments and are not private.
package discrete
