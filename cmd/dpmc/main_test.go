package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/paper/budget"
	"github.com/dpmc/dpmc/userdp"
)

// dpmc runs the command line and returns stdout, stderr and the exit status.
func dpmc(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestBudgetJSON(t *testing.T) {
	out, stderr, code := dpmc(t, "budget", "--output-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not a JSON array: %v\n%s", err, out)
	}
	want, _ := budget.Compute([]float64{1, 2, 3, 4}, 5, 1e-5)
	if len(got) != len(want) {
		t.Fatalf("%d objects, want %d", len(got), len(want))
	}
	for i, obj := range got {
		for _, key := range []string{"variance", "sensitivity", "delta", "gaussian_classic_epsilon",
			"gaussian_analytic_epsilon", "laplace_epsilon", "huber_alpha", "huber_epsilon", "paper"} {
			if _, ok := obj[key]; !ok {
				t.Errorf("object %d lacks %q", i, key)
			}
		}
		if obj["huber_epsilon"] != want[i].HuberEpsilon || obj["variance"] != want[i].Variance {
			t.Errorf("object %d = %v, want the values of budget.Compute", i, obj)
		}
		paper, _ := obj["paper"].(map[string]any)
		for _, key := range []string{"gaussian", "laplace", "huber"} {
			if _, ok := paper[key].(float64); !ok {
				t.Errorf("object %d: paper.%s missing", i, key)
			}
		}
	}
	// Outside the paper's settings the reference is null.
	out, _, _ = dpmc(t, "budget", "--output-format", "json", "--variances", "2.5", "--release-sensitivity", "1")
	if !strings.Contains(out, `"paper": null`) {
		t.Errorf("want paper null at variance 2.5, Δ = 1:\n%s", out)
	}
}

func TestBudgetCSV(t *testing.T) {
	out, _, code := dpmc(t, "budget", "--output-format", "csv", "--variances", "1, 2,5")
	if code != 0 {
		t.Fatal("non-zero exit")
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || recs[0][0] != "variance" {
		t.Fatalf("got %d records starting %v, want header + 3 rows", len(recs), recs[0])
	}
	if v, _ := strconv.ParseFloat(recs[2][8], 64); v != 5 { // laplace_epsilon at variance 2
		t.Errorf("laplace_epsilon at variance 2 = %q, want 5", recs[2][8])
	}
	if recs[3][13] != "" {
		t.Errorf("paper column at variance 5 = %q, want empty", recs[3][13])
	}
}

func TestBudgetTable(t *testing.T) {
	out, _, code := dpmc(t, "budget")
	if code != 0 {
		t.Fatal("non-zero exit")
	}
	for _, want := range []string{"15.964", "7.071", "15.000", "5.380", "†", "log₁₀", "-0.44 %"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestBadInputIsAnError(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"budget", "--variances", "1,x"}, `item 2 ("x")`},
		{[]string{"budget", "--variances", "1,,2"}, "item 2 is empty"},
		{[]string{"budget", "--variances", "NaN"}, "not finite"},
		{[]string{"budget", "--variances", "0"}, "--variances: item 1 is 0, want a noise variance > 0"},
		{[]string{"budget", "--variances", "1,-2"}, "--variances: item 2 is -2, want a noise variance > 0"},
		{[]string{"budget", "--release-delta", "2"}, "delta"},
		{[]string{"budget", "--release-sensitivity", "-1"}, "sensitivity"},
		{[]string{"budget", "--output-format", "xml"}, "--output-format"},
		{[]string{"budget", "extra"}, "unknown command"},
		{[]string{"sample"}, "--mechanism is required"},
		{[]string{"sample", "--mechanism", "cauchy"}, "cauchy"},
		{[]string{"sample", "--mechanism", "huber", "--alpha", "0"}, "alpha"},
		{[]string{"sample", "--mechanism", "huber", "--alpha", "NaN"}, "alpha"},
		{[]string{"sample", "--mechanism", "huber", "--sigma", "2"}, "--sigma does not apply"},
		{[]string{"sample", "--mechanism", "gaussian", "--sigma", "-1"}, "sigma"},
		{[]string{"sample", "--mechanism", "gaussian", "--scale", "2"}, "--scale does not apply"},
		{[]string{"sample", "--mechanism", "laplace", "--alpha", "2"}, "--alpha does not apply"},
		{[]string{"sample", "--mechanism", "laplace", "-n", "-5"}, "-n"},
		{[]string{"sample", "--mechanism", "laplace", "--force"}, "--force needs --output"},
		{[]string{"sample", "--mechanism", "laplace", "--sampler", "exact"}, "--sampler"},
		{[]string{"sample", "--mechanism", "laplace", "--value", "NaN"}, "--value"},
		{[]string{"sample", "--mechanism", "laplace", "--scale", "1e-90", "--value", "1e300"}, "too large for the grid"},
		{[]string{"nosuch"}, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, stderr, code := dpmc(t, tt.args...)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if !strings.HasPrefix(stderr, "dpmc: ") || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr = %q, want a dpmc error mentioning %q", stderr, tt.want)
			}
		})
	}
}

