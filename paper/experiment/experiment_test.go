package experiment

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

func TestPaperRMSE(t *testing.T) {
	tests := []struct {
		table         string
		rank          int
		variance, obs float64
		algo, mech    string
		want          float64
		ok            bool
	}{
		{"3", 5, 1, 0.05, AlgoALS, MechHuber, 0.3569, true},
		{"3", 5, 2, 0.15, AlgoIRLS, MechNone, 0.0551, true},
		{"8", 10, 1, 0.10, AlgoALS, MechGaussian, 0.3015, true},
		{"9", 20, 2, 0.05, AlgoIRLS, MechLaplace, 1.9966, true},
		{"6", 32, math.NaN(), 0.0514, AlgoIRLS, MechHuber, 1.3755, true},
		{"7", 32, math.NaN(), 0.15, AlgoIRLS2, MechHuber, 1.7791, true},
		{"7", 32, math.NaN(), 0.20, AlgoIRLS2, MechHuber, 0, false},
		{"3", 5, 3, 0.05, AlgoALS, MechHuber, 0, false},
		{"privacy", 5, math.NaN(), 0.10, AlgoALS, MechHuber, 0, false},
	}
	for _, tt := range tests {
		got, ok := PaperRMSE(tt.table, tt.rank, tt.variance, tt.obs, tt.algo, tt.mech)
		if ok != tt.ok || got != tt.want {
			t.Errorf("PaperRMSE(%s, %d, %v, %v, %s, %s) = %v, %v; want %v, %v", tt.table, tt.rank, tt.variance, tt.obs, tt.algo, tt.mech, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseTables(t *testing.T) {
	if got, err := ParseTables("all"); err != nil || strings.Join(got, ",") != strings.Join(Tables, ",") {
		t.Errorf("all = %v, %v", got, err)
	}
	if got, err := ParseTables("3, 1,3"); err != nil || strings.Join(got, ",") != "3,1" {
		t.Errorf("3, 1,3 = %v, %v", got, err)
	}
	if _, err := ParseTables("4"); err == nil || !strings.Contains(err.Error(), `"4"`) {
		t.Errorf("table 4: err = %v", err)
	}
}

func TestMeanCI(t *testing.T) {
	mean, sd, lo, hi := meanCI([]float64{1, 2, 3})
	// t(0.975, 2) = 4.302653; half-width 4.302653/√3.
	h := 4.302653 / math.Sqrt(3)
	if mean != 2 || math.Abs(sd-1) > 1e-15 || math.Abs(lo-(2-h)) > 1e-5 || math.Abs(hi-(2+h)) > 1e-5 {
		t.Errorf("meanCI = %v, %v, [%v, %v]; want 2, 1, [%v, %v]", mean, sd, lo, hi, 2-h, 2+h)
	}
	if _, sd, lo, _ := meanCI([]float64{4}); !math.IsNaN(sd) || !math.IsNaN(lo) {
		t.Errorf("one value: sd %v, lo %v; want NaN", sd, lo)
	}
}

// cell makes a cell with the given RMSE per trial index.
func cell(rmse ...float64) *Cell {
	c := &Cell{RMSE: map[int]float64{}}
	for i, v := range rmse {
		c.RMSE[i] = v
	}
	c.N = len(rmse)
	c.Mean, c.SD, c.Lo, c.Hi = meanCI(rmse)
	return c
}

func TestPairedAndBestInRow(t *testing.T) {
	// Trial effects are large (data differ) but b − a is always ≈ +0.1:
	// the paired interval finds it although the cells' intervals overlap.
	a := cell(1.0, 2.0, 3.0, 1.5)
	b := cell(1.1, 2.1, 3.1, 1.61)
	if d := Paired(a, b); !d.BetterA || d.BetterB || math.Abs(d.Mean-0.1025) > 1e-12 {
		t.Errorf("Paired = %+v, want a better by 0.1025", d)
	}
	same := cell(1.05, 1.95, 3.0, 1.5)
	labels := []string{"G", "L", "H"}
	tests := []struct {
		name  string
		cells []*Cell
		paper []float64
		want  string
	}{
		{"holds", []*Cell{b, b, a}, []float64{3, 2, 1}, Holds},
		{"fails", []*Cell{a, b, b}, []float64{3, 2, 1}, Fails},
		{"noise", []*Cell{b, same, a}, []float64{3, 2, 1}, WithinNois},
	}
	for _, tt := range tests {
		rv := bestInRow("row", labels, tt.cells, tt.paper)
		if rv.Verdict != tt.want || rv.PaperBest != "H" {
			t.Errorf("%s: %+v, want verdict %s", tt.name, rv, tt.want)
		}
	}
}

// fixture is a small table 3 result: three trials per cell, in which Huber
// is best by a wide margin except at variance 2, 15 % observed with ALS,
// where Laplace is.
func fixture() *TableResult {
	res := &TableResult{Generator: Generator, Table: "3", Seed: 7, Trials: 3, Settings: DefaultSettings(), Seconds: 1.5, Workers: 2, CPUs: 2, GoVersion: "go-test"}
	base := map[string]float64{MechNone: 0.1, MechGaussian: 0.5, MechLaplace: 0.52, MechHuber: 0.4}
	for _, obs := range syntheticObserved {
		for trial := range 3 {
			for _, algo := range syntheticAlgos {
				for _, v := range []float64{0, 1, 2} {
					for _, mech := range syntheticMechs {
						if (v == 0) != (mech == MechNone) {
							continue
						}
						r := base[mech] + 0.01*float64(trial) + 0.001*v
						if v == 2 && obs == 0.15 && algo == AlgoALS && mech == MechLaplace {
							r = 0.3 + 0.01*float64(trial)
						}
						tr := Trial{Table: "3", Dataset: "synthetic", Rank: 5, Observed: obs, Algo: algo, Mechanism: mech, Trial: trial, RMSE: r}
						if v != 0 {
							tr.Variance, tr.Epsilon = ptr(v), ptr(1.0)
						}
						res.Results = append(res.Results, tr)
					}
				}
			}
		}
	}
	return res
}

func TestClaimsAndReport(t *testing.T) {
	dir := t.TempDir()
	if err := CheckDir(dir, false); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, fixture()); err != nil {
		t.Fatal(err)
	}
	rs, err := LoadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	claims := Claims(rs)
	if len(claims) == 0 || claims[0].Source != "Table 3, §5" {
		t.Fatalf("claims = %+v", claims)
	}
	// 12 rows: Huber is the paper's best in all; ours in 11, Laplace in one.
	if c := claims[0]; c.Verdict != Partly || !strings.Contains(c.Evidence, "holds in 11 of 12") || !strings.Contains(c.Evidence, "Laplacian is best") {
		t.Errorf("best-in-row claim = %+v", c)
	}
	var buf bytes.Buffer
	if err := Report(&buf, rs, "results", "SEARCH RECORD\n"); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{ReportMarker, "## Verdicts on the paper's claims", "SEARCH RECORD", "## Table 3", "![table3_variance1](results/table3_variance1.png)", "| 1 | 5 % | ALS | Huber | 0.4110 ± 0.0100 |", "0.3569"} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, f := range []string{"table3.csv", "table3.md", "table3_variance2.png", "table3_variance2.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
}

func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(dir, false); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("foreign directory: err = %v", err)
	}
	if err := CheckDir(dir, true); err != nil {
		t.Errorf("forced: %v", err)
	}
}

func TestPlan(t *testing.T) {
	cfg := Config{Trials: 2, Seed: 1, Settings: DefaultSettings()}
	jobs, err := plan(cfg, "3")
	if err != nil {
		t.Fatal(err)
	}
	// 3 fractions × 2 trials × 2 algorithms × (vanilla + 2 variances × 3 mechanisms).
	if len(jobs) != 84 {
		t.Fatalf("%d jobs, want 84", len(jobs))
	}
	// Every cell of one (fraction, trial) shares data and noise seeds.
	seeds := map[[2]float64][2]uint64{}
	for _, j := range jobs {
		k := [2]float64{j.t.Observed, float64(j.t.Trial)}
		s := [2]uint64{j.t.DataSeed, j.t.NoiseSeed}
		if old, ok := seeds[k]; ok && old != s {
			t.Fatalf("trial %v: seeds %v and %v", k, old, s)
		}
		seeds[k] = s
		if j.t.Mechanism == MechHuber && j.t.Algo == AlgoIRLS && j.t.Threshold != *j.t.Alpha {
			t.Errorf("IRLS threshold %v with Huber α %v", j.t.Threshold, *j.t.Alpha)
		}
	}
	if len(seeds) != 6 {
		t.Errorf("%d distinct trial seeds, want 6", len(seeds))
	}
	pj, err := plan(cfg, "privacy")
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Settings
	if want := 2 * 2 * (1 + len(s.PrivacyEpsilons)*(2+len(s.PrivacyAlphas))); len(pj) != want {
		t.Errorf("privacy: %d jobs, want %d", len(pj), want)
	}
}

func TestTallyVerdict(t *testing.T) {
	tests := []struct {
		t    tally
		want string
	}{
		{tally{n: 4, holds: 4}, Holds},
		{tally{n: 4, holds: 3, noise: 1}, Holds},
		{tally{n: 4, holds: 1, noise: 3}, WithinNois},
		{tally{n: 4, holds: 3, fails: 1}, Partly},
		{tally{n: 4, holds: 1, fails: 1, noise: 2}, Fails},
		{tally{n: 4, fails: 1, noise: 3}, Fails},
		{tally{}, "not run"},
	}
	for _, tt := range tests {
		if got := tt.t.verdict(); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.t, got, tt.want)
		}
	}
}

