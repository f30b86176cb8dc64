package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/accounting"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
)

// accountOut is the --json schema.
type accountOut struct {
	Mechanism         string                       `json:"mechanism"`
	Sampler           string                       `json:"sampler"`
	Grid              *accounting.GridCost         `json:"grid"`
	Compositions      int                          `json:"compositions"`
	Delta             float64                      `json:"delta"`
	PerReleaseEpsilon float64                      `json:"per_release_epsilon"`
	Totals            map[string]*accounting.Total `json:"totals"`
	Tightest          accounting.Total             `json:"tightest"`
	Calibrated        *calibratedJSON              `json:"calibrated"`
}

func accountJSONRun(t *testing.T, args ...string) accountOut {
	t.Helper()
	out, stderr, code := dpmc(t, append([]string{"account", "--output-format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	var got accountOut
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("output does not match the schema: %v\n%s", err, out)
	}
	return got
}

func TestAccountJSON(t *testing.T) {
	tests := []struct {
		args       []string
		mechanism  string
		perRelease float64
		pure       bool
	}{
		{[]string{"--sampler", "float", "--mechanism", "laplace", "--scale", "2", "--sensitivity", "1", "--compositions", "30"}, "laplace", 0.5, true},
		{[]string{"--sampler", "float", "--mechanism", "huber", "--alpha", "1", "--scale", "4", "--compositions", "30", "--delta", "1e-6"}, "huber", 0.25, true},
		{[]string{"--sampler", "float", "--mechanism", "gaussian", "--sigma", "5", "--sensitivity", "2", "--compositions", "30"}, "gaussian", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.mechanism, func(t *testing.T) {
			got := accountJSONRun(t, tt.args...)
			if got.Mechanism != tt.mechanism || got.Compositions != 30 || got.Sampler != "float" || got.Grid != nil {
				t.Errorf("mechanism %q, compositions %d", got.Mechanism, got.Compositions)
			}
			if tt.pure && got.PerReleaseEpsilon != tt.perRelease {
				t.Errorf("per_release_epsilon = %g, want %g", got.PerReleaseEpsilon, tt.perRelease)
			}
			if len(got.Totals) != 5 {
				t.Errorf("totals has %d keys, want 5", len(got.Totals))
			}
			best := math.Inf(1)
			for _, name := range accounting.Accountants() {
				v := got.Totals[name]
				if v == nil {
					t.Fatalf("totals.%s is null", name)
				}
				if v.Accountant != name || v.Delta > got.Delta || !(v.Epsilon > 0) {
					t.Errorf("totals.%s = %+v", name, v)
				}
				best = math.Min(best, v.Epsilon)
			}
			if got.Tightest.Epsilon != best || got.Tightest.Accountant != accounting.NamePLD {
				t.Errorf("tightest = %+v, want the smallest ε %g (pld)", got.Tightest, best)
			}
			if tt.pure && got.Totals["basic"].Epsilon != 30*tt.perRelease {
				t.Errorf("basic ε = %g, want 30 × %g", got.Totals["basic"].Epsilon, tt.perRelease)
			}
			if got.Calibrated != nil {
				t.Error("calibrated present without --target-epsilon")
			}
		})
	}
	// The numbers are the library's.
	got := accountJSONRun(t, "--sampler", "float", "--mechanism", "laplace", "--scale", "3", "--compositions", "40", "--delta", "1e-7")
	m, _ := laplace.New(3)
	want, _ := accounting.Compose(m, noise.Sensitivity{L1: 1}, 40, 1e-7)
	if got.Totals["pld"].Epsilon != want.PLD.Epsilon || got.Delta != 1e-7 {
		t.Errorf("pld ε = %g, library says %g", got.Totals["pld"].Epsilon, want.PLD.Epsilon)
	}
}

func TestAccountTable(t *testing.T) {
	out, stderr, code := dpmc(t, "account", "--sampler", "float", "--mechanism", "laplace", "--scale", "1", "--sensitivity", "1", "--compositions", "1000", "--delta", "1e-6")
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, want := range []string{"1000 releases of laplace(b=1)", "ℓ1 sensitivity Δ₁ = 1", "ε₀ = 1",
		"basic", "1000", "advanced_kov", "591.08", "rdp", "498.11", "pld", "486.299",
		"tightest: pld — the 1000 releases are (486.299, 1e-06)-DP"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = dpmc(t, "account", "--sampler", "float", "--mechanism", "gaussian", "--sigma", "10", "--compositions", "1000", "--delta", "1e-6")
	if !strings.Contains(out, "ℓ2 sensitivity Δ₂ = 1") || !strings.Contains(out, "analytic Gaussian") || !strings.Contains(out, "19.42") {
		t.Errorf("gaussian table:\n%s", out)
	}
	// Far below the PLD's resolution for the Gaussian: n/a with the reason.
	out, _, _ = dpmc(t, "account", "--sampler", "float", "--mechanism", "gaussian", "--sigma", "3", "--compositions", "10", "--delta", "1e-70")
	if !strings.Contains(out, "n/a — delta = 1e-70 is below what the accountant can resolve") || !strings.Contains(out, "tightest: rdp") {
		t.Errorf("gaussian at δ = 1e-70:\n%s", out)
	}
}

// TestAccountTableNotApplicable: an accountant that does not apply shows
// "n/a — reason".
func TestAccountTableNotApplicable(t *testing.T) {
	m, _ := laplace.New(1)
	basic := &accounting.Total{Epsilon: 2, Accountant: accounting.NameBasic}
	out := accountJSON{
		Mechanism: "laplace", Compositions: 2, Delta: 1e-5,
		Totals:   accounting.Totals{Basic: basic, NotApplicable: map[string]string{accounting.NameRDP: "no Rényi curve"}},
		Tightest: *basic,
	}
	var buf bytes.Buffer
	if err := writeAccountTable(&buf, m, 1, noise.Guarantee{Epsilon: 1}, out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "n/a — no Rényi curve") {
		t.Errorf("table:\n%s", buf.String())
	}
}

// TestAccountTargetEpsilon: the parameter found meets the target, and 1 %
// less noise does not.
func TestAccountTargetEpsilon(t *testing.T) {
	tests := []struct {
		mechanism, param string
		extra            []string
		flag             string
	}{
		{"gaussian", "sigma", nil, "--sigma"},
		{"laplace", "scale", nil, "--scale"},
		{"huber", "scale", []string{"--alpha", "2"}, "--scale"},
	}
	for _, tt := range tests {
		t.Run(tt.mechanism, func(t *testing.T) {
			args := append([]string{"--sampler", "float", "--mechanism", tt.mechanism, "--target-epsilon", "2", "--compositions", "25", "--sensitivity", "0.5"}, tt.extra...)
			got := accountJSONRun(t, args...)
			c := got.Calibrated
			if c == nil || c.Parameter != tt.param || c.TargetEpsilon != 2 || !(c.Value > 0) {
				t.Fatalf("calibrated = %+v", c)
			}
			if got.Tightest.Epsilon > 2 {
				t.Errorf("tightest ε = %g at %s = %g, want ≤ 2", got.Tightest.Epsilon, c.Parameter, c.Value)
			}
			for _, f := range []struct {
				factor float64
				meets  bool
			}{{1, true}, {0.99, false}} {
				p := strconv.FormatFloat(f.factor*c.Value, 'g', -1, 64)
				again := accountJSONRun(t, append([]string{"--sampler", "float", "--mechanism", tt.mechanism, tt.flag, p, "--compositions", "25", "--sensitivity", "0.5"}, tt.extra...)...)
				if meets := again.Tightest.Epsilon <= 2; meets != f.meets {
					t.Errorf("%s = %s: ε = %g, meets = %v, want %v", tt.flag, p, again.Tightest.Epsilon, meets, f.meets)
				}
			}
		})
	}
	out, stderr, code := dpmc(t, "account", "--sampler", "float", "--mechanism", "gaussian", "--target-epsilon", "1", "--compositions", "1000", "--delta", "1e-5")
	if code != 0 || !strings.Contains(out, "sigma = 117.9") || !strings.Contains(out, "is the smallest") {
		t.Errorf("exit %d, %s\n%s", code, stderr, out)
	}
}

func TestAccountBadFlags(t *testing.T) {
	base := []string{"account", "--mechanism", "laplace"}
	tests := []struct {
		args []string
		want string
	}{
		{base, "--compositions is required"},
		{append(base, "--compositions", "0"), "--compositions = 0"},
		{append(base, "--compositions", "-2"), "--compositions = -2"},
		{append(base, "--compositions", "x"), "--compositions"},
		{append(base, "--compositions", "3", "--delta", "0"), "--delta = 0"},
		{append(base, "--compositions", "3", "--delta", "1"), "--delta = 1"},
		{append(base, "--compositions", "3", "--delta", "NaN"), "--delta = NaN"},
		{append(base, "--compositions", "3", "--sensitivity", "-1"), "--sensitivity = -1"},
		{append(base, "--compositions", "3", "--sensitivity", "Inf"), "--sensitivity = +Inf"},
		{append(base, "--compositions", "3", "--target-epsilon", "0"), "--target-epsilon = 0"},
		{append(base, "--compositions", "3", "--target-epsilon", "1", "--scale", "2"), "--target-epsilon solves for --scale"},
		{[]string{"account", "--mechanism", "gaussian", "--compositions", "3", "--target-epsilon", "1", "--sigma", "2"}, "--target-epsilon solves for --sigma"},
		{append(base, "--compositions", "3", "--sigma", "2"), "--sigma does not apply"},
		{append(base, "--compositions", "3", "--scale", "0"), "scale"},
		{[]string{"account", "--compositions", "3"}, "--mechanism is required"},
		{append(base, "--compositions", "3", "extra"), "unknown command"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[1:], " "), func(t *testing.T) {
			_, stderr, code := dpmc(t, tt.args...)
			if code != 1 || !strings.HasPrefix(stderr, "dpmc: ") || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q, want a dpmc error mentioning %q", code, stderr, tt.want)
			}
		})
	}
}

func TestAccountHelp(t *testing.T) {
	out, _, code := dpmc(t, "help", "account")
	if code != 0 {
		t.Fatal("help account failed")
	}
	for _, want := range []string{"--mechanism", "--sigma", "--scale", "--alpha", "(default 3)", "--sensitivity", "(default 1)",
		"ℓ1 (Δ₁) for laplace and huber, ℓ2 (Δ₂) for gaussian", "--compositions", "(required)", "--delta", "(default 1e-06)",
		"--target-epsilon", "--output-format", "json", "advanced_kov", "pld"} {
		if !strings.Contains(out, want) {
			t.Errorf("help account lacks %q", want)
		}
	}
	if out, _, _ := dpmc(t, "--help"); !strings.Contains(out, "account") {
		t.Error("dpmc --help does not list account")
	}
}

func TestAccountCompositionsBound(t *testing.T) {
	for _, k := range []string{"9223372036854775807", "100000001", "0"} {
		_, stderr, code := dpmc(t, "account", "--mechanism", "laplace", "--scale", "1", "--compositions", k)
		if code != 1 || !strings.Contains(stderr, "want K in [1, 100000000]") {
			t.Errorf("--compositions %s: exit %d, %q", k, code, stderr)
		}
	}
}

// TestAccountDiscrete: by default account accounts for the discrete
// sampler at the rounded sensitivity, with the library's numbers; every
// accountant applies for one changed coordinate, and PLD is n/a with the
// reason for the discrete Gaussian with several.
func TestAccountDiscrete(t *testing.T) {
	tests := []struct {
		args []string
		cont noise.Mechanism
		n    int
	}{
		{[]string{"--mechanism", "laplace", "--scale", "2"}, must(laplace.New(2)), 1},
		{[]string{"--mechanism", "huber", "--alpha", "0.5", "--scale", "3"}, must(huber.New(0.5, 3)), 1},
		{[]string{"--mechanism", "gaussian", "--sigma", "5"}, must(gaussian.New(5)), 1},
		{[]string{"--mechanism", "gaussian", "--sigma", "5", "--coordinates", "4"}, must(gaussian.New(5)), 4},
		{[]string{"--mechanism", "laplace", "--scale", "2", "--coordinates", "4"}, must(laplace.New(2)), 4},
	}
	s := noise.Sensitivity{L1: 1, L2: 1}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got := accountJSONRun(t, append(tt.args, "--compositions", "20", "--delta", "1e-6")...)
			d, err := discrete.For(tt.cont)
			if err != nil {
				t.Fatal(err)
			}
			want, cost, err := accounting.ComposeDiscrete(d, s, tt.n, 20, 1e-6)
			if err != nil {
				t.Fatal(err)
			}
			if got.Mechanism != d.Name() || got.Sampler != "discrete" || got.Grid == nil || *got.Grid != cost {
				t.Fatalf("mechanism %q, sampler %q, grid %+v; want %q, discrete, %+v", got.Mechanism, got.Sampler, got.Grid, d.Name(), cost)
			}
			if got.Grid.Grid != d.Granularity() || got.Grid.Coordinates != tt.n || !(got.Grid.Rounded > 1) {
				t.Errorf("grid %+v", got.Grid)
			}
			rs, _ := discrete.RoundedSensitivity(s, tt.n, d.Granularity())
			g, _ := d.Guarantee(rs, 1e-6)
			if got.PerReleaseEpsilon != g.Epsilon {
				t.Errorf("per_release_epsilon %g, want %g at the rounded sensitivity", got.PerReleaseEpsilon, g.Epsilon)
			}
			for _, name := range accounting.Accountants() {
				w, v := want.ByName(name), got.Totals[name]
				if (w == nil) != (v == nil) || w != nil && *w != *v {
					t.Errorf("totals.%s = %v, library %v", name, v, w)
				}
			}
			_, gauss := d.(*discrete.Gaussian)
			if pldNA := got.Totals["pld"] == nil; pldNA != (gauss && tt.n > 1) {
				t.Errorf("pld = %v with n = %d", got.Totals["pld"], tt.n)
			}
		})
	}
	out, stderr, code := dpmc(t, "account", "--mechanism", "gaussian", "--sigma", "5", "--coordinates", "2", "--compositions", "20")
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, want := range []string{"20 releases of discrete-gaussian(σ=5, γ=2^-26), ℓ2 sensitivity Δ₂ = 1",
		"grid γ = 2^-26 = 1.49012e-08; n = 2 changed coordinate(s): Δ₂ rounds up to Δ₂′ = Δ₂ + γ·√n = ",
		"rounding costs ", "(discrete Gaussian, from its zCDP)",
		"pld: n/a — the discrete Gaussian's one-coordinate privacy-loss distribution is not the worst case for a change spread over several coordinates"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = dpmc(t, "account", "--sampler", "float", "--mechanism", "laplace", "--compositions", "2")
	if !strings.Contains(out, "sampler float: the ideal continuous mechanism; dpmc's floating-point samplers do NOT achieve it") {
		t.Errorf("float table:\n%s", out)
	}
}

