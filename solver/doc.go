// Package solver completes a sparse ratings matrix X ≈ U Vᵀ with the paper's
// two noisy alternating solvers:
//
//   - ALS (Algorithm 1): each user row u_i by ridge least squares on the
//     user's ratings, then each item row
//     v_j = (U_Ωⱼᵀ U_Ωⱼ + λI)⁻¹ (U_Ωⱼᵀ x_j + t), with a fresh noise vector t.
//   - IRLS (Algorithms 2 and 3): users as in ALS; each item by R-IRLS, K
//     inner iterations of Huber-weighted ridge least squares with weights
//     w = ψ_c(r)/r and fresh noise added to AᵀWy in every inner iteration.
//     K = 2 is the paper's "IRLS-2".
//
// Noise comes from any noise.Mechanism, or none for the non-private
// baselines. Train reports no privacy guarantee: in the paper's algorithms
// the Gram matrix UᵀWU carries no noise and no user's contribution is
// bounded, so a per-release ε does not describe the trained model. Honest
// accounting is a separate concern.
//
// # User-level privacy of V
//
// With Options.UserLevel set, Train instead protects the released item
// factors V at the level of users, in the billboard (joint-DP) model of
// Chien et al. 2021 ("Private Alternating Least Squares"): V is released;
// each user factor u_i is computed from the public V and user i's own
// ratings only and is never released (Model.U is the users' private part).
// Changes from the paper's mode:
//
//   - Ratings are centred on the public UserLevel.Center c and, for item
//     updates, clipped to [c − B, c + B]; the model predicts c + u_iᵀv_j.
//   - Each user contributes at most k = MaxUserRatings ratings to item
//     updates, a random subset fixed before training. User solves still use
//     all of the user's ratings.
//   - Each user factor enters item updates clipped to ℓ2 norm ≤ C =
//     ClipNorm.
//   - Every item update noises both sufficient statistics with the same
//     mechanism (Options.Noise): the Gram matrix Σ w ũũᵀ (one draw per
//     entry on and above the diagonal, mirrored) and the vector
//     Σ w (x − c) ũ (one draw per coordinate). Then λI is added and the
//     matrix is projected so that its eigenvalues are ≥ λ (equivalently:
//     the noisy Gram matrix is projected onto the PSD cone, then λI
//     added), so the solve is always well posed; this needs Lambda > 0.
//
// A release step is the simultaneous release of every item's (Gram,
// vector): once per sweep for ALS, once per inner iteration for IRLS
// (Options.Releases). It is one application of the mechanism to the
// stacked statistics of all items, whose sensitivity to adding or removing
// one user is UserLevelSensitivity (derived there): every term a user adds
// has ‖ũ‖ ≤ C, |x − c| ≤ B and a weight w ∈ [0, 1], and the user touches at
// most k items. The IRLS weights w = ψ(e)/e of e = (x − c) − ũᵀθ do not leak
// beyond this accounting: w depends only on the item's current iterate θ
// and the user's own rating and factor, and it only scales that user's
// contribution, so the bound holds for any w ∈ [0, 1]; θ is itself a
// post-processing of earlier noisy releases (or of the public V, or of
// data-independent N(0, I) draws), and ũ a function of the public V and the
// user's own data. The steps compose adaptively: the run is Releases()
// mechanism applications at that sensitivity, which an accountant turns
// into an overall (ε, δ). The user factors then satisfy joint DP: u_i is a
// post-processing of V and user i's own data.
//
// All of this holds only with unseeded training (crypto/rand noise and
// selection) and when Center, Bound, MaxUserRatings and ClipNorm come from
// public knowledge, not from the data. With Noise nil, user-level mode is a
// noiseless baseline with the same clipping, centring and cap.
//
// # Execution
//
// Rows are solved in parallel by a pool of workers. With a seed, every row's
// random stream is derived from (seed, iteration, row), so the result is
// bit-for-bit the same whatever the number of workers. Without a seed, noise
// and initialization come from crypto/rand. The user-level contribution
// subsets are drawn from a stream derived from (seed, user).
//
// A row's normal equations are built from a block: the other side's factor
// rows of the row's ratings, gathered into contiguous memory (at most 4 096
// rows at a time), then one symmetric rank-k update for the Gram matrix and
// one matrix–vector product for the right-hand side (package
// internal/dense, on the kernels of internal/asm/f64: AVX2+FMA or AVX-512
// assembly where the CPU has it, plain Go otherwise or with the build tag
// purego). The r × r system is solved by a blocked in-place Cholesky
// factorization that never allocates; a system that is not positive
// definite is an error naming the iteration and row, never NaNs in the
// model. The user-level PSD projection uses gonum's LAPACK eigensolver with
// per-worker workspace, so it does not allocate either.
//
// R-IRLS builds each item's unweighted Gram matrix G₀ once per sweep and,
// since the Huber weight is 1 for every residual within the threshold,
// solves each inner iteration from G₀ and corrections for the few ratings
// with weight below 1 (see irls.go); items with at most r/4 ratings skip
// G₀ and solve in the space of their ratings instead (n × n systems). Both
// give the direct computation's result up to rounding, at little more than
// the cost of ALS plus the inner iterations' residuals and noise draws.
//
// The kernel implementations sum in different orders, so factors differ at
// rounding level between them, and so between a machine with AVX-512, one
// with AVX2 only, and a purego build; on one machine and build a seeded run
// is reproducible bit for bit.
package solver
