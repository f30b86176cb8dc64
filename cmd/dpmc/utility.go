package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dpmc/dpmc/internal/atomicfile"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/synthetic"
	"github.com/dpmc/dpmc/utility"
)

type utilityFlags struct {
	dataDir, out, report string
	runs, users          int
	epsilons             epsilonList
	delta                float64
	quick, force         bool
	ablation             bool
}

func newUtilityCmd() *cobra.Command {
	fl := utilityFlags{epsilons: epsilonList{0.5, 1, 2, 5, 10, 20}}
	cmd := &cobra.Command{
		Use:   "utility",
		Short: "Measure test RMSE against ε for the user-level private models; write PRIVACY-UTILITY.md",
		Long: `utility measures the privacy–utility curve of dpmc train --privacy user's
pipeline (package userdp): test RMSE at every total ε of --epsilons, over
--repeats unseeded runs each (95 % intervals), beside the training mean, the DP
item-bias model with local user biases and the same pipeline without noise.

It runs on MovieLens 100k (u1.base / u1.test, with its public catalogue of
items 1–1682) when --data-dir holds movielens-100k/, and always on the
MovieLens-1M-shaped generator (synthetic.DefaultRealistic with --users users,
80/20 split). It writes JSON, PNG and SVG per data set under --output-dir and the
report --report.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runUtility(cmd, &fl) },
	}
	f := cmd.Flags()
	f.StringVar(&fl.dataDir, "data-dir", "", "folder holding movielens-100k/ (default ./data, else ../shared/data; without either, MovieLens 100k is skipped)")
	f.StringVar(&fl.out, "output-dir", "results/utility", "folder for the JSON and plots; created if absent, and if not empty it must hold earlier results of dpmc utility (or pass --force) (default: results/utility, with --quick results-quick-utility)")
	f.StringVar(&fl.report, "report", "PRIVACY-UTILITY.md", "the Markdown report to write (default: PRIVACY-UTILITY.md, with --quick results-quick-utility/PRIVACY-UTILITY.md)")
	f.IntVar(&fl.runs, "repeats", 5, "unseeded runs per private point (≥ 2)")
	f.IntVar(&fl.users, "users", 6040, "users of the synthetic data set")
	f.Var(&fl.epsilons, "epsilons", "total ε values, comma-separated")
	f.Float64Var(&fl.delta, "delta", 1e-6, "total δ")
	f.BoolVar(&fl.quick, "quick", false, "a smoke test: unless given, 2 runs, ε 1 and 10, 600 synthetic users, into results-quick-utility/ (plots, JSON and the report)")
	f.BoolVar(&fl.force, "force", false, "write into a non-empty --output-dir without earlier results of dpmc utility, and overwrite a --report file that dpmc did not write")
	f.BoolVar(&fl.ablation, "ablation", false, "instead, vary each choice of the default rule on its own (seeded, paired runs: experiments, not releases) and write --output-dir/ablation.md")
	deprecatedAlias(cmd, "out", "output-dir")
	deprecatedAlias(cmd, "runs", "repeats")
	return cmd
}

const utilityMarker = "# Privacy–utility of dpmc's user-level private models"

func runUtility(cmd *cobra.Command, fl *utilityFlags) error {
	stderr := cmd.ErrOrStderr()
	if fl.quick {
		// The smoke test's sizes, unless given.
		changed := cmd.Flags().Changed
		if !changed("repeats") {
			fl.runs = 2
		}
		if !changed("epsilons") {
			fl.epsilons = epsilonList{1, 10}
		}
		if !changed("users") {
			fl.users = 600
		}
		if !changed("output-dir") {
			fl.out = "results-quick-utility"
		}
		if !cmd.Flags().Changed("report") {
			fl.report = filepath.Join("results-quick-utility", "PRIVACY-UTILITY.md")
		}
	}
	if fl.runs < 2 {
		return fmt.Errorf("utility: --repeats %d, want ≥ 2", fl.runs)
	}
	if fl.users < 100 || fl.users > 1e6 {
		return fmt.Errorf("utility: --users %d, want in [100, 1e6]", fl.users)
	}
	for _, e := range fl.epsilons {
		if !(e > 0) || math.IsInf(e, 0) {
			return fmt.Errorf("utility: --epsilons: %v, want finite numbers > 0", e)
		}
	}
	if !(fl.delta > 0 && fl.delta < 1) {
		return fmt.Errorf("utility: --delta %v, want in (0, 1)", fl.delta)
	}
	// Check every output before the long work.
	if old, err := os.ReadFile(fl.report); err == nil && !bytes.HasPrefix(old, []byte(utilityMarker)) && !fl.force {
		return fmt.Errorf("utility: --report %s exists and was not written by dpmc utility; use --force to overwrite", fl.report)
	}
	dir := utilityDataDir(fl.dataDir)
	if fl.dataDir != "" && dir == "" {
		return fmt.Errorf("utility: --data-dir %s: no movielens-100k/u1.base there", fl.dataDir)
	}
	if err := utility.CheckDir(fl.out, fl.force); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(fl.report), 0o755); err != nil {
		return fmt.Errorf("utility: --report: %w", err)
	}
	progress := func(s string) { fmt.Fprintln(stderr, "dpmc: utility:", s) }
	var configs []utility.Config
	if dir != "" {
		tr, te, err := ratings.LoadPair(filepath.Join(dir, "u1.base"), filepath.Join(dir, "u1.test"), ratings.Options{})
		if err != nil {
			return fmt.Errorf("utility: %w", err)
		}
		cat := make([]string, 1682)
		for k := range cat {
			cat[k] = strconv.Itoa(k + 1)
		}
		configs = append(configs, utility.Config{Name: "MovieLens 100k (u1.base / u1.test)", Train: tr, Test: te, Catalogue: cat})
	} else {
		progress("MovieLens 100k not found under --data-dir, ./data or ../shared/data: skipped")
	}
	syn := synthetic.DefaultRealistic(fl.users, 1)
	d, err := syn.Generate()
	if err != nil {
		return fmt.Errorf("utility: %w", err)
	}
	tr, te, err := ratings.Split(d, 0.2, rng.Seeded(2))
	if err != nil {
		return fmt.Errorf("utility: %w", err)
	}
	cat := make([]string, syn.Items)
	for k := range cat {
		cat[k] = strconv.Itoa(k + 1)
	}
	configs = append(configs, utility.Config{Name: fmt.Sprintf("synthetic, MovieLens-1M-shaped (%d users, seed 1, 80/20 split)", fl.users), Train: tr, Test: te, Catalogue: cat})

	command := "dpmc utility " + strings.Join(os.Args[2:], " ")
	if fl.ablation {
		return runAblation(cmd, fl, configs, strings.TrimSpace(command), progress)
	}
	var results []*utility.Result
	var plots []string
	for k, c := range configs {
		c.Epsilons, c.Delta, c.Runs, c.Progress = fl.epsilons, fl.delta, fl.runs, progress
		res, err := utility.Run(cmd.Context(), c)
		if err != nil {
			return err
		}
		results = append(results, res)
		base := filepath.Join(fl.out, fmt.Sprintf("utility%d", k+1))
		for _, format := range []string{"png", "svg"} {
			if err := res.WritePlot(base+"."+format, format); err != nil {
				return err
			}
		}
		if err := atomicfile.Write(base+".json", true, func(w io.Writer) error {
			e := json.NewEncoder(w)
			e.SetIndent("", "  ")
			return e.Encode(res)
		}); err != nil {
			return err
		}
		rel, err := filepath.Rel(filepath.Dir(fl.report), base+".png")
		if err != nil {
			rel = base + ".png"
		}
		plots = append(plots, filepath.ToSlash(rel))
	}
	if err := atomicfile.Write(fl.report, true, func(w io.Writer) error {
		return utility.WriteReport(w, strings.TrimSpace(command), results, plots)
	}); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s and %s/utility*.{json,png,svg}\n", fl.report, fl.out)
	return nil
}

// runAblation runs utility.Ablate on every data set and writes one
// Markdown file.
func runAblation(cmd *cobra.Command, fl *utilityFlags, configs []utility.Config, command string, progress func(string)) error {
	var abl []*utility.Ablation
	for _, c := range configs {
		c.Epsilons, c.Delta, c.Runs, c.Progress = fl.epsilons, fl.delta, fl.runs, progress
		a, err := utility.Ablate(cmd.Context(), utility.AblationConfig{Config: c})
		if err != nil {
			return err
		}
		abl = append(abl, a)
	}
	path := filepath.Join(fl.out, "ablation.md")
	if err := atomicfile.Write(path, true, func(w io.Writer) error {
		fmt.Fprintf(w, "# Ablation of userdp.Defaults\n\nWritten by `%s`. Each row changes one choice of the default rule; in brackets, the change in test RMSE against the defaults (negative is better).\n\n", command)
		for _, a := range abl {
			if err := a.WriteMarkdown(w); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", path)
	return nil
}

// utilityDataDir returns the movielens-100k folder under dir, ./data or
// ../shared/data, or "" if none holds u1.base.
func utilityDataDir(dir string) string {
	cands := []string{dir}
	if dir == "" {
		cands = []string{"data", filepath.Join("..", "shared", "data")}
	}
	for _, c := range cands {
		p := filepath.Join(c, "movielens-100k")
		if _, err := os.Stat(filepath.Join(p, "u1.base")); err == nil {
			return p
		}
	}
	return ""
}

// epsilonList is a flag value holding a comma-separated list of numbers.
type epsilonList []float64

func (l *epsilonList) String() string {
	parts := make([]string, len(*l))
	for k, v := range *l {
		parts[k] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

func (l *epsilonList) Set(s string) error {
	v, err := parseFloatList(s)
	if err != nil {
		return err
	}
	*l = v
	return nil
}

func (l *epsilonList) Type() string { return "floats" }
