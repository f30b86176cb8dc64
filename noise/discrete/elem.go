package discrete

import "math"

// Deterministic elementary functions for the ziggurat tables.
//
// math.Exp and math.Log are assembly on several architectures, and on
// amd64 math.Exp takes an FMA path or not depending on the CPU, so their
// last bits differ between machines. The tables must not: a retried or
// resumed job (package beam's bundles, a seeded run) has to draw the same
// noise from the same random words on any machine, so every float64
// operation that shapes a table or decides a draw is written here with
// basic IEEE-754 operations only, each product rounded by an explicit
// float64 conversion so that no compiler may fuse it into an FMA (the Go
// specification guarantees that conversion rounds). TestTableFingerprints
// pins the tables' bits.

// ln 2 split in two (Cody & Waite): k·ln2Hi is exact for |k| < 2²¹, its
// low 21 bits being zero.
const (
	ln2Hi = 6.93147180369123816490e-01 // 0x3fe62e42fee00000
	ln2Lo = 1.90821492927058770002e-10 // 0x3dea39ef35793c76
	log2e = 1.44269504088896338700e+00
	ln2   = 0.693147180559945309417232121458176568
)

// invFact[i] = 1/i!, rounded once (i! is exact in float64 for i ≤ 18).
var invFact = func() [19]float64 {
	var f [19]float64
	p := 1.0
	for i := range f {
		if i > 0 {
			p *= float64(i)
		}
		f[i] = 1 / p
	}
	return f
}()

// expNeg returns e^{−x} for x ≥ 0 (NaN for NaN, 0 beyond 745.2, where
// e^{−x} < 2⁻¹⁰⁷⁵). With k = round(x/ln 2) and r = x − k·ln 2 (|r| ≤ 0.35,
// formed in two steps), e^{−r} is the Taylor polynomial of degree 18 by
// Horner (truncation below 2⁻⁸⁰) and the result is scaled by 2^{−k}
// exactly (math.Ldexp; a subnormal result is rounded once). Its error is
// a few ulp; TestExpNegError measures at most 1 on 20 000 points against
// an exact bracket, and fBounds allows 256.
func expNeg(x float64) float64 {
	if x != x {
		return x
	}
	if x > 745.2 {
		return 0
	}
	k := math.Round(float64(x * log2e))
	r := float64(x-float64(k*ln2Hi)) - float64(k*ln2Lo)
	p := invFact[18]
	for i := 17; i >= 0; i-- {
		p = float64(p*-r) + invFact[i]
	}
	return math.Ldexp(p, -int(k))
}

// logDet returns an approximation of ln x for x > 0, to a few ulp:
// x = m·2^e with m in [√2/2, √2), and ln m = 2·atanh(s), s = (m−1)/(m+1),
// |s| ≤ 0.172, by its series to s²⁵. Only the placement of the strips
// uses it, so its accuracy matters for speed only, its determinism for
// reproducibility.
func logDet(x float64) float64 {
	m, e := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	s := (m - 1) / (m + 1)
	s2 := float64(s * s)
	p := 1.0 / 25
	for i := 11; i >= 0; i-- {
		p = float64(p*s2) + 1/float64(2*i+1)
	}
	return float64(2*s*p) + float64(float64(e)*ln2)
}
