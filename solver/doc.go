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
// Noise comes from any mechanism.Mechanism, or none for the non-private
// baselines. Train reports no privacy guarantee: in the paper's algorithms
// the Gram matrix UᵀWU carries no noise and no user's contribution is
// bounded, so a per-release ε does not describe the trained model. Honest
// accounting is a separate concern.
//
// Rows are solved in parallel by a pool of workers. With a seed, every row's
// random stream is derived from (seed, iteration, row), so the result is
// bit-for-bit the same whatever the number of workers. Without a seed, noise
// and initialization come from crypto/rand.
//
// The r × r normal equations are solved by an in-place Cholesky
// factorization (package internal/dense) that never allocates; a system that
// is not positive definite is an error naming the iteration and row, never
// NaNs in the model.
package solver
