//go:build !purego

package rng

import "golang.org/x/sys/cpu"

// haveBlocks16 reports whether blocks16 may be called: the CPU and the
// operating system support AVX-512. Set when the package is loaded, never
// written afterwards.
var haveBlocks16 = cpu.X86.HasAVX512F

// blocks16 writes chacha8rand's output under key to out: the 16 ChaCha8
// blocks of counters 0–15, each four blocks' 32-bit words interleaved,
// with AVX-512 (one block per lane). Its reference is math/rand/v2's
// ChaCha8 (TestBlocks16MatchesMathRand); call it only if haveBlocks16.
//
//go:noescape
func blocks16(key *[4]uint64, out *[chachaPeriod]uint64)
