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
// bounded, so a per-release ε does not describe the trained model (package
// paper/privacy reports the paper's figures and says so). User-level
// differential privacy is package userdp's, not this package's.
//
// # Execution
//
// Rows are solved in parallel by a pool of workers. With a seed, every row's
// random stream is derived from (seed, iteration, row), so the result is
// bit-for-bit the same whatever the number of workers. Without a seed, noise
// and initialization come from ChaCha8 streams derived the same way from
// (iteration, row) under a fresh 256-bit key that Train draws from
// crypto/rand, keeps in memory for the run only and writes nowhere
// (rng.Keyed): private, as cheap as seeded noise, and independent of the
// number of workers too.
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
// model.
//
// # Precision
//
// ALS runs by default in mixed precision (Options.Precision, Mixed): the
// factors are float32 while it trains, each row's Gram matrix and
// right-hand side are summed in float32 from gathered float32 rows
// (package internal/asm/f32: half the memory traffic and twice the vector
// lanes of float64), and the ridge, the noise and the Cholesky solve are
// float64. Its test RMSE agrees with the float64 path (Double) to 1e-4
// (about 1e-7 on the benchmark shape and MovieLens 100k), and a seeded run
// is still identical whatever the number of workers. IRLS, and ALS with
// λ = 0, run in float64.
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