// FuzzParseTables checks that any --table value is either an error or a
// list of known, distinct tables.
func FuzzParseTables(f *testing.F) {
	for _, s := range []string{"all", "3", "1,3,6", " 7 , privacy", "", ",", "3,3", "10", "all,3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseTables(s)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, tb := range got {
			if seen[tb] || !slices.Contains(Tables, tb) {
				t.Fatalf("ParseTables(%q) = %v", s, got)
			}
			seen[tb] = true
		}
		if len(got) == 0 {
			t.Fatalf("ParseTables(%q) = no tables, no error", s)
		}
	})
}

// TestRunProgressSerialized checks the Progress contract: with several
// workers, the callback is never entered while another call is running and
// sees every count from 1 to the total exactly once, in order.
func TestRunProgressSerialized(t *testing.T) {
	s := QuickSettings()
	s.Rows, s.Cols, s.SyntheticIters = 30, 30, 2
	cfg := Config{Tables: []string{"3"}, Trials: 1, Seed: 7, Quick: true, Settings: s, Workers: 4}
	var inside atomic.Int32
	var seen []int
	overlap := false
	prog := func(table string, done, total int) {
		if inside.Add(1) != 1 {
			overlap = true
		}
		seen = append(seen, done) // unsynchronised on purpose: the contract says it is safe
		runtime.Gosched()
		inside.Add(-1)
	}
	var total int
	err := Run(context.Background(), cfg, prog, func(res *TableResult) error {
		total = len(res.Results)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if overlap {
		t.Fatal("progress callback entered concurrently")
	}
	if len(seen) != total || total == 0 {
		t.Fatalf("%d progress calls for %d trials", len(seen), total)
	}
	for i, d := range seen {
		if d != i+1 {
			t.Fatalf("call %d reported done=%d, want %d", i, d, i+1)
		}
	}
}

func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		labels []string
	}{
		{0.15, 2.5, []string{"0.2", "0.5", "1", "2"}},
		{1, 20, []string{"1", "2", "5", "10", "20"}},
		{0.03, 0.04, []string{"0.03", "0.04"}},
		{900, 2100, []string{"1000", "2000"}},
	} {
		var labels []string
		for _, tk := range (logTicks{}).Ticks(tc.lo, tc.hi) {
			if tk.Value < tc.lo || tk.Value > tc.hi {
				t.Errorf("[%g, %g]: tick %g outside the range", tc.lo, tc.hi, tk.Value)
			}
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if !slices.Equal(labels, tc.labels) {
			t.Errorf("[%g, %g]: labels %q, want %q", tc.lo, tc.hi, labels, tc.labels)
		}
	}
	if got := (logTicks{}).Ticks(0, 1); got != nil {
		t.Errorf("non-positive range gave %v", got)
	}
}

// The report names the command that made its results: a quick run of
// some tables is not passed off as the paper's full run.
func TestReproduceCommands(t *testing.T) {
	res := func(quick bool, tables ...string) []*TableResult {
		var rs []*TableResult
		for _, tb := range tables {
			rs = append(rs, &TableResult{Table: tb, Quick: quick})
		}
		return rs
	}
	for _, c := range []struct {
		name string
		rs   []*TableResult
		want []string
	}{
		{"all, full", res(false, Tables...), []string{"go run ./cmd/dpmc reproduce --table all"}},
		{"all, quick", res(true, Tables...), []string{"go run ./cmd/dpmc reproduce --quick --table all"}},
		{"quick 3", res(true, "3"), []string{"go run ./cmd/dpmc reproduce --quick --table 3"}},
		{"mixed", append(res(false, "1"), res(true, "8", "3")...), []string{"go run ./cmd/dpmc reproduce --table 1", "go run ./cmd/dpmc reproduce --quick --table 3,8"}},
	} {
		got := ReproduceCommands(c.rs)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		var buf bytes.Buffer
		if err := Report(&buf, c.rs, "results", ""); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), "were written by\n\n```\n"+strings.Join(c.want, "\n")+"\n```") {
			t.Errorf("%s: report does not name %q:\n%.600s", c.name, c.want, buf.String())
		}
	}
}
