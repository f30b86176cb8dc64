package accounting

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/integrate"

	"github.com/dpmc/dpmc/noise"
)

func TestRenyiDPGaussianClosedForm(t *testing.T) {
	for _, sigma := range []float64{0.3, 1, 7} {
		for _, l2 := range []float64{0.5, 2} {
			for _, a := range []float64{1.5, 2, 32, 1000} {
				got, err := RenyiDP(mustGaussian(t, sigma), noise.Sensitivity{L2: l2}, a)
				if err != nil {
					t.Fatal(err)
				}
				if want := a * l2 * l2 / (2 * sigma * sigma); math.Abs(got-want) > 1e-14*want {
					t.Errorf("σ=%g Δ₂=%g α=%g: %g, want α·Δ²/(2σ²) = %g", sigma, l2, a, got, want)
				}
			}
		}
	}
}

// TestIntegratorAgainstLaplace validates the quadrature, which the Huber
// mechanism depends on, against Mironov's closed form for Laplace noise,
// using the same piecewise representation of the densities. The numeric
// value must be an upper bound (the safety margin) and within 1e-9.
func TestIntegratorAgainstLaplace(t *testing.T) {
	for _, d := range []float64{0.001, 0.05, 1, 7, 100} {
		nz := laplaceNoise(d)
		for _, a := range Orders() {
			got, err := nz.renyiNumeric(a)
			if err != nil {
				t.Fatal(err)
			}
			want := laplaceRDP(a, d)
			if got < want || (got-want)*(a-1) > 1e-9*(1+want*(a-1)) {
				t.Errorf("d=%g α=%g: numeric %.15g, closed form %.15g", d, a, got, want)
			}
		}
	}
}

// TestIntegratorAgainstGonum checks the quadrature on an integrand that
// grows like e^{+t²/2} on one piece (the shape of the Huber integrand where
// only one density is in its Gaussian centre), against gonum's Romberg.
func TestIntegratorAgainstGonum(t *testing.T) {
	// h: slope +3 up to −2, 0 on [−2, 0], t²/2 on [0, 3], slope −3 beyond.
	h := piecewise{
		knots:  []float64{-2, 0, 3},
		pieces: []quad{{6, 3, 0}, {0, 0, 0}, {0, 0, 0.5}, {13.5, -3, 0}},
	}
	got, err := logIntegralExp(h)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1 << 16
	xs := make([]float64, n+1)
	ys := make([]float64, n+1)
	for i := range xs {
		xs[i] = 3 * float64(i) / n
		ys[i] = math.Exp(xs[i] * xs[i] / 2)
	}
	centre := integrate.Romberg(ys, 3.0/n)
	want := math.Log(1.0/3 + 2 + centre + math.Exp(4.5)/3)
	if math.Abs(got-want) > 1e-10 {
		t.Errorf("log ∫ = %.15g, want %.15g", got, want)
	}
}

// TestHuberRenyiLimits: α → ∞ is the Gaussian mechanism, and α → 0 with
// the scale shrunk in proportion (so that ε₀ = α·Δ₁/s is fixed) is the
// Laplace mechanism with b = s/α.
func TestHuberRenyiLimits(t *testing.T) {
	for _, d := range []float64{0.1, 1, 3} {
		nz, err := huberNoise(60, d)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []float64{1.25, 2, 8, 64} {
			if a*d > 20 {
				continue // the tilted integrand reaches the tails at t ≈ order·d
			}
			got, err := nz.renyiNumeric(a)
			if err != nil {
				t.Fatal(err)
			}
			if want := a * d * d / 2; math.Abs(got-want) > 1e-8*want+1e-9 {
				t.Errorf("huber α=60, d=%g, order %g: %.12g, want Gaussian %.12g", d, a, got, want)
			}
		}
	}
	for _, eps0 := range []float64{0.5, 2} {
		shape := 1e-3
		nz, err := huberNoise(shape, eps0/shape)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []float64{1.5, 4, 100} {
			got, _ := nz.renyiNumeric(a)
			if want := laplaceRDP(a, eps0); math.Abs(got-want) > 1e-5*want {
				t.Errorf("huber α=1e-3, ε₀=%g, order %g: %.12g, want Laplace %.12g", eps0, a, got, want)
			}
		}
	}
}

