// Package f64 holds dpmc's float64 compute kernels: the few loops that
// take nearly all of a training run's time, written once as plain Go (the
// reference, in generic.go) and, on amd64, again in assembly for AVX2+FMA
// and AVX-512.
//
// # Kernels
//
// Each exported function's doc comment is its reference loop:
//
//   - [Dot] and [Axpy]: level-1, on contiguous vectors;
//   - [GemvN] (y = A·x) and [GemvT] (y += alpha·Aᵀ·x, x strided): the
//     residuals of a row's ratings and the right-hand side Σ x_p·a_p of
//     its normal equations, with A a gathered block of factor rows;
//   - [GemmTNLower] (lower triangle of C += Bᵀ·A) and [GemmTNLowerSub]
//     (C −= Bᵀ·A): the Gram matrix Σ w·aaᵀ of a gathered block (B = A, or
//     A with scaled rows) and the trailing update of a blocked Cholesky
//     factorization; [GemmTNLowerRows] and [GemmTNLowerRowsSub], the same
//     on a band of rows of C: the blocks of rows of a triangular inverse
//     and of the product L⁻ᵀ·L⁻¹;
//   - [TrsmRows8]: the rows below the diagonal block of a Cholesky panel of
//     8 columns, solved against it, and their transposed copy;
//     [TrsmLower4], a 4 × 4 lower triangular solve on a band of 4 rows
//     (the diagonal step of a triangular inverse by blocks); and
//     [TransposeLower], a strict lower triangle copied into the upper one
//     (a symmetric matrix mirrored, or a factor transposed);
//   - [Gather]: the copy of a row's factor rows, in the order of its
//     ratings, into the contiguous block the kernels above read. The
//     assembly prefetches (PREFETCHT0) the rows at least 8 rows and 1 KiB
//     ahead of the one it copies, so that when the factor matrix is
//     larger than the caches the misses of several rows overlap; the copy
//     is exact, so Gather gives the same block with every implementation.
//
// The AVX2 and AVX-512 versions of GemmTNLower are written out by
// syrk4_gen.py, and the AVX2 TrsmRows8 by trsm8_gen.py; the other
// assembly is written by hand.
//
// Matrices are row-major with a leading dimension (the distance between
// rows, in elements) of at least their width, so a kernel can work on a
// sub-matrix in place. Every function checks that its slices are long
// enough and panics otherwise, as an index out of range would; the
// assembly never reads or writes outside them.
//
// # Implementations
//
// Which implementation runs is decided once, at package initialization,
// from the CPU (golang.org/x/sys/cpu): AVX-512 where the CPU and the
// operating system support it (only GemmTNLower and its variants have an
// AVX-512 version; the others, Gather, the triangular solves and
// TransposeLower included, use AVX2 there), else AVX2 with FMA, else the generic loops. The
// build tag purego, or a GOARCH other than amd64, leaves only the generic
// loops. [Use] switches implementation for tests and benchmarks that
// compare them.
//
// The implementations add in different orders and the assembly fuses
// multiply-adds, so results differ at rounding level between them (and so
// between machines); on one machine with one implementation every call is
// deterministic.
package f64
