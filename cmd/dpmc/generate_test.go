package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/synthetic"
)

// TestGenerate writes a small benchmark set and its held-out ratings, and
// loads both back: the sizes asked for, values in [1, 5], the same data
// for the same seed, and other data for another.
func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	tr, te := filepath.Join(dir, "b.tsv"), filepath.Join(dir, "b.test.tsv")
	_, stderr, code := dpmc(t, "generate", "--ratings", "100000", "--data-seed", "3", "-o", tr, "--test-output", te, "--test-ratings", "700")
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stderr, "100000 ratings of 1000 users × 200 items") || !strings.Contains(stderr, "experimental data") {
		t.Errorf("stderr %q does not describe the set", stderr)
	}
	train, test, err := ratings.LoadPair(tr, te, ratings.Options{Format: ratings.FormatTSV})
	if err != nil {
		t.Fatal(err)
	}
	if train.Ratings.Len() != 100000 || train.Ratings.Rows() != 1000 || train.Ratings.Cols() != 200 || test.Ratings.Len() != 700 {
		t.Fatalf("loaded %d ratings of %d × %d and %d held out; want 100000 of 1000 × 200 and 700",
			train.Ratings.Len(), train.Ratings.Rows(), train.Ratings.Cols(), test.Ratings.Len())
	}
	if train.Ratings.Min() < 1 || train.Ratings.Max() > 5 || train.Ratings.Min() == train.Ratings.Max() {
		t.Errorf("ratings in [%v, %v], want a spread within [1, 5]", train.Ratings.Min(), train.Ratings.Max())
	}
	for c := range test.Ratings.All() {
		if _, ok := train.Ratings.Get(int(c.User), int(c.Item)); ok {
			t.Fatalf("held-out cell (%d, %d) is also a training rating", c.User, c.Item)
		}
	}
	a, _, _ := dpmc(t, "generate", "--ratings", "100000", "--data-seed", "3")
	b, _ := os.ReadFile(tr)
	if a != string(b) {
		t.Error("the same seed to stdout and to a file gave different data")
	}
	if c, _, _ := dpmc(t, "generate", "--ratings", "100000", "--data-seed", "4"); c == a {
		t.Error("seeds 3 and 4 gave the same data")
	}
}