// TestHuberRenyiBetweenLaplaceAndBound: the Huber curve is positive, at
// most the pure-DP caps, and increasing in the order.
func TestHuberRenyiShape(t *testing.T) {
	for _, alpha := range []float64{0.3, 1, 3} {
		m := mustHuber(t, alpha, 1)
		s := noise.Sensitivity{L1: 1}
		prev := 0.0
		for _, a := range Orders() {
			r, err := RenyiDP(m, s, a)
			if err != nil {
				t.Fatal(err)
			}
			if !(r > prev) || r > alpha || r > a*alpha*alpha/2+1e-12 {
				t.Errorf("α=%g order %g: ε(α) = %g (previous %g), want increasing and ≤ min(ε₀, αε₀²/2)", alpha, a, r, prev)
			}
			prev = r
		}
	}
}

// TestRenyiBothDirections: the two directions D(P‖Q) and D(Q‖P) agree for
// these symmetric noises.
func TestRenyiBothDirections(t *testing.T) {
	nz, _ := huberNoise(1.3, 0.8)
	shifted := nz.rho.shift(nz.d)
	for _, a := range []float64{1.5, 3, 20} {
		var li [2]float64
		for i, dir := range [2][2]piecewise{{nz.rho, shifted}, {shifted, nz.rho}} {
			h := combine(-a, dir[0], -(1 - a), dir[1])
			for j := range h.pieces {
				h.pieces[j][0] -= nz.logZ
			}
			li[i], _ = logIntegralExp(h)
		}
		if math.Abs(li[0]-li[1]) > 1e-12*(1+math.Abs(li[0])) {
			t.Errorf("order %g: log integrals %.15g and %.15g differ", a, li[0], li[1])
		}
	}
}

func TestRDPConversion(t *testing.T) {
	// Gaussian: the result is the minimum over Orders of the CKS formula.
	sigma, k, delta := 20.0, 100, 1e-5
	got, err := RDP(mustGaussian(t, sigma), noise.Sensitivity{L2: 1}, k, delta)
	if err != nil {
		t.Fatal(err)
	}
	want := math.Inf(1)
	for _, a := range Orders() {
		rdp := float64(k) * a / (2 * sigma * sigma)
		want = math.Min(want, rdp+math.Log((a-1)/a)-(math.Log(delta)+math.Log(a))/(a-1))
	}
	if math.Abs(got.Epsilon-want) > 1e-12 || got.Delta != delta || got.Accountant != NameRDP {
		t.Errorf("RDP = %v, want ε = %g", got, want)
	}
	// And it is a valid bound: never below the exact k-fold Gaussian.
	exact, _ := PLD(mustGaussian(t, sigma), noise.Sensitivity{L2: 1}, k, delta)
	if got.Epsilon < exact.Epsilon {
		t.Errorf("RDP ε %g below PLD ε %g", got.Epsilon, exact.Epsilon)
	}
}

func TestRenyiDPErrors(t *testing.T) {
	s := noise.Sensitivity{L1: 1, L2: 1}
	for _, order := range []float64{1, 0.5, math.NaN(), math.Inf(1)} {
		if _, err := RenyiDP(mustLaplace(t, 1), s, order); err == nil {
			t.Errorf("order %v: no error", order)
		}
	}
	if _, err := RenyiDP(fakeMechanism{}, s, 2); !errors.Is(err, ErrNotApplicable) {
		t.Errorf("unknown mechanism: err = %v, want ErrNotApplicable", err)
	}
}
