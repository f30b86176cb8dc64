// Package accounting bounds the total privacy loss of k releases of one
// noise mechanism — the k noisy iterations of a solver — as an (ε, δ)
// differential-privacy guarantee, with five accountants of increasing
// tightness, and calibrates the noise to a target total.
//
// # How the parts fit
//
// A release adds fresh i.i.d. noise of a noise.Mechanism to every
// coordinate of a statistic of sensitivity noise.Sensitivity.
// Compose(m, s, k, δ) runs every accountant and returns Totals, one
// Total{Epsilon, Delta, Accountant} per accountant, each on its own a valid
// upper bound at the target δ; Totals.Tightest picks the smallest ε.
// Calibrate bisects a noise parameter (σ, a Laplace scale b, or a Huber
// scale s at fixed α) for the smallest one that meets a target (ε, δ). The
// accountants are also exported one by one — Basic, KOV, DRV, RDP, PLD —
// with the curves behind them: KOVDelta, RenyiDP and PLDDelta.
//
//   - Basic: ε and δ add up. Pure mechanisms (Laplace ε₀ = Δ₁/b, Huber
//     ε₀ = α·Δ₁/s) give (k·ε₀, 0); the Gaussian spends δ/k per release at
//     its exact analytic ε₀ (Balle & Wang 2018) and gives (k·ε₀, δ).
//   - KOV: the optimal composition theorem of Kairouz, Oh & Viswanath
//     (Theorem 3.3), evaluated for every ε in the form of Murtagh & Vadhan
//     (Theorem 1.5), in log space and with a Hoeffding-bounded truncation so
//     that k in the millions is cheap, inverted by bisection.
//   - DRV: the advanced composition theorem of Dwork, Rothblum & Vadhan,
//     ε = √(2k ln(1/δ′))·ε₀ + k·ε₀(e^{ε₀} − 1) at total δ = δ′ + k·δ₀.
//     KOV and DRV treat the Gaussian as (ε₀, δ₀)-DP per release with
//     δ₀ = δ/(2k) at its analytic ε₀ and leave δ′ = δ/2 (slightly more for
//     KOV) to the theorem; both report basic composition's ε instead where
//     that is smaller, which is still a valid bound.
//   - RDP: Rényi DP (Mironov 2017) on the grid Orders (1.05 … 256, 512,
//     1024). The Gaussian curve α·Δ₂²/(2σ²) and the Laplace curve
//     (Mironov, Proposition 6) are exact closed forms; the Huber curve is a
//     quadrature (below). k releases compose to k·ε(α), converted to (ε, δ)
//     with the conversion of Canonne, Kamath & Steinke (2020, Proposition
//     12), ε = k·ε(α) + log((α−1)/α) − (log δ + log α)/(α−1), which is
//     valid and never worse than the classic log(1/δ)/(α−1).
//   - PLD: the privacy-loss distribution, discretized, composed by FFT and
//     read off as δ(ε) = E[(1 − e^{ε−L})₊] + P(L = ∞). The tightest, and
//     exact up to the controlled error described below.
//
// An accountant that does not apply leaves its field nil and says why in
// Totals.NotApplicable: a mechanism this package does not know in detail
// (any other noise.Mechanism) gets Basic, KOV and DRV from its
// per-release Guarantee, but no RDP or PLD.
//
// # Sensitivity and the worst case
//
// The Gaussian uses Δ₂: by rotation invariance the worst neighbouring pair
// is exactly the one-dimensional shift by Δ₂/σ. Laplace and Huber use Δ₁
// and treat the worst case as the whole of Δ₁ in one coordinate. For
// Laplace that is the known dominating pair. For Huber it was checked
// numerically (worstcase_test.go): spreading Δ₁ over 2, 3 or 4 coordinates
// in several proportions, for α from 0.05 to 10 and Δ₁/s from 0.05 to 10,
// never gives a larger Rényi divergence at any order of the grid (the sum
// over coordinates stays below the one-coordinate value; the largest ratio
// seen is 0.99985, near pure DP), and the pessimistic PLD of every split
// stays below the exact privacy curve of the one-coordinate shift at every
// ε tested where δ ≥ 1e-9 (largest ratio 0.999995; a certificate, as the
// split side is an upper bound). The same holds for Laplace. So the
// one-coordinate shift is used for Huber too; it is a numerical finding
// over that grid, not a proof.
//
// Both neighbouring directions (adding or removing a point, i.e. shifting
// by +Δ or −Δ, and P‖Q against Q‖P) give the same privacy curves for these
// symmetric noises, by the reflection t ↦ Δ − t; RenyiDP computes both
// directions for Huber anyway and takes the larger.
//
// # Huber Rényi divergence
//
// The log-density of Huber noise is minus a piecewise quadratic (ρ_α), so
// the integrand of D_a(P‖Q) = 1/(a−1)·log ∫ p^a q^{1−a} is the exponential
// of a piecewise quadratic with linear tails. The tails are integrated
// exactly; each finite piece is split where its exponent varies by more
// than 12 and integrated with 16-point Gauss–Legendre nodes (gonum's
// quad.Legendre), accumulated in log space. Against Mironov's closed form
// for Laplace noise through the same code, and against the Gaussian limit
// α → ∞, the error in log ∫ is below 1e-11; a relative margin of 1e-10 is
// added so that the result is an upper bound, and it is capped by the
// pure-DP bounds ε₀ and a·ε₀²/2 (Bun & Steinke 2016).
//
// # PLD: discretization, composition and its error
//
// The privacy loss of one release, L(t) = log p(t) − log p(t − Δ), is
// non-increasing in the noise value t for these log-concave noises, so the
// distribution of L follows from the noise CDF at the points where L crosses
// each grid value (closed-form roots on each quadratic piece). Instead of
// rounding every loss up to the next grid point, each loss in
// (l_j, l_j + h] is split between the two grid points so that both its P
// mass and its Q mass E_P[e^{−L}] are kept — the "connect the dots"
// discretization of Doroshenko, Ghazi, Kamath, Kumar & Manurangsi (2022),
// the default of Google's dp_accounting. Its privacy curve is the linear
// interpolation in e^ε of the true curve at the grid points, which lies
// above the true curve because δ is convex in e^ε; dominance of every
// single release implies dominance of the composition (Dong, Roth & Su
// 2022), so the result is pessimistic like rounding up, with an error
// O(h²) per release instead of O(h). The Gaussian's unbounded loss is cut
// where the noise tail is below 1e-25: the upper part goes to an
// infinite-loss atom (counted fully in δ), the lower part is rounded up.
// The grid width h is the composed distribution's Chernoff window divided
// by 2¹⁶ (times √(k/1000) for k > 1000, at most 4 times), and for Laplace
// and Huber it divides ε₀ so that their atom at ε₀ sits on the grid. The
// cap bounds the FFT at 2¹⁹ points (about 20 MiB) for any k; beyond
// k = 16 000 h grows like √k, which keeps the figure an upper bound (the
// discretization is pessimistic at any h) but looser, by about k·h²/8 in
// ε: against the exact k-fold Gaussian at k = 685 000 the ε is at most
// 4.6e-4 relative above the truth (1e-4 with the earlier cap of 16 times,
// whose FFT took 80 MiB), and the paper report's discrete Huber figure
// for 685 000 releases went from 6 863 341 to 6 865 174 (+2.7e-4).
//
// The k-fold composition is one FFT (gonum's dsp/fourier), raised to the
// k-th power, and one inverse FFT, on a window that holds all but 1e-20 of
// the (tilted) composed distribution by a Chernoff bound. Mass above the
// window would wrap round to low losses, so a Chernoff bound on it is added
// to δ; mass below wraps to higher losses and only raises δ. The
// distribution is exponentially tilted by e^{θ·l} before the FFT and
// untilted after, with θ chosen so that the composed distribution is
// centred near the answer; this keeps the FFT's error relative to δ rather
// than absolute, so δ of 1e-12 and below stay accurate. A bound on the
// floating-point error of the FFT (√N·(5 log₂N + 2)·(k+1) units in the
// last place, Higham's bound with a safety factor) is added to δ as well.
// Every approximation therefore only raises δ(ε), and the ε returned is at
// least the true one. δ down to about 1e-55 is resolved; below that the
// Gaussian's truncation atom dominates and PLD reports not applicable,
// while pure mechanisms fall back to ε = k·ε₀, where δ is exactly 0.
//
// Accuracy, measured in the tests: against the exact k-fold Laplace curve
// (k ≤ 10) and the exact k-fold Gaussian (k up to 30000), the PLD ε is
// never below the truth and above it by at most 1e-7 relative for the
// Laplace cases and 4e-5 for the Gaussian ones (k = 1000), and 4.6e-4 at
// k = 685 000 (TestPLDGaussianExactLargeK); the tests allow 1e-5 and 1e-3. Google's dp_accounting test value
// δ(3) = 0.00153 for 400 releases at σ = 20 is reproduced, and so is
// Balle & Wang's σ ≈ 3.73 for one release at (1, 1e-5). Compose takes
// 20–40 ms for k = 1 or 1000 on one core and Calibrate 0.3–0.8 s (see
// BenchmarkCompose and BenchmarkCalibrate).
//
// # Discrete mechanisms
//
// The mechanisms of package discrete draw integer noise on a grid γℤ and
// release grid-rounded statistics. Their privacy losses for a shift by d
// whole grid units are integer multiples of 1/Denom — (|y−d| − |y|)/t for
// the discrete Laplace, ((y−d)² − y²)/(2S) for the discrete Gaussian and
// (R(y−d) − R(y))/(2τ²) for the discrete Huber, R(j) = 2τ²·ρ_α(j/τ) an
// integer — so their privacy-loss distribution lives on a lattice.
// LatticePLD holds it exactly: DiscreteLaplacePLD, DiscreteGaussianPLD and
// DiscreteHuberPLD enumerate every output whose probability float64 can
// hold (tails beyond e^{−745} of the mode, bounded by a geometric series,
// go to the +∞ atom), Compose convolves the integer indices exactly and
// Delta reads δ(ε) off. Against brute-force sums over all pairs of outputs
// of two releases they agree to 1e-9 relative (lattice_test.go).
// Enumeration limits them to small scales in grid units (up to
// MaxLatticePoints points); the grids discrete chooses have 2⁴⁰ points
// per Laplace or Huber scale and S ≈ 2⁵⁶ for the Gaussian.
//
// At those grids Compose, PLD and PLDDelta use a pessimistic lattice
// distribution instead. Compose takes the sensitivity after rounding
// (discrete.RoundedSensitivity; ComposeDiscrete and CalibrateDiscrete do
// the rounding for a given number n of changed coordinates and report its
// cost as a GridCost). Basic, KOV and DRV compose the per-release
// Guarantee; RDP uses, for the discrete Gaussian, its Rényi curve, at most
// the continuous one a·Δ₂²/(2σ²) (Canonne, Kamath & Steinke 2020,
// Theorem 14; also discrete.Gaussian.ZCDP), and for the discrete Laplace
// and Huber the pure-ε bounds min(ε₀, a·ε₀²/2).
//
// # Discrete PLD at any grid: construction and why it is an upper bound
//
// The loss L(y) = w(y) − w(y − d) of output y (w the log-weight of the
// noise, d = ⌈Δ′/γ⌉ grid units) is non-increasing in y for these
// log-concave noises, and linear in y on each run where both weights are
// of one kind (geometric or Gaussian-shaped): linear everywhere for the
// Gaussian, constant in the tails and linear in between for Laplace, with
// quadratic joins for Huber. On the loss grid {j·h} (h as for the
// continuous mechanism, dividing ε₀ for the pure ones) the outputs are cut
// into runs of consecutive y whose losses all lie in one bucket
// (l_{j−1}, l_j], found by bisection on y with upper and lower bounds on
// L(y) (exact integer arithmetic for Laplace; products of exact integers,
// with a bound on their rounding error, for the others). For each run:
//
//   - its P-mass Σ e^{w(y)}/Z is replaced by a lower bound: geometric
//     series in closed form (Laplace, Huber tails); for Gaussian-shaped
//     runs (Gaussian, Huber core) the Euler–Maclaurin formula to second
//     order with its remainder bound, (b − a)/720·max|f⁗|, below 1e-22 of
//     the sum at the production grids (S, τ² ≥ 2⁴⁰; smaller grids are
//     summed term by term), with the integral ∫ e^{−v²} by 16-point
//     Gauss–Legendre on pieces of width ≤ 1/2 (remainder below 1e-22
//     relative); Z is bounded above (Laplace in closed form, the Gaussian
//     by Poisson summation, √(2πS)·(1 + 2e^{−2π²S}/(1 − e^{−2π²S})),
//     Huber by the same sums). Each closed form is widened by a relative
//     2e-15 plus 1e-15 per unit of exponent for floating-point error.
//   - its mass is split between l_{j−1} and l_j so that a lower bound on
//     its Q-mass Σ P(Y = y − d) is kept ("connect the dots", Doroshenko et
//     al. 2022), or all put on l_j (rounding up, kept for tests and where a
//     run's losses are not certified to lie inside the bucket).
//
// Whatever the lower bounds miss, 1 − Σ, goes to the +∞ atom; so do the
// discrete Gaussian's outputs below −11√S (probability < 2·10⁻²⁸), and
// all outputs beyond the point where the P-mass of the rest falls below
// 10⁻²⁵ (which keeps huge per-release losses cheap), while the Gaussian's
// outputs above +11√S are rounded up to the bucket of L(11√S + 1). The
// split uses the floating-point grid points themselves and moves an extra
// (2·10⁻¹⁵ + 5·10⁻¹⁶·|l|) of each run's mass up, for the rounding of
// e^{l}. A run whose loss bounds straddle a bucket edge (bucket narrower
// than the loss's rounding error) is rounded up instead of split.
//
// Why the result dominates: write the true distribution of L under P as a
// sum over runs μ_r. (i) Replacing μ_r by λμ_r (λ = lower bound / true
// mass ≤ 1) and moving (1 − λ)μ_r to +∞ increases E[(1 − e^{ε−L})₊] for
// every ε, as (1 − e^{ε−l})₊ is non-decreasing in l. (ii) On a run with
// losses in [l_{j−1}, l_j], (1 − e^{ε}u)₊ is convex in u = e^{−l}, so the
// two-point law on e^{−l_j}, e^{−l_{j−1}} with the same mean of u (the
// run's Q-mass) gives a larger expectation (Jensen); using a lower bound
// on the Q-mass moves more mass to l_j, larger still. (iii) Rounding up is
// the same with all mass on l_j. So δ̂(ε) ≥ δ(ε) for every real ε, and
// the total Q-mass Σ e^{−l}·p only decreases, so the result is the
// privacy-loss distribution of a pair of distributions that dominates the
// true pair; dominance of each release implies dominance of their
// composition (Zhu, Dong & Wang 2022; Dong, Roth & Su 2022). The FFT
// composition then adds only upward errors (above). Rounding up alone
// would cost up to k·h in ε; connecting the dots costs O(h²) per release.
//
// Measured (discretepld_test.go): on small grids the k-fold result is
// never below the exact LatticePLD δ(ε) and at most the exact δ(ε − k·h)
// plus k times the +∞ atom (at most 1e-13 per release) plus 1e-12, for
// Laplace, Gaussian and Huber at k = 1 and 4, both rounding rules; ε at a
// target δ is never below the exact lattice ε; δ̂ falls in ε and grows
// with d. At the production grids the ε matches the continuous
// mechanism's PLD to 1e-6 relative at δ = 1e-5 (k = 1, 100), and δ(ε) is
// within [1 − 1e-9, 1 + 1e-6] of the continuous δ plus k·1e-14. The +∞
// atom (about 5e-15 per release at those grids) is a floor on δ: at
// k = 100 and δ = 1e-8 it makes ε 21.104391 for the discrete Laplace at
// b = 3, Δ₁ = 1, against 21.104369 for the continuous one; the test
// allows 1e-5 relative there and measures 1.0–1.8e-6 (go test -v -run
// ConvergesToContinuous).
//
// Cost (BenchmarkDiscretePLD, medians of 6 runs on a shared 2-core
// machine, ±10–90 %): building one release's distribution takes 65–165 ms
// for k = 1 (about 2¹⁶ buckets, each a bisection on y and two mass
// bounds) and 0.8–4.3 ms for k = 1000 (a coarser grid); the whole PLD
// accountant 75–460 ms for k = 1 and 40–80 ms for k = 1000, against
// 30–75 ms for the continuous mechanisms' Compose.
//
// Worst case over coordinates: PLD uses the one-coordinate shift by
// ⌈Δ′/γ⌉ units. For a change of one coordinate that is exact. For the
// discrete Laplace and Huber a shift spread over two coordinates was never
// worse in the exact lattice check of TestDiscreteSplitShifts (a numerical
// finding, as for the continuous Huber). For the discrete Gaussian it can
// be: the shift (3, 4) at S = 25 gives up to 1.13 times the δ of the shift
// 5 in one coordinate. So Compose applies PLD to the discrete Gaussian
// only through ComposeDiscrete (and CalibrateDiscrete) with n = 1, and
// reports it not applicable otherwise; RDP still covers it.
//
// # Why this is written here
//
// No well-kept Go library does PLD or RDP accounting: Google's
// differential-privacy library keeps its accountants in Python
// (dp_accounting) and C++, OpenDP is Rust, and Opacus and autodp are
// Python. Only the FFT and the Gauss–Legendre nodes come from gonum.
package accounting
