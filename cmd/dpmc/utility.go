package main

import (
	"bytes"
	"context"
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
	study                string
	heldOut, easeLambda  float64
}

func newUtilityCmd() *cobra.Command {
	fl := utilityFlags{epsilons: epsilonList{0.5, 1, 2, 5, 10, 20}}
	cmd := &cobra.Command{
		Use:   "utility",
		Short: "Measure test RMSE and top-k ranking against ε for the user-level private models; write PRIVACY-UTILITY.md",
		Long: `utility measures the privacy–utility curves of dpmc train --privacy user's
pipeline (package userdp), over --repeats unseeded runs at every total ε of
--epsilons (95 % intervals):

  rmse     test RMSE, beside the training mean, the DP item-bias model with
           local user biases and the same pipeline without noise;
  ranking  NDCG@10 and recall@20 (package metrics' conventions), beside the
           non-private baselines popularity, EASE (--ease-lambda) and
           PureSVD (k = 20) and the ranking pipeline without noise, with the
           private ranking model (--objective ranking), the DP popularity of
           its release and of the default rating release, and the rating
           model ranking by predicted rating; under the given
           split and under held-out users (--heldout of the users absent
           from training, 80 % of each one's ratings given as history, 20 %
           scored; Liang et al. 2018).

--study picks them (default both).

It runs on MovieLens 100k (u1.base / u1.test, with its public catalogue of
items 1–1682) when --data-dir (default ./data, ../shared/data, then the
current folder) holds movielens-100k/ or ml-100k/ (as the archive unpacks),
and says on stderr when it skips it; and always on the
MovieLens-1M-shaped generator (synthetic.DefaultRealistic with --users users,
80/20 split). With MovieLens 100k the rmse study also runs a random 80/20
split of all its ratings (u.data) beside the generator at its size (943
users) and reports the differences: the check that the generator is as hard
as real data. It writes JSON, PNG and SVG per data set under --output-dir and the
report --report.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runUtility(cmd, &fl) },
	}
	f := cmd.Flags()
	f.StringVar(&fl.dataDir, "data-dir", "", "folder holding movielens-100k/ or ml-100k/ (default ./data, else ../shared/data, else the current folder; without it, MovieLens 100k is skipped, as stderr says)")
	f.StringVar(&fl.out, "output-dir", "results/utility", "folder for the JSON and plots; created if absent, and if not empty it must hold earlier results of dpmc utility (or pass --force) (default: results/utility, with --quick results-quick-utility)")
	f.StringVar(&fl.report, "report", "PRIVACY-UTILITY.md", "the Markdown report to write; its folder must exist, unless it is --output-dir (default: PRIVACY-UTILITY.md, with --quick results-quick-utility/PRIVACY-UTILITY.md)")
	f.IntVar(&fl.runs, "repeats", 5, "unseeded runs per private point (≥ 2)")
	f.IntVar(&fl.users, "users", 6040, "users of the synthetic data set")
	f.Var(&fl.epsilons, "epsilons", "total ε values, comma-separated")
	f.Float64Var(&fl.delta, "delta", 1e-6, "total δ")
	f.BoolVar(&fl.quick, "quick", false, "a smoke test: unless given, 2 runs, ε 1 and 10, 600 synthetic users, into results-quick-utility/ (plots, JSON and the report)")
	f.BoolVar(&fl.force, "force", false, "write into a non-empty --output-dir without earlier results of dpmc utility, and overwrite a --report file that dpmc did not write")
	f.StringVar(&fl.study, "study", "both", "which curves: both, rmse or ranking")
	f.Float64Var(&fl.heldOut, "heldout", 0.2, "ranking study: the fraction of users held out of training for the held-out-users protocol, in (0, 1); the split is fixed (seed 3), the noise is not")
	f.Float64Var(&fl.easeLambda, "ease-lambda", 500, "ranking study: EASE's ridge λ > 0 (500: the best on MovieLens 100k u1; larger data need more)")
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
	rmseStudy, rankStudy := fl.study == "both" || fl.study == "rmse", fl.study == "both" || fl.study == "ranking"
	if !rmseStudy && !rankStudy {
		return fmt.Errorf("utility: --study %q, want both, rmse or ranking", fl.study)
	}
	if !(fl.heldOut > 0 && fl.heldOut < 1) {
		return fmt.Errorf("utility: --heldout %v, want in (0, 1)", fl.heldOut)
	}
	if !(fl.easeLambda > 0) || math.IsInf(fl.easeLambda, 0) {
		return fmt.Errorf("utility: --ease-lambda %v, want a finite number > 0", fl.easeLambda)
	}
	// Check every output before the long work.
	if old, err := os.ReadFile(fl.report); err == nil && !bytes.HasPrefix(old, []byte(utilityMarker)) && !fl.force {
		return fmt.Errorf("utility: --report %s exists and was not written by dpmc utility; use --force to overwrite", fl.report)
	}
	dir := utilityDataDir(fl.dataDir)
	if fl.dataDir != "" && dir == "" {
		return fmt.Errorf("utility: --data-dir %s: no movielens-100k/u1.base or ml-100k/u1.base there", fl.dataDir)
	}
	// The report's folder must exist (it is not created), unless it is
	// --out, which utility.CheckDir creates.
	reportInOut := filepath.Clean(filepath.Dir(fl.report)) == filepath.Clean(fl.out)
	if !reportInOut {
		if err := atomicfile.Check(fl.report, true); err != nil {
			return fmt.Errorf("utility: --report: %w", err)
		}
	}
	if err := utility.CheckDir(fl.out, fl.force); err != nil {
		return err
	}
	if reportInOut {
		if err := atomicfile.Check(fl.report, true); err != nil {
			return fmt.Errorf("utility: --report: %w", err)
		}
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
		progress("MovieLens 100k skipped: no movielens-100k/u1.base or ml-100k/u1.base in ./data, ../shared/data or . (give the folder holding it with --data-dir)")
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
	rep := utility.Report{Command: strings.TrimSpace(command)}
	if rmseStudy {
		for k, c := range configs {
			c.Epsilons, c.Delta, c.Runs, c.Progress = fl.epsilons, fl.delta, fl.runs, progress
			res, err := utility.Run(cmd.Context(), c)
			if err != nil {
				return err
			}
			rep.RMSE = append(rep.RMSE, res)
			base := filepath.Join(fl.out, fmt.Sprintf("utility%d", k+1))
			for _, format := range []string{"png", "svg"} {
				if err := res.WritePlot(base+"."+format, format); err != nil {
					return err
				}
			}
			if err := writeUtilityJSON(base+".json", res); err != nil {
				return err
			}
			rep.RMSEPlots = append(rep.RMSEPlots, reportPath(fl.report, base+".png"))
		}
	}
	if rmseStudy && dir != "" {
		s, err := sideBySide(cmd.Context(), dir, fl, progress)
		if err != nil {
			return err
		}
		rep.SideBySide = append(rep.SideBySide, s)
	}
	if rankStudy {
		n := 0
		for k, c := range configs {
			rcs, err := rankingConfigs(c, fl, k == len(configs)-1)
			if err != nil {
				return err
			}
			for _, rc := range rcs {
				rc.Epsilons, rc.Delta, rc.Runs, rc.Progress = fl.epsilons, fl.delta, fl.runs, progress
				res, err := utility.RunRanking(cmd.Context(), rc)
				if err != nil {
					return err
				}
				n++
				rep.Ranking = append(rep.Ranking, res)
				base := filepath.Join(fl.out, fmt.Sprintf("utility-ranking%d", n))
				var plots []string
				for _, m := range []utility.Metric{utility.MetricNDCG, utility.MetricRecall} {
					for _, format := range []string{"png", "svg"} {
						if err := res.WritePlot(base+"-"+string(m)+"."+format, m, format); err != nil {
							return err
						}
					}
					plots = append(plots, reportPath(fl.report, base+"-"+string(m)+".png"))
				}
				if err := writeUtilityJSON(base+".json", res); err != nil {
					return err
				}
				rep.RankingPlots = append(rep.RankingPlots, plots)
			}
		}
	}
	if err := atomicfile.Write(fl.report, true, rep.Write); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s and %s/utility*.{json,png,svg}\n", fl.report, fl.out)
	return nil
}

// rankingConfigs returns the ranking study's two protocols on one data
// set of the RMSE study: its given split, and held-out users (a fixed
// split of its training and test ratings together). synthetic marks the
// generator, whose caveat the report prints.
func rankingConfigs(c utility.Config, fl *utilityFlags, synthetic bool) ([]utility.RankingConfig, error) {
	all, err := ratings.New(c.Train.Ratings.Rows(), c.Train.Ratings.Cols(), append(c.Train.Ratings.Triples(), c.Test.Ratings.Triples()...))
	if err != nil {
		return nil, fmt.Errorf("utility: %w", err)
	}
	d := *c.Train
	d.Ratings = all
	ho, err := ratings.SplitUsers(&d, ratings.UserSplit{Fraction: fl.heldOut}, rng.Seeded(3))
	if err != nil {
		return nil, fmt.Errorf("utility: %w", err)
	}
	note := ""
	if synthetic {
		note = "The generator (synthetic.DefaultRealistic, docs/generator.md) draws which items a user rates from popularity, the user's taste and a low-rank exposure, and gives each user an own slope on popularity and an own scale on the item biases, fitted to MovieLens 100k; its exposure is exactly low-rank, so EASE and PureSVD do better on it than on MovieLens (at 943 users by +0.02 and +0.04 NDCG@10)."
	}
	base := utility.RankingConfig{
		Name: c.Name, Note: note,
		Private: utility.DefaultPrivate(), Baselines: utility.DefaultBaselines(fl.easeLambda),
	}
	given, held := base, base
	given.Protocol, given.Train, given.History, given.Test = "given split", c.Train, c.Train, c.Test
	held.Protocol = fmt.Sprintf("held-out users (%d of %d users out of training, seed 3; 80 %% of each one's ratings as history, 20 %% scored)", ho.History.Ratings.Rows(), all.Rows())
	held.Train, held.History, held.Test = ho.Train, ho.History, ho.Test
	return []utility.RankingConfig{given, held}, nil
}

// writeUtilityJSON writes v as indented JSON to path, atomically.
func writeUtilityJSON(path string, v any) error {
	return atomicfile.Write(path, true, func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(v)
	})
}

// reportPath returns path relative to the report's folder, with slashes.
func reportPath(report, path string) string {
	rel, err := filepath.Rel(filepath.Dir(report), path)
	if err != nil {
		rel = path
	}
	return filepath.ToSlash(rel)
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

// utilityDataDir returns the MovieLens 100k folder (movielens-100k/ or,
// as the archive unpacks, ml-100k/) under dir, or without dir under
// ./data, ../shared/data or the current folder; "" if none holds u1.base.
func utilityDataDir(dir string) string {
	cands := []string{dir}
	if dir == "" {
		cands = []string{"data", filepath.Join("..", "shared", "data"), "."}
	}
	for _, c := range cands {
		for _, name := range []string{"movielens-100k", "ml-100k"} {
			p := filepath.Join(c, name)
			if _, err := os.Stat(filepath.Join(p, "u1.base")); err == nil {
				return p
			}
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

// sideBySide runs the RMSE study on a random 80/20 split of all of
// MovieLens 100k (u.data in dir) and on the generator at its size (943
// users), the check that the generator is as hard as real data.
func sideBySide(ctx context.Context, dir string, fl *utilityFlags, progress func(string)) (*utility.SideBySide, error) {
	all, err := ratings.Load(filepath.Join(dir, "u.data"), ratings.Options{})
	if err != nil {
		return nil, fmt.Errorf("utility: %w", err)
	}
	cat := make([]string, 1682)
	for k := range cat {
		cat[k] = strconv.Itoa(k + 1)
	}
	syn := synthetic.DefaultRealistic(all.Users.Len(), 1)
	gen, err := syn.Generate()
	if err != nil {
		return nil, fmt.Errorf("utility: %w", err)
	}
	gcat := make([]string, syn.Items)
	for k := range gcat {
		gcat[k] = strconv.Itoa(k + 1)
	}
	s := &utility.SideBySide{Tolerance: 0.01}
	for _, c := range []struct {
		name string
		d    *ratings.Dataset
		cat  []string
		dst  **utility.Result
	}{
		{"MovieLens 100k (u.data), random 80/20 split (seed 26)", all, cat, &s.Real},
		{fmt.Sprintf("synthetic at MovieLens 100k's size (%d users, seed 1), random 80/20 split (seed 26)", all.Users.Len()), gen, gcat, &s.Generated},
	} {
		tr, te, err := ratings.Split(c.d, 0.2, rng.Seeded(26))
		if err != nil {
			return nil, fmt.Errorf("utility: %w", err)
		}
		cfg := utility.Config{Name: c.name, Train: tr, Test: te, Catalogue: c.cat,
			Epsilons: fl.epsilons, Delta: fl.delta, Runs: fl.runs, Progress: progress}
		if *c.dst, err = utility.Run(ctx, cfg); err != nil {
			return nil, err
		}
	}
	return s, nil
}
