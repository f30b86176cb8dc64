package f32

import "fmt"

// Impl names an implementation of the kernels.
type Impl int

const (
	// Generic is the pure-Go reference loops of generic.go.
	Generic Impl = iota
	// AVX2 is the AVX2 assembly of Gather and GatherWiden, and the
	// generic loops for the rest (SyrkLower and GemvT).
	AVX2
	// AVX512 is the AVX-512 assembly of SyrkLower and GemvT, and AVX2 for
	// Gather and GatherWiden.
	AVX512
)

// String returns "generic", "avx2" or "avx512".
func (i Impl) String() string {
	switch i {
	case Generic:
		return "generic"
	case AVX2:
		return "avx2"
	case AVX512:
		return "avx512"
	}
	return fmt.Sprintf("Impl(%d)", int(i))
}

// active is the implementation the kernels use: the fastest one available,
// chosen at initialization. Only Use changes it.
var active = best()

// Active returns the implementation the kernels use.
func Active() Impl { return active }

// Available returns the implementations this build can run on this CPU,
// Generic first and the fastest (the default) last.
func Available() []Impl {
	out := []Impl{Generic}
	for i := Generic + 1; i <= best(); i++ {
		out = append(out, i)
	}
	return out
}

// Use makes the kernels use impl and returns the implementation used
// before. It is for tests and benchmarks that compare implementations: it
// must not be called while any kernel runs. It panics if impl is not in
// Available.
func Use(impl Impl) (previous Impl) {
	if impl < Generic || impl > best() {
		panic(fmt.Sprintf("f32: implementation %v not available on this CPU or build", impl))
	}
	previous, active = active, impl
	return previous
}

// need panics unless a slice named name holds at least n elements.
func need(name string, have, n int) {
	if have < n {
		panic(fmt.Sprintf("f32: %s has %d elements, want at least %d", name, have, n))
	}
}

// matLen returns the number of elements a rows × cols matrix with leading
// dimension ld spans: (rows−1)·ld + cols, or 0 if it is empty. It panics
// if ld < cols or a size is negative.
func matLen(name string, rows, cols, ld int) int {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("f32: %s is %d × %d", name, rows, cols))
	}
	if ld < cols || (rows > 1 && ld < 1) {
		panic(fmt.Sprintf("f32: %s has leading dimension %d < width %d", name, ld, cols))
	}
	if rows == 0 || cols == 0 {
		return 0
	}
	return (rows-1)*ld + cols
}