// TestGenerateRejects checks that bad flags are refused, naming the flag,
// before anything is written, and that an existing file is kept.
func TestGenerateRejects(t *testing.T) {
	dir := t.TempDir()
	kept := filepath.Join(dir, "kept.tsv")
	if err := os.WriteFile(kept, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--ratings", "49999"}, "--ratings 49999"},
		{[]string{"--test-ratings", "10"}, "--test-ratings needs --test-output"},
		{[]string{"--ratings", "50000", "-o", kept}, "--force"},
		{[]string{"--ratings", "50000", "-o", filepath.Join(dir, "a.tsv"), "--test-output", filepath.Join(dir, "a.tsv")}, "same file as --output"},
		{[]string{"--ratings", "50000", "--test-output", kept}, "--test-output"},
		{[]string{"--ratings", "50000", "--test-output", filepath.Join(dir, "t.tsv"), "--test-ratings", "0"}, "--test-ratings 0"},
		{[]string{"--ratings", "50000", "--test-output", filepath.Join(dir, "t.tsv"), "--test-ratings", "1"}, "only 0 cells are left"},
	} {
		stdout, stderr, code := dpmc(t, append([]string{"generate"}, tt.args...)...)
		if code == 0 || !strings.Contains(stderr, tt.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, %d bytes out; want a failure naming %q", tt.args, code, stderr, len(stdout), tt.want)
		}
	}
	if b, _ := os.ReadFile(kept); string(b) != "mine\n" {
		t.Errorf("the existing file now holds %q", b)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 1 {
		t.Errorf("files left behind: %v", names)
	}
}

// TestGenerateDecimals checks --decimals: the same cells as without it,
// each rating written with that many decimals and within half a unit of
// the last decimal of the value written without it; 0 gives whole stars.
func TestGenerateDecimals(t *testing.T) {
	plain, _, code := dpmc(t, "generate", "--ratings", "50000")
	if code != 0 {
		t.Fatal("generate failed")
	}
	for _, d := range []string{"0", "4"} {
		out, stderr, code := dpmc(t, "generate", "--ratings", "50000", "--decimals", d)
		if code != 0 {
			t.Fatal(stderr)
		}
		a, b := strings.Split(plain, "\n"), strings.Split(out, "\n")
		if len(a) != len(b) {
			t.Fatalf("--decimals %s: %d lines, want %d", d, len(b), len(a))
		}
		for k := range a {
			fa, fb := strings.Split(a[k], "\t"), strings.Split(b[k], "\t")
			if len(fa) != 3 {
				continue
			}
			if fa[0] != fb[0] || fa[1] != fb[1] {
				t.Fatalf("--decimals %s: line %d is %q, want the cell of %q", d, k+1, b[k], a[k])
			}
			x, _ := strconv.ParseFloat(fa[2], 64)
			y, err := strconv.ParseFloat(fb[2], 64)
			dec := 0
			if i := strings.IndexByte(fb[2], '.'); i >= 0 {
				dec = len(fb[2]) - i - 1
			}
			if err != nil || strconv.Itoa(dec) != d || math.Abs(x-y) > 0.5*math.Pow(10, -float64(dec))+1e-12 {
				t.Fatalf("--decimals %s: line %d rating %q, from %q", d, k+1, fb[2], fa[2])
			}
		}
	}
	if _, stderr, code := dpmc(t, "generate", "--ratings", "50000", "--decimals", "10"); code == 0 || !strings.Contains(stderr, "--decimals") {
		t.Errorf("--decimals 10 accepted: %q", stderr)
	}
}

// TestGenerateRealistic checks --synthetic realistic: the whole set is
// synthetic.DefaultRealistic's for the data seed, written as tsv; with
// --test-output the two files are ratings.Split of it at --test-fraction
// with seed --data-seed + 1 (the split dpmc utility uses for seed 1),
// disjoint and together the whole set.
func TestGenerateRealistic(t *testing.T) {
	dir := t.TempDir()
	whole, stderr, code := dpmc(t, "generate", "--synthetic", "realistic", "--users", "120", "--data-seed", "5")
	if code != 0 {
		t.Fatal(stderr)
	}
	d, err := synthetic.DefaultRealistic(120, 5).Generate()
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	if err := d.WriteTSV(&want); err != nil {
		t.Fatal(err)
	}
	if whole != want.String() {
		t.Fatal("the written set is not synthetic.DefaultRealistic(120, 5)'s")
	}
	if !strings.Contains(stderr, "120 users") || !strings.Contains(stderr, "experimental data") {
		t.Errorf("stderr %q does not describe the set", stderr)
	}
	for _, tc := range []struct {
		frac []string
		want float64
	}{{nil, 0.2}, {[]string{"--test-fraction", "0.5"}, 0.5}} {
		tr, te := filepath.Join(dir, "r.tsv"), filepath.Join(dir, "r.test.tsv")
		args := append([]string{"generate", "--synthetic", "realistic", "--users", "120", "--data-seed", "5", "-o", tr, "--test-output", te, "--force"}, tc.frac...)
		if _, stderr, code := dpmc(t, args...); code != 0 {
			t.Fatal(stderr)
		}
		wantTr, wantTe, err := ratings.Split(d, tc.want, rng.Seeded(6))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			path string
			d    *ratings.Dataset
		}{{tr, wantTr}, {te, wantTe}} {
			var b strings.Builder
			if err := f.d.WriteTSV(&b); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(f.path); string(got) != b.String() {
				t.Errorf("%v: %s is not ratings.Split(set, %g, seed 6)'s part", tc.frac, filepath.Base(f.path), tc.want)
			}
		}
		if n := wantTr.Ratings.Len() + wantTe.Ratings.Len(); n != d.Ratings.Len() || wantTe.Ratings.Len() == 0 {
			t.Errorf("%v: %d + %d ratings, want %d in all", tc.frac, wantTr.Ratings.Len(), wantTe.Ratings.Len(), d.Ratings.Len())
		}
	}
}

// TestGenerateRealisticRejects checks that flags of the other set, or out
// of range, are refused naming the flag, before anything is written.
func TestGenerateRealisticRejects(t *testing.T) {
	dir := t.TempDir()
	te := filepath.Join(dir, "t.tsv")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--synthetic", "movielens"}, `--synthetic "movielens"`},
		{[]string{"--users", "100"}, "--users applies only to --synthetic realistic"},
		{[]string{"--test-fraction", "0.1"}, "--test-fraction applies only to --synthetic realistic"},
		{[]string{"--synthetic", "realistic", "--ratings", "50000"}, "--ratings applies only to the benchmark set"},
		{[]string{"--synthetic", "realistic", "--decimals", "1"}, "--decimals applies only to the benchmark set"},
		{[]string{"--synthetic", "realistic", "--test-output", te, "--test-ratings", "5"}, "--test-ratings applies only to the benchmark set"},
		{[]string{"--synthetic", "realistic", "--users", "5"}, "--users 5"},
		{[]string{"--synthetic", "realistic", "--test-fraction", "0.2"}, "--test-fraction needs --test-output"},
		{[]string{"--synthetic", "realistic", "--test-output", te, "--test-fraction", "1"}, "--test-fraction 1"},
		{[]string{"--synthetic", "realistic", "-o", te, "--test-output", te}, "same file as --output"},
	} {
		stdout, stderr, code := dpmc(t, append([]string{"generate"}, tt.args...)...)
		if code == 0 || !strings.Contains(stderr, tt.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, %d bytes out; want a failure naming %q", tt.args, code, stderr, len(stdout), tt.want)
		}
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 0 {
		t.Errorf("files written: %v", names)
	}
}
