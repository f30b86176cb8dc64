package accounting

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
)

// fakeMechanism is a mechanism this package does not know: pure ε-DP with
// ε = L1 when delta0 is 0, otherwise (L2, delta) with Delta = delta.
type fakeMechanism struct{ approx bool }

func (fakeMechanism) Name() string                { return "fake" }
func (fakeMechanism) Sample(r *rand.Rand) float64 { return 0 }
func (fakeMechanism) Variance() float64           { return 1 }
func (fakeMechanism) String() string              { return "fake" }
func (f fakeMechanism) Guarantee(s noise.Sensitivity, delta float64) (noise.Guarantee, error) {
	if f.approx {
		return noise.Guarantee{Epsilon: s.L2 * (1 + math.Log(1/delta)), Delta: delta}, nil
	}
	return noise.Guarantee{Epsilon: s.L1}, nil
}

var allSens = noise.Sensitivity{L1: 1, L2: 1}

// TestTotalsMonotone: every accountant's ε grows with k and shrinks as the
// noise grows.
func TestTotalsMonotone(t *testing.T) {
	families := map[string]func(p float64) noise.Mechanism{
		"laplace":  func(p float64) noise.Mechanism { return mustLaplace(t, p) },
		"gaussian": func(p float64) noise.Mechanism { return mustGaussian(t, p) },
		"huber":    func(p float64) noise.Mechanism { return mustHuber(t, 1, p) },
	}
	ks := []int{1, 2, 5, 20, 200}
	ps := []float64{0.5, 1, 2, 8}
	for name, family := range families {
		grid := make([][]Totals, len(ps))
		for i, p := range ps {
			for _, k := range ks {
				tot, err := Compose(family(p), allSens, k, 1e-6)
				if err != nil {
					t.Fatal(err)
				}
				grid[i] = append(grid[i], tot)
			}
		}
		for _, acc := range Accountants() {
			for i := range ps {
				for j := range ks {
					v := grid[i][j].ByName(acc)
					if v == nil {
						t.Fatalf("%s %s: nil", name, acc)
					}
					if j > 0 && v.Epsilon < grid[i][j-1].ByName(acc).Epsilon {
						t.Errorf("%s %s p=%g: ε(k=%d) = %g < ε(k=%d) = %g", name, acc, ps[i], ks[j], v.Epsilon, ks[j-1], grid[i][j-1].ByName(acc).Epsilon)
					}
					if i > 0 && v.Epsilon > grid[i-1][j].ByName(acc).Epsilon {
						t.Errorf("%s %s k=%d: ε(p=%g) = %g > ε(p=%g) = %g", name, acc, ks[j], ps[i], v.Epsilon, ps[i-1], grid[i-1][j].ByName(acc).Epsilon)
					}
				}
			}
		}
	}
}

func TestCalibrate(t *testing.T) {
	tests := []struct {
		name   string
		family func(p float64) (noise.Mechanism, error)
		k      int
		eps    float64
	}{
		{"gaussian", func(p float64) (noise.Mechanism, error) { return gaussian.New(p) }, 100, 2},
		{"laplace", func(p float64) (noise.Mechanism, error) { return laplace.New(p) }, 50, 5},
		{"huber", func(p float64) (noise.Mechanism, error) { return huber.New(3, p) }, 20, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, tot, err := Calibrate(tt.family, allSens, tt.k, tt.eps, 1e-5, 1e-3, 1e4)
			if err != nil {
				t.Fatal(err)
			}
			best, _ := tot.Tightest()
			if best.Epsilon > tt.eps {
				t.Errorf("p = %g gives ε = %g > target %g", p, best.Epsilon, tt.eps)
			}
			m, _ := tt.family(0.99 * p)
			below, err := Compose(m, allSens, tt.k, 1e-5)
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := below.Tightest(); b.Epsilon <= tt.eps {
				t.Errorf("0.99·p = %g still meets the target (ε = %g): p is not the smallest", 0.99*p, b.Epsilon)
			}
		})
	}
}

// TestCalibrateBalleWang reproduces Balle & Wang (2018): one release of the
// analytic Gaussian mechanism at (ε, δ) = (1, 1e-5) needs σ ≈ 3.73 (against
// 4.84 for the classic bound).
func TestCalibrateBalleWang(t *testing.T) {
	family := func(p float64) (noise.Mechanism, error) { return gaussian.New(p) }
	p, _, err := Calibrate(family, noise.Sensitivity{L2: 1}, 1, 1, 1e-5, 0.1, 100)
	if err != nil {
		t.Fatal(err)
	}
	exact, _ := gaussian.Sigma(1, 1, 1e-5)
	if math.Abs(p-3.73) > 0.005 || p < exact || p > exact*(1+1e-5) {
		t.Errorf("σ = %.6g, want 3.73 (analytic %.6g)", p, exact)
	}
}

