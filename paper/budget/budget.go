// Package budget computes the paper's Table 1: the one-release privacy budget
// ε of the Gaussian, Laplace and Huber mechanisms when each is set to the
// same noise variance, for a given sensitivity and δ. It puts the paper's
// published figures beside them so that differences are visible.
//
// Conventions, as in the paper: Δ₁ = Δ₂ = the given sensitivity; Laplace
// b = √(v/2); Gaussian σ = √v; Huber at scale s = 1 with α from the
// variance, except that at variance 1, which s = 1 cannot reach, α = 3 as
// the paper does (its variance is 1.0036). Below variance 1 this package
// keeps α = 3 and shrinks s to reach the variance, and says so in the row.
//
// The paper's Gaussian column does not follow its own formula
// ε = √(2 ln(1.25/δ)) Δ/σ: its numbers equal √(2 log₁₀(1.25/δ)) Δ/σ, which
// understates ε by √(ln 10) ≈ 1.52. Rows carry that log₁₀ reading too, so the
// published figures can be reproduced and explained. Neither classic figure
// is a guarantee here, since the classic bound needs ε < 1; the analytic
// Gaussian ε is.
package budget

import (
	"errors"
	"fmt"
	"math"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
)

// Row is the budget of each mechanism at one noise variance. Epsilons are
// for one release of a statistic with the row's sensitivity.
type Row struct {
	Variance    float64 `json:"variance"`
	Sensitivity float64 `json:"sensitivity"`
	Delta       float64 `json:"delta"`

	// GaussianClassicEpsilon is √(2 ln(1.25/δ))·Δ/σ. It is a guarantee only
	// when GaussianClassicValid (ε < 1).
	GaussianClassicEpsilon float64 `json:"gaussian_classic_epsilon"`
	GaussianClassicValid   bool    `json:"gaussian_classic_valid"`
	// GaussianLog10Epsilon is √(2 log₁₀(1.25/δ))·Δ/σ, the formula the
	// paper's Gaussian column matches. Not a guarantee.
	GaussianLog10Epsilon float64 `json:"gaussian_log10_epsilon"`
	// GaussianAnalyticEpsilon is the exact ε of Balle & Wang (2018) at δ.
	GaussianAnalyticEpsilon float64 `json:"gaussian_analytic_epsilon"`

	LaplaceScale   float64 `json:"laplace_scale"`
	LaplaceEpsilon float64 `json:"laplace_epsilon"`

	HuberAlpha    float64 `json:"huber_alpha"`
	HuberScale    float64 `json:"huber_scale"`
	HuberVariance float64 `json:"huber_variance"` // the exact variance at HuberAlpha, HuberScale
	HuberEpsilon  float64 `json:"huber_epsilon"`

	// Paper holds the published Table 1 figures for this row, or nil when
	// the paper has none (it covers variances 1–4 at Δ = 5, δ = 1e-5).
	Paper *Published `json:"paper"`
}

// Published is one row of the paper's Table 1: ε of each mechanism.
type Published struct {
	Gaussian float64 `json:"gaussian"`
	Laplace  float64 `json:"laplace"`
	Huber    float64 `json:"huber"`
}

// paper returns the published Table 1 row for the settings, if any.
func paper(variance, sensitivity, delta float64) *Published {
	if sensitivity != 5 || delta != 1e-5 {
		return nil
	}
	switch variance {
	case 1:
		return &Published{Gaussian: 15.964, Laplace: 7.071, Huber: 15.000}
	case 2:
		return &Published{Gaussian: 11.288, Laplace: 5.000, Huber: 5.382}
	case 3:
		return &Published{Gaussian: 9.217, Laplace: 4.082, Huber: 4.235}
	case 4:
		return &Published{Gaussian: 7.982, Laplace: 3.536, Huber: 3.602}
	}
	return nil
}

// Compute returns one Row per variance, in order. It returns an error naming
// the parameter if a variance or the sensitivity is not positive and finite
// or delta is not in (0, 1).
func Compute(variances []float64, sensitivity, delta float64) ([]Row, error) {
	if len(variances) == 0 {
		return nil, fmt.Errorf("%w: no variance given", check.ErrParam)
	}
	if err := check.Positive("sensitivity", sensitivity); err != nil {
		return nil, err
	}
	if err := check.Probability("delta", delta); err != nil {
		return nil, err
	}
	rows := make([]Row, 0, len(variances))
	for i, v := range variances {
		if err := check.Positive(fmt.Sprintf("variance[%d]", i), v); err != nil {
			return nil, err
		}
		row, err := compute(v, sensitivity, delta)
		if err != nil {
			return nil, fmt.Errorf("variance %g: %w", v, err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func compute(v, sens, delta float64) (Row, error) {
	row := Row{Variance: v, Sensitivity: sens, Delta: delta, Paper: paper(v, sens, delta)}
	s2 := noise.Sensitivity{L1: sens, L2: sens}

	sigma, err := gaussian.SigmaForVariance(v)
	if err != nil {
		return row, err
	}
	row.GaussianClassicEpsilon, err = gaussian.ClassicEpsilon(sigma, sens, delta)
	switch {
	case err == nil:
		row.GaussianClassicValid = true
	case !errors.Is(err, gaussian.ErrClassicRange):
		return row, err
	}
	row.GaussianLog10Epsilon = math.Sqrt(2*math.Log10(1.25/delta)) * sens / sigma
	g, err := gaussian.New(sigma)
	if err != nil {
		return row, err
	}
	ga, err := g.Guarantee(s2, delta)
	if err != nil {
		return row, err
	}
	row.GaussianAnalyticEpsilon = ga.Epsilon

	row.LaplaceScale, err = laplace.ScaleForVariance(v)
	if err != nil {
		return row, err
	}
	l, err := laplace.New(row.LaplaceScale)
	if err != nil {
		return row, err
	}
	lg, err := l.Guarantee(s2, delta)
	if err != nil {
		return row, err
	}
	row.LaplaceEpsilon = lg.Epsilon

	row.HuberAlpha, row.HuberScale, err = huber.PaperSetting(v)
	if err != nil {
		return row, err
	}
	h, err := huber.New(row.HuberAlpha, row.HuberScale)
	if err != nil {
		return row, err
	}
	row.HuberVariance = h.Variance()
	hg, err := h.Guarantee(s2, delta)
	if err != nil {
		return row, err
	}
	row.HuberEpsilon = hg.Epsilon
	return row, nil
}
