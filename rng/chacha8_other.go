//go:build !amd64 || purego

package rng

// haveBlocks16 is false: blocks16 is AVX-512 assembly, and chacha8 takes
// its words from math/rand/v2's ChaCha8 instead.
const haveBlocks16 = false

// blocks16 is never called where haveBlocks16 is false.
func blocks16(key *[4]uint64, out *[chachaPeriod]uint64) {
	panic("rng: blocks16 without AVX-512")
}