// TestAccountTargetEpsilonDiscrete: with the discrete sampler the scale
// found meets the target at the rounded sensitivity, and 1 % less noise
// does not.
func TestAccountTargetEpsilonDiscrete(t *testing.T) {
	if raceEnabled {
		t.Skip("numbers only; slow under the race detector")
	}
	for _, tt := range []struct{ mechanism, flag string }{{"gaussian", "--sigma"}, {"laplace", "--scale"}} {
		t.Run(tt.mechanism, func(t *testing.T) {
			got := accountJSONRun(t, "--mechanism", tt.mechanism, "--target-epsilon", "2", "--compositions", "10")
			c := got.Calibrated
			if c == nil || got.Sampler != "discrete" || got.Tightest.Epsilon > 2 {
				t.Fatalf("calibrated %+v, sampler %q, tightest %+v", c, got.Sampler, got.Tightest)
			}
			p := strconv.FormatFloat(0.99*c.Value, 'g', -1, 64)
			again := accountJSONRun(t, "--mechanism", tt.mechanism, tt.flag, p, "--compositions", "10")
			if again.Tightest.Epsilon <= 2 {
				t.Errorf("%s = %s (0.99 × the result) still meets ε = 2: %v", tt.flag, p, again.Tightest)
			}
		})
	}
}

// TestAccountBadSamplerFlags: the messages, exactly.
func TestAccountBadSamplerFlags(t *testing.T) {
	base := []string{"account", "--mechanism", "laplace", "--compositions", "3"}
	tests := []struct {
		args []string
		want string
	}{
		{append(base, "--sampler", "exact"), `dpmc: --sampler "exact": want discrete or float` + "\n"},
		{append(base, "--coordinates", "0"), "dpmc: --coordinates = 0: want n ≥ 1\n"},
		{append(base, "--coordinates", "-3"), "dpmc: --coordinates = -3: want n ≥ 1\n"},
		{append(base, "--sampler", "float", "--coordinates", "2"), "dpmc: --coordinates applies to --sampler discrete only (the grid rounding)\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[1:], " "), func(t *testing.T) {
			_, stderr, code := dpmc(t, tt.args...)
			if code != 1 || stderr != tt.want {
				t.Errorf("exit %d, stderr %q, want %q", code, stderr, tt.want)
			}
		})
	}
}

func must(m noise.Mechanism, err error) noise.Mechanism {
	if err != nil {
		panic(err)
	}
	return m
}
