// Package f32 holds the float32 kernels of dpmc's fast ALS path (solver's
// default, solver.Mixed): the gather of a row's factor rows, the lower
// triangle of their Gram matrix and the right-hand side of its normal
// equations, in float32 with float32 accumulation. They are written once
// as plain Go (the reference, in generic.go) and, on amd64, again in
// assembly for AVX-512 (AVX2 for Gather), in the layout of package
// internal/asm/f64.
//
// # Kernels
//
// Each exported function's doc comment is its reference loop:
//
//   - [SyrkLower]: the lower triangle of C += Aᵀ·A, the Gram matrix
//     Σ a_p·a_pᵀ of a gathered block of factor rows;
//   - [GemvT]: y += Aᵀ·x, x strided, the right-hand side Σ x_p·a_p;
//   - [Gather]: a row's factor rows copied, in the order of its ratings,
//     into the contiguous block the kernels above read, prefetching rows
//     ahead as f64.Gather does. The copy is exact; [GatherWiden] is the
//     same into float64s, for the float64 kernels to sum (on CPUs with
//     AVX2 but not AVX-512).
//
// SyrkLower's AVX-512 kernel is written out by package f64's
// syrk4_gen.py, from the loops of f64's own AVX-512 kernel with float32's
// instructions and sizes (run it from internal/asm/f64); the others are
// written by hand.
//
// Matrices are row-major with a leading dimension of at least their width.
// Every function checks that its slices are long enough and panics
// otherwise; the assembly never reads or writes outside them.
//
// # Implementations
//
// Which implementation runs is decided once, at package initialization,
// from the CPU (golang.org/x/sys/cpu): AVX-512 (with AVX2 and FMA) where
// the CPU and the operating system support it; else AVX2, which has only
// the gathers in assembly (a caller that sums many rows is better off
// widening them with GatherWiden and summing them with package f64's
// AVX2 kernels, as the solver does); else the generic loops. The build tag purego, or a
// GOARCH other than amd64, leaves only the generic loops. [Use] switches
// implementation for tests and benchmarks that compare them.
//
// The implementations add in different orders and the assembly fuses
// multiply-adds, so sums differ at float32 rounding level between them;
// on one machine with one implementation every call is deterministic.
package f32
