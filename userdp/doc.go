// Package userdp trains recommendation models with user-level
// differential privacy that are worth using: a noisy global mean, noisy
// item biases and (optionally) noisy item factors are released; each user
// computes their own bias and factor from the release and their own
// ratings (the billboard model of Chien et al. 2021), so every prediction
// is joint-DP and nothing per user is ever released.
//
//	opts := userdp.Defaults(epsilon, 1e-6, 1, 5) // rule documented on Defaults
//	res, err := userdp.Train(ctx, train, opts)   // res is the release
//	users := res.FoldInAll(train)                // each user's local part, for evaluation
//
// # What is released, and its sensitivity
//
// The privacy unit is one user with all of the user's ratings. Each user
// contributes at most MaxItemsPerUser ratings (a uniform random subset
// beyond that) to the releases; with n such ratings the user's weights
// have ℓ2 norm 1. Every release is Gaussian; Δ₂ is the ℓ2 norm of one
// user's whole contribution:
//
//   - global mean (unless a public Center is given): Σ_users (m_u − mid),
//     m_u the user's mean contributed rating and mid the scale's midpoint,
//     Δ₂ = (max − min)/2; and the number of users, Δ₂ = 1.
//   - item counts: each user adds 1/√n to each contributed item, so the
//     count vector moves by (Σ 1/n)^½ = 1 in ℓ2.
//   - item bias sums: each user adds (1/√n)·clip(x − μ − β_u, ±B_b) to
//     each released item, β_u the user's own shrunk mean offset;
//     Δ₂ ≤ B_b·(Σ 1/n)^½ = B_b. The released bias is
//     b_j = m_j + (S̃_j − W̃_j·m_j)·W̃_j / (W̃_j² + λ_b·W̃_j + σ_S²/τ_b²):
//     the Bayes estimate under a N(m_j, τ_b²) prior when both S and W
//     carry Gaussian noise, whose mean m_j = b₀ + b₁·ln max(W̃_j, 1) is a
//     line fitted to the released sums and counts (Plan.FitBiasTrend,
//     empirical Bayes: popular items are rated higher, so a zero mean
//     pulls a noisy niche item's bias the wrong way; NoBiasTrend: m_j = 0);
//     S/(W + λ_b) without noise. Both are post-processing.
//   - under private selection, the tail: two more coordinates of the
//     bias release, Σ_users w_t·clip(d̄_t, ±B_b) and Σ_users w_t·B_b, where
//     d̄_t is the user's mean deviation over the contributed ratings of
//     items that were not released and w_t = ((n − n_rel)/(2n))^½ for n
//     contributed ratings of which n_rel are of released items. The
//     released-item terms use n_rel/n of the user's unit ℓ2 budget and the
//     two tail terms at most 2·w_t² = (n − n_rel)/n, so the whole bias
//     release still has Δ₂ ≤ B_b (attained; TestTailSensitivityAttained).
//     The tail bias — the shrunk ratio of the two — predicts every item
//     outside the release: unreleased items are the unpopular ones,
//     rated below the centre, and without it they were predicted worse
//     than by the global mean.
//   - under private selection with noise, the tail buckets (TailBuckets,
//     default 2¹⁶; tail.go): every item ID hashes to a public bucket
//     (TailBucket), and the bias release also carries two coordinates per
//     bucket, Σ_users w_b·clip(d̄_b, ±B_b) and Σ_users w_b·B_b, d̄_b the
//     user's mean deviation over their unreleased items in bucket b (m_b
//     of them) and w_b = ((1 − a)·m_b/(2n))^½, while the tail's own two
//     terms take w_t = (a·(n − n_rel)/(2n))^½ (a = TailAggregateShare =
//     0.1). The squares still add up to (n − n_rel)/n, so Δ₂ ≤ B_b
//     (attained with one or several buckets;
//     TestTailBucketSensitivityAttained). All buckets are released,
//     occupied or not. A bucket's bias, shrunk towards the tail bias, and
//     its released weight (in count units) give every unreleased item in
//     it an item bias and feature columns, in the fold-in and in
//     predictions (Result.BucketBias, BucketV, TailIndex, ScoreTail).
//     Items in a bucket share it; that costs little, and it is the price
//     of not naming them. The factors are fitted before the buckets join
//     the model, with the tail bias for every unreleased item.
//   - with Rank > 0, a start and ALS steps. Factor-step weights are
//     w_j ∝ a_j over the user's head items with ‖w‖₂ = 1 (a_j = 1, or
//     n̂_j^(−β) with adaptive weights — the allocation that minimizes the
//     popularity-weighted noise variance Σ_j n_j·σ²/W_j² subject to
//     Σ_users ‖w‖² ≤ users is w_j ∝ n_j^(−½)); user factors are clipped to
//     ‖ũ‖ ≤ C and residuals to ±B_r. The head (Plan.Head) is the
//     released items whose count reaches HeadNoiseRatio·σ_G/C² (and
//     TailCount), at most HeadItems. The start releases M = Σ_u z zᵀ
//     over the StartItems
//     most popular head items (Plan.StartHead), z_j = w_j·((1 − a)·r̃_j +
//     a·B_r) with the weights renormalized over those items and a the
//     StartRatedWeight (¼: the fact of rating mixed into the residual, so
//     that M also holds which items users rate together); each term lies
//     in [−B_r, B_r], so Δ₂ ≤ ‖z‖² ≤ B_r², attained by a user whose
//     residuals all reach +B_r. Each
//     ALS step releases every head item's Gram
//     matrix Σ w ũũᵀ (lower triangle; Δ₂ ≤ C²·‖w‖₂ = C²) and right-hand
//     side Σ w r̃ ũ (Δ₂ ≤ B_r·C). Items are solved by ridge regression with
//     λ_j = λ·Ŵ_j + σ_G√r + κ·σ_h², the shift raised until the noisy matrix
//     is positive definite (post-processing).
//   - the feature columns (with or without factors): after the ALS steps
//     V gains the popularity column s·ln(max(W̃_j, n₀)/n₀) of the released
//     counts (Options.PopularityScale; n₀ half the selection threshold, 1
//     with a catalogue or without noise) and the item-bias column
//     c·(b_j − b_tail) of the released biases (Options.BiasColumnScale;
//     Plan.AppendFeatures), so each user's fold-in fits a coefficient on
//     each: the user's own lean towards popular or niche items and own
//     scale on the crowd's view of an item, which real ratings have and a
//     bias cannot express. They read released values only: no Δ₂, no
//     budget. Result.Features names them, Result.LearnedRank counts the
//     learned columns.
//
// The Gram/right-hand-side split (Shares.Gram) follows from the error of
// the ridge solve v = (G + λI)⁻¹h: to first order the noise moves v by
// (G + λI)⁻¹(η_h − η_G·v), whose variance is proportional to
// σ_h² + σ_G²‖v‖². With σ_G² = T·C⁴/(s_G·μ²) and σ_h² = T·B_r²C²/(s_h·μ²)
// and s_G + s_h fixed, the minimum is at s_G/s_h = C·‖v‖/B_r — the same at
// every ε. At the scale the clips set (|uᵀv| ≤ B_r with ‖u‖ ≤ C, so
// ‖v‖ ≈ B_r/C) that is s_G = ½, the default; on the realistic generator
// (6 040 users, ε = 5 and 20) test RMSE moved by less than 0.002 between
// s_G = 0.3 and 0.7.
//
// Each user's own quantities (β_u, factor, the choice of subset) depend
// only on the release so far and the user's own data, so the bounds hold
// whatever they are, and the steps compose adaptively.
//
// # The ranking objective
//
// With Options.Objective = ObjectiveRanking the pipeline releases a top-k
// ranking model (Result.Ranking) instead of a rating model. A rating
// ≥ Options.Positive is a positive (default min + 0.75·(max − min), 4 on
// 1–5; math.Inf(-1) for implicit data, where every pair is a positive);
// x_u is user u's 0/1 vector of positives. Each user contributes at most
// MaxItemsPerUser positives (a uniform random subset beyond, keyed by the
// user's ID as Subset is). The releases, in this order:
//
//   - the number of users with a positive, Δ₂ = 1 (share Shares.Mean);
//   - positive counts c_j = Σ_u x_uj/√n_u over the user's n_u contributed
//     positives: one user's vector has n_u entries 1/√n_u, so
//     Δ₂ = (n_u·1/n_u)^½ = 1, attained by every user with a positive.
//     Under private selection an item is released only if its noisy
//     count clears the threshold of the rating pipeline (an item only one
//     user has a positive for has count 1/√n_u, and there are at most n_u
//     of them: the same δ_sel bound);
//   - the Gram over the M head items — the M released items with the
//     highest noisy counts, a function of the release so far: the upper
//     triangle, diagonal included, of G = Σ_u ω_u·x_u·x_uᵀ restricted to
//     the head, ω_u = √(2/(m_u(m_u + 1))), m_u the number of the user's
//     contributed positives in the head (at most
//     Ranking.MaxHeadPositives, a random subset beyond, which bounds the
//     cost by Σ m_u²). One user changes exactly m_u(m_u + 1)/2 entries,
//     each by ω_u, so Δ₂ = (m_u(m_u + 1)/2·ω_u²)^½ = 1, attained by every
//     user with a positive in the head. (The Frobenius-normalized
//     x xᵀ/‖x‖² would give (m_u + 1)/(2m_u) in the triangle: up to twice
//     less signal per unit of noise for short histories.)
//
// TestRankingSensitivityAttained checks both on neighbouring data sets —
// a user with many positives (subset and head cap drawn), with one
// positive, with positives only on items nobody else rated — and that no
// move exceeds the calibrated Δ₂′ the report lists.
//
// Budget: of the ρ left after the number of users, the counts get s_C
// (Ranking.CountShare: 0.2 with a public catalogue, 0.5 under private
// selection, where the counts also choose the items) and the Gram 1 − s_C.
// Under private selection, if ñ/σ_G < 200 (ñ the released number of
// users, σ_G the Gram's noise at that split) the Gram is not released:
// the whole rest goes to the counts and the model ranks by noisy
// popularity, which the report says (on MovieLens 100k u1 that is ε = 1).
// The head size is M = clamp(round(4.8·(ñ/σ_G)^0.6), 50, 1000), at most
// the number of released items (1000 without noise). All of these depend
// on released numbers and public options only; the releases compose
// adaptively.
//
// Post-processing: Ĝ = G + noise is eigendecomposed; with Wigner noise of
// entry variance σ_G² the noise's spectrum ends near 2σ_G√M, and a spike
// of strength θ shows as an eigenvalue λ = θ + Mσ_G²/θ whose eigenvector
// has squared cosine 1 − Mσ_G²/θ² with the true one (Benaych-Georges &
// Nadakuditi 2011). The model keeps the k ≤ 16 eigenvectors V_k with
// λ > 2σ_G√M and weights each by w_c = max(0, 1 − Mσ_G²/θ_c²),
// θ_c = (λ_c + √(λ_c² − 4Mσ_G²))/2 (without noise: k = 16, w = 1).
// A user ranks locally (billboard; RankScores): with x the 0/1 vector of
// all the user's rated head items (not only positives), h = V_kᵀx, head
// item j scores Σ_c V_jc·w_c·h_c; then come the other released items by
// noisy count, then unreleased items; the user's own items are excluded.
//
// Measured on MovieLens 100k u1 (δ = 10⁻⁶, public catalogue, median of 5
// unseeded runs; TestRankingMeasureMovieLens): NDCG@10 0.277 / 0.321 /
// 0.368 / 0.390 at ε = 1 / 2 / 5 / 10, 0.397 without noise; the noisy
// popularity of the same release 0.21–0.24. Under private selection
// 0.232 (the fallback: noisy popularity) / 0.304 / 0.361 / 0.383.
//
// # Items: catalogue or private selection
//
// With Options.Items (a public catalogue) the model has exactly one row
// per catalogue item, whatever the data; an item nobody rated gets
// noise-only statistics and falls back to a zero bias. Ratings of other
// items are dropped and counted (evaluation only). Without a catalogue an
// item is released only if its noisy count W̃_j reaches a threshold τ
// (Gaussian partition selection), and only items that at least one
// contributed rating reaches are candidates: an item that exists only
// because of one user then has count 1/√n for that user's n contributed
// items, so the chance that any of them is released is at most
// δ_sel = max_n n·P[1/√n + N(0, σ²) ≥ τ], and τ is set so that δ_sel is
// SelectionDelta·δ (an item reached only by ratings outside a user's
// subset, or only in a held-out split, is never a candidate). Released items are listed
// in a canonical ID order (never in file order, which is data).
//
// # Accounting
//
// By default (Options.Sampler = SamplerDiscrete) every release rounds its
// statistic to a grid γℤ (γ a power of two, about 2⁻²⁸σ) and adds γ times
// an exact discrete Gaussian integer (package discrete), so every noisy
// statistic (the sums, counts and matrices listed above) is a multiple of
// its release's γ and no floating-point pattern of the noise reaches it.
// μ, the biases and V are computed from the noisy statistics
// (post-processing: shrinkage, solves, normalization), so they are not
// multiples of γ, and they need not be. Rounding moves each of the n coordinates a user can
// change by less than γ more, so each release is calibrated and reported
// at Δ₂′ = Δ₂ + γ√n. A discrete Gaussian release is (Δ₂′²/(2σ²))-zCDP
// (Canonne, Kamath & Steinke 2020, Theorem 14) — not exactly GDP — and
// zCDP adds up over adaptively chosen releases; the total ρ is converted to
// (ε, δ − δ_sel) by their Proposition 12 (RhoFor, discrete.ZCDPEpsilon).
// The budget is planned exactly as below with μ = √(2ρ), each release's
// share of μ² being its share of ρ; at δ = 10⁻⁶ this costs 5–7 % more
// noise than the exact GDP curve. The selection threshold is raised by 2γ:
// a lone user's count 1/√n rounds up by at most γ/2, and the discrete
// Gaussian's tail P[K ≥ m] is at most the normal's P[N(0, σ_K²) ≥ m − 1]
// (by Poisson summation its normalizer is at least σ_K√(2π)).
//
// Every released sum is exact and order-free (package
// internal/exactsum): each user's term is truncated toward zero to a
// fine grid g = 2^e fixed by the options (the largest power of two with
// the term's bound B at most 2⁶²·g: B = (max − min)/2 for the mean, 1
// for counts, weights and the ranking Gram, B_b for bias sums and the
// tail, B_r² for the start, C² for Gram entries, B_r·C for right-hand
// sides; the numbers of users and of ratings are integers, on the grid
// 1) and added as a 128-bit integer. The sum of a set of terms is
// then one integer whatever the order of the additions and whatever the
// partition into partial sums (a Beam combiner's), and no float64
// rounding error sits between the data and the noise — it used to, about
// 10⁻¹¹ at MovieLens-1M scale and growing without bound with the number
// of users, outside Δ₂′. Truncation toward zero never raises a term's
// magnitude, so a user's vector of truncated terms has ℓ2 norm at most
// Δ₂ and the exact sum has the real sum's sensitivity: Δ₂′ = Δ₂ + γ√n as
// above, with nothing added for g (rounding to nearest would have added
// (g/2)√n). The discrete sampler rounds the exact sum to γℤ in integers,
// half to even (exactly, whatever γ and g; γ ≥ 2·2⁻⁶²Δ₂ is checked when
// calibrating, as γ ≈ 2⁻²⁸σ); the float sampler adds its noise to the sum's correctly
// rounded float64 value. The sum differs from the real sum of the terms
// by at most g per term (N·g ≤ N·2⁻⁶²·B for N users, below 2⁻³⁰B for a
// billion), which is accuracy, not privacy. A term that is not finite, or
// beyond 2¹²⁶ grid units, or an overflow of the 128-bit integer (not
// before 2⁶⁴ terms), is an error, never a wrap.
//
// With SamplerFloat (seeded experiments only) a Gaussian release with
// sensitivity Δ₂ and noise σ is μ-GDP with
// μ = Δ₂/σ (Dong, Roth & Su 2019), and adaptive composition of Gaussian
// mechanisms is exactly √(Σμᵢ²)-GDP, whose (ε, δ) curve is the Gaussian
// mechanism's own (Balle & Wang 2018). The pipeline finds the μ that meets
// (ε, δ − δ_sel) and gives each release the share of μ² that Options.Shares
// says. The report lists every release with Δ₂, σ and μ.
//
// With either sampler, private selection adds δ_sel/(1 − δ_sel): the noise
// on the extra user's own items (those only that user contributes to) is
// independent of everything else, so with the user the output is a mixture
// (1 − p)·Q + p·R of the output without those items — distributed as the
// neighbour's, up to the other releases' own (ε, δ) — and outputs that
// list one of them, p ≤ δ_sel; the hockey-stick divergence then grows by
// at most p in the addition direction and p/(1 − p) in the removal
// direction.
//
// The guarantee holds for unseeded runs (every draw from crypto/rand, or
// from streams keyed by a run key: Plan.SetKey) and for options chosen
// without looking at the data. Seeded runs are for experiments and say
// so.
//
// # The noise key and its lifetime
//
// A caller's key (Plan.SetKey: 256 secret bits from crypto/rand) is never
// used as it is: each run's key is HMAC-SHA-256(key, domain ‖ nonce) with
// a launch nonce of 256 fresh bits from crypto/rand, drawn at every
// SetKey. So a key may be reused: two runs with one key (on the same or
// on neighbouring data) carry independent noise, and the difference of
// their releases is not the difference of their data
// (TestReusedKeyDoesNotCancel). The nonce lives for one run: the workers
// of a distributed run share it (Plan.SetLaunchKey, with the nonce its
// launcher drew once) so that all of them, and every retried bundle,
// draw the same noise; no nonce may serve two runs. Whoever holds the key
// and the nonce of a run can remove its noise, so both stay secret; the
// key may live as long as it stays secret. What the discrete sampler leaves open: the time
// a rejection sampler takes depends on the noise drawn (package discrete).
//
// # Building blocks, and why the release does not depend on data order
//
// Train is a sequence of calls to Plan's exported steps: per user
// (Subset, UserMean, UserBias, FactorWeights, StartTerms, Solver.FoldIn,
// ItemTerm) and per item or global (ReleaseMean, Decide, ReleaseCount,
// Selected, ReleaseBias, ReleaseTail, Head, ReleaseStart, AddItemTerm,
// ReleaseItem, NormalizeRows); the ranking objective's are RankUserTerm,
// HeadPositives and AddGramRow per user, and ReleaseRankUsers,
// AddPositive, NewRanking and ReleaseGramRow per item or global. Every
// sum is an exactsum accumulator, exact whatever the order in which its
// terms and partial sums are added. The Beam pipeline (module
// github.com/dpmc/dpmc/beam) calls the same steps on a cluster. Three
// rules make both release the same numbers bit for bit: each release's
// noise stream is keyed by (phase, step, ID), not by a position; a user's
// ratings are taken in the canonical order of the item IDs (CompareIDs)
// before the contributed subset is drawn and whenever they are summed
// within the user; and every sum over users is exact (Sum, see
// Accounting: AddCount, AddBias, AddTail, AccumulateStart, AddItemTerm),
// so it does not depend on the order of the users or on how the sum is
// split — a Beam combiner merges partial sums in any order. Train
// therefore gives the same release whatever the order of the lines in
// the file and whatever Options.Workers
// (TestReleaseIndependentOfOrderAndWorkers).
package userdp