func TestSampleSeeded(t *testing.T) {
	for _, mech := range []string{"huber", "laplace", "gaussian"} {
		t.Run(mech, func(t *testing.T) {
			a, stderr, code := dpmc(t, "sample", "--mechanism", mech, "-n", "500", "--seed", "7")
			if code != 0 {
				t.Fatal(stderr)
			}
			if !strings.Contains(stderr, "NOT private") {
				t.Errorf("seeded run printed no warning: %q", stderr)
			}
			b, _, _ := dpmc(t, "sample", "--mechanism", mech, "-n", "500", "--seed", "7")
			if a != b {
				t.Error("same seed gave different samples")
			}
			lines := strings.Split(strings.TrimSuffix(a, "\n"), "\n")
			if len(lines) != 500 {
				t.Fatalf("%d lines, want 500", len(lines))
			}
			for i, l := range lines {
				if _, err := strconv.ParseFloat(l, 64); err != nil {
					t.Fatalf("line %d = %q is not a number", i+1, l)
				}
			}
			c, _, _ := dpmc(t, "sample", "--mechanism", mech, "-n", "500", "--seed", "8")
			if a == c {
				t.Error("different seeds gave the same samples")
			}
		})
	}
}

func TestSampleUnseeded(t *testing.T) {
	a, stderr, code := dpmc(t, "sample", "--mechanism", "huber", "--alpha", "1", "--scale", "2", "-n", "50")
	if code != 0 {
		t.Fatal(stderr)
	}
	if strings.Contains(stderr, "NOT private") {
		t.Errorf("unseeded run warned about seeding: %q", stderr)
	}
	if !strings.Contains(stderr, "discrete-huber(α=1, s=2,") || !strings.Contains(stderr, "pure ε-DP with ε = α·⌈(Δ₁+γ)/γ⌉·γ/s; at Δ₁ = 1: ε = 0.5") {
		t.Errorf("stderr does not state the guarantee: %q", stderr)
	}
	b, _, _ := dpmc(t, "sample", "--mechanism", "huber", "--alpha", "1", "--scale", "2", "-n", "50")
	if a == b {
		t.Error("two crypto/rand runs gave identical output")
	}
}

func TestSampleFloatWarns(t *testing.T) {
	_, stderr, code := dpmc(t, "sample", "--mechanism", "gaussian", "--sigma", "49", "-n", "5", "--sampler", "float", "--seed", "1")
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stderr, "--sampler float") || !strings.Contains(stderr, "it is NOT private") {
		t.Errorf("--sampler float printed no warning: %q", stderr)
	}
	if !strings.Contains(stderr, "samples of gaussian(") {
		t.Errorf("--sampler float did not use the float sampler: %q", stderr)
	}
	_, stderr, _ = dpmc(t, "sample", "--mechanism", "gaussian", "-n", "5")
	if strings.Contains(stderr, "--sampler float") || !strings.Contains(stderr, "discrete-gaussian") {
		t.Errorf("default sampler is not the discrete one, or it warned: %q", stderr)
	}
}

// TestSampleValueOnGrid checks that --value releases are the value rounded
// to the grid plus integer noise: every output is a multiple of γ.
func TestSampleValueOnGrid(t *testing.T) {
	for _, args := range [][]string{
		{"--mechanism", "gaussian", "--sigma", "49"},
		{"--mechanism", "laplace", "--scale", "3.7"},
		{"--mechanism", "huber", "--alpha", "1", "--scale", "25.3"},
	} {
		out, stderr, code := dpmc(t, append([]string{"sample", "--value", "1000.1", "-n", "200"}, args...)...)
		if code != 0 {
			t.Fatal(stderr)
		}
		i := strings.Index(stderr, "grid γ = ")
		if i < 0 {
			t.Fatalf("stderr does not state the grid: %q", stderr)
		}
		g, err := strconv.ParseFloat(strings.Fields(stderr[i+len("grid γ = "):])[0], 64)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for _, l := range strings.Fields(out) {
			y, err := strconv.ParseFloat(l, 64)
			if err != nil {
				t.Fatal(err)
			}
			if q := y / g; q != math.Trunc(q) {
				t.Errorf("%v: release %v is not a multiple of γ = %g", args, y, g)
			}
			sum += y
		}
		if mean := sum / 200; math.Abs(mean-1000.1) > 30 {
			t.Errorf("%v: releases average %g, far from the value 1000.1", args, mean)
		}
	}
}

func TestSampleOutputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.txt")
	if _, stderr, code := dpmc(t, "sample", "--mechanism", "laplace", "-n", "10", "--seed", "1", "-o", path); code != 0 {
		t.Fatal(stderr)
	}
	first, _ := os.ReadFile(path)
	if n := bytes.Count(first, []byte("\n")); n != 10 {
		t.Fatalf("%d lines in file, want 10", n)
	}
	_, stderr, code := dpmc(t, "sample", "--mechanism", "laplace", "-n", "3", "-o", path)
	if code != 1 || !strings.Contains(stderr, "--force") {
		t.Errorf("overwrite without --force: exit %d, %q", code, stderr)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, first) {
		t.Error("file changed by a refused overwrite")
	}
	if _, stderr, code := dpmc(t, "sample", "--mechanism", "laplace", "-n", "3", "-o", path, "--force"); code != 0 {
		t.Fatal(stderr)
	}
	if again, _ := os.ReadFile(path); bytes.Count(again, []byte("\n")) != 3 {
		t.Error("--force did not overwrite")
	}
}

// TestHelpListsFlagsWithDefaults: every flag of every command appears in its
// help, and flags with a non-zero default show it.
func TestHelpListsFlagsWithDefaults(t *testing.T) {
	tests := map[string][]string{
		"budget": {"--variances floats", "(default 1,2,3,4)", "--release-sensitivity", "(default 5)", "--release-delta", "(default 1e-05)", "--output-format", `(default "text")`, "--output", "--force"},
		"sample": {"--mechanism", "--alpha", "(default 3)", "--scale", "(default 1)", "--sigma", "-n, --n", "(default 1000)", "--seed", "crypto/rand", "--output", "--force"},
	}
	for cmd, wants := range tests {
		out, _, code := dpmc(t, "help", cmd)
		if code != 0 {
			t.Fatalf("help %s: exit %d", cmd, code)
		}
		for _, w := range wants {
			if !strings.Contains(out, w) {
				t.Errorf("help %s lacks %q", cmd, w)
			}
		}
	}
	out, _, _ := dpmc(t, "--help")
	for _, w := range []string{"budget", "sample"} {
		if !strings.Contains(out, w) {
			t.Errorf("dpmc --help lacks %q", w)
		}
	}
}

func TestVersion(t *testing.T) {
	out, stderr, code := dpmc(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "dpmc ") || !strings.Contains(out, "go1.") {
		t.Errorf("--version: exit %d, %q, %q", code, out, stderr)
	}
}

// A bad --output path is refused before any output, and no stderr line
// claims samples were drawn.
func TestOutputCheckedFirst(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "no", "such", "x.txt")
	for _, args := range [][]string{
		{"sample", "--mechanism", "laplace", "--scale", "1", "-n", "10", "-o", bad},
		{"budget", "-o", bad},
	} {
		_, stderr, code := dpmc(t, args...)
		if code != 1 || !strings.HasPrefix(stderr, "dpmc: --output:") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// dpmc train's help states the user-level factor rule with the numbers
// userdp.Defaults uses, and docs/cli.md its threshold: a change of the
// rule that leaves the help behind fails here.
func TestTrainHelpStatesTheFactorRule(t *testing.T) {
	d := userdp.Defaults(1, 1e-6, 1, 5)
	// The command's own text, not its flags' help (which --head-items
	// builds from Defaults and so always agrees).
	flat := strings.Join(strings.Fields(newTrainCmd().Long), " ")
	for _, w := range []string{
		fmt.Sprintf("rank %d item factors", d.Rank),
		fmt.Sprintf("users × ε ≥ %g", d.AutoFactorThreshold),
		fmt.Sprintf("reaches %g σ_G/C²", d.HeadNoiseRatio),
		fmt.Sprintf("default %d", d.HeadItems),
		fmt.Sprintf("over the %d most popular", d.StartItems),
		fmt.Sprintf("and %d ALS step", d.Iters),
		fmt.Sprintf("popularity column %g·ln(n̂/n₀)", d.PopularityScale),
		fmt.Sprintf("item-bias column %g·(b − b_tail)", d.BiasColumnScale),
	} {
		if !strings.Contains(flat, w) {
			t.Errorf("train's help text lacks %q", w)
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	if w := fmt.Sprintf("users × ε ≥ %g,", d.AutoFactorThreshold); !strings.Contains(strings.Join(strings.Fields(string(doc)), " "), w) {
		t.Errorf("docs/cli.md lacks %q", w)
	}
}