func TestCalibrateBracket(t *testing.T) {
	family := func(p float64) (noise.Mechanism, error) { return laplace.New(p) }
	if _, _, err := Calibrate(family, allSens, 10, 1, 1e-5, 0.1, 1); err == nil || !strings.Contains(err.Error(), "raise hi") {
		t.Errorf("unreachable target: err = %v", err)
	}
	p, _, err := Calibrate(family, allSens, 1, 1, 1e-5, 100, 1000)
	if err != nil || p != 100 {
		t.Errorf("target met at lo: p = %g, err = %v, want lo = 100", p, err)
	}
	bad := func(p float64) (noise.Mechanism, error) { return nil, errors.New("boom") }
	if _, _, err := Calibrate(bad, allSens, 1, 1, 1e-5, 1, 2); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("family error lost: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	lm := mustLaplace(t, 1)
	family := func(p float64) (noise.Mechanism, error) { return laplace.New(p) }
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"k zero", second(Compose(lm, allSens, 0, 1e-5)), "k (compositions) = 0"},
		{"k negative", second(Compose(lm, allSens, -3, 1e-5)), "k (compositions) = -3"},
		{"delta zero", second(Compose(lm, allSens, 1, 0)), "delta = 0"},
		{"delta one", second(Compose(lm, allSens, 1, 1)), "delta = 1"},
		{"delta NaN", second(Compose(lm, allSens, 1, math.NaN())), "delta = NaN"},
		{"nil mechanism", second(Compose(nil, allSens, 1, 1e-5)), "mechanism is nil"},
		{"laplace L1 zero", second(Compose(lm, noise.Sensitivity{L2: 1}, 1, 1e-5)), "sensitivity L1"},
		{"gaussian L2 NaN", second(Compose(mustGaussian(t, 1), noise.Sensitivity{L1: 1, L2: math.NaN()}, 1, 1e-5)), "sensitivity L2"},
		{"huber L1 Inf", second(Compose(mustHuber(t, 1, 1), noise.Sensitivity{L1: math.Inf(1)}, 1, 1e-5)), "sensitivity L1"},
		{"basic k", second(Basic(lm, allSens, 0, 1e-5)), "k (compositions)"},
		{"kov delta", second(KOV(lm, allSens, 1, 2)), "delta = 2"},
		{"drv delta", second(DRV(lm, allSens, 1, -1)), "delta = -1"},
		{"rdp k", second(RDP(lm, allSens, 0, 1e-5)), "k (compositions)"},
		{"pld delta", second(PLD(lm, allSens, 1, math.Inf(1))), "delta = +Inf"},
		{"pld delta epsilon", second(PLDDelta(lm, allSens, 1, -1)), "epsilon = -1"},
		{"kov delta eps0", second(KOVDelta(math.NaN(), 1, 1)), "eps0 = NaN"},
		{"calibrate epsilon", third(Calibrate(family, allSens, 1, 0, 1e-5, 1, 2)), "epsilon = 0"},
		{"calibrate lo", third(Calibrate(family, allSens, 1, 1, 1e-5, math.NaN(), 2)), "lo = NaN"},
		{"calibrate order", third(Calibrate(family, allSens, 1, 1, 1e-5, 3, 2)), "want lo < hi"},
		{"calibrate k", third(Calibrate(family, allSens, 0, 1, 1e-5, 1, 2)), "k (compositions)"},
		{"calibrate family", third(Calibrate(nil, allSens, 1, 1, 1e-5, 1, 2)), "family is nil"},
	}
	for _, tt := range tests {
		if tt.err == nil || !errors.Is(tt.err, check.ErrParam) || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want an ErrParam naming %q", tt.name, tt.err, tt.want)
		}
	}
}

func second[T any](_ T, err error) error        { return err }
func third[T, U any](_ T, _ U, err error) error { return err }

// TestUnknownMechanism: a mechanism this package does not know gets the
// generic accountants from its Guarantee, and RDP/PLD say why they are nil.
func TestUnknownMechanism(t *testing.T) {
	tot, err := Compose(fakeMechanism{}, noise.Sensitivity{L1: 0.1}, 100, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if tot.Basic == nil || math.Abs(tot.Basic.Epsilon-10) > 1e-12 || tot.AdvancedKOV == nil || tot.AdvancedDRV == nil {
		t.Errorf("pure fake: %+v", tot)
	}
	if tot.RDP != nil || tot.PLD != nil || !strings.Contains(tot.NotApplicable[NamePLD], `"fake"`) || tot.NotApplicable[NameRDP] == "" {
		t.Errorf("RDP/PLD should be nil with reasons: %+v", tot)
	}
	if best, err := tot.Tightest(); err != nil || best.Accountant != NameKOV {
		t.Errorf("tightest = %v, %v; want advanced_kov", best, err)
	}
	tot, err = Compose(fakeMechanism{approx: true}, noise.Sensitivity{L2: 0.01}, 100, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	eps0 := 0.01 * (1 + math.Log(100/1e-6))
	if tot.Basic == nil || math.Abs(tot.Basic.Epsilon-100*eps0) > 1e-9 || tot.Basic.Delta != 1e-6 {
		t.Errorf("approximate fake basic: %v, want (%g, 1e-6)", tot.Basic, 100*eps0)
	}
	if _, err := PLD(fakeMechanism{}, allSens, 1, 1e-5); !errors.Is(err, ErrNotApplicable) {
		t.Errorf("PLD of unknown mechanism: %v", err)
	}
	if _, err := (Totals{}).Tightest(); err == nil {
		t.Error("Tightest of no totals: no error")
	}
}

func TestTotalsJSON(t *testing.T) {
	tot, err := Compose(fakeMechanism{}, allSens, 3, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(tot)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got["rdp"] != nil || got["pld"] != nil {
		t.Errorf("JSON %s: want exactly the five accountants, rdp and pld null", b)
	}
	basic, _ := got["basic"].(map[string]any)
	if basic["epsilon"] != 3.0 || basic["delta"] != 0.0 || basic["accountant"] != "basic" {
		t.Errorf("basic = %v", basic)
	}
	if s := fmt.Sprint(*tot.Basic); s != "basic: (ε, δ) = (3, 0)" {
		t.Errorf("String = %q", s)
	}
}
