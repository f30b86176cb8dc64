package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dpmc/dpmc/internal/atomicfile"
	"github.com/dpmc/dpmc/internal/progress"
	"github.com/dpmc/dpmc/paper/experiment"
)

// defaultDataDirs are tried in order when --data-dir is not given.
var defaultDataDirs = []string{"data", filepath.Join("..", "shared", "data")}

func newReproduceCmd() *cobra.Command {
	var (
		tables, out, dataDir, report string
		trials                       int
		seed                         uint64
		quick, reportOnly, force     bool
	)
	cmd := &cobra.Command{
		Use:   "reproduce",
		Short: "Rerun the paper's experiments and write results, plots and REPRODUCTION.md",
		Long: `reproduce reruns the experiments behind the paper's tables and writes, into
--output-dir, for each table N: tableN.csv (one row per trial), tableN.json (every
trial with its settings and seeds), tableN.md (means ± standard deviations
with 95 % confidence intervals beside the paper's numbers) and plots (PNG
and SVG). It then renders REPRODUCTION.md from everything in --output-dir.

Tables: 1 (privacy budgets), 3, 8, 9 (synthetic, rank 5, 10, 20), 6
(MovieLens 100k), 7 (SweetRS), privacy (every mechanism at the same
per-release ε, which the paper does not do). Tables 6 and 7 need the data
sets under --data-dir (movielens-100k/u1.base, movielens-100k/u1.test,
sweetrs/ratings-final.csv) and are skipped with a message without them;
a --data-dir that is not a folder is refused.

--quick runs every table with fewer iterations (a smoke test, under two
minutes on two cores); its numbers are not comparable with the paper's and
it writes into results-quick/ unless --output-dir is given, and no report unless
--report is given.

Every run is seeded, so its noise is reproducible and NOT private: these are
accuracy experiments.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			// The default report covers results/ as a whole; it is written
			// only when the run writes there, so a run into another --output-dir
			// never replaces it with a report of fewer tables pointing at a
			// folder that may not last. Ask for one with --report.
			writeReport := report != "" && (cmd.Flags().Changed("report") || (!quick && !cmd.Flags().Changed("output-dir")))
			if reportOnly {
				return renderReport(stdout, out, report, force)
			}
			list, err := experiment.ParseTables(tables)
			if err != nil {
				return fmt.Errorf("--table: %w", err)
			}
			if quick && !cmd.Flags().Changed("trials") {
				trials = 2
			}
			if quick && !cmd.Flags().Changed("output-dir") {
				out = "results-quick" // never mix smoke-test numbers into results/
			}
			if trials < 1 {
				return fmt.Errorf("--trials %d: want ≥ 1", trials)
			}
			if cmd.Flags().Changed("data-dir") {
				if st, err := os.Stat(dataDir); err != nil || !st.IsDir() {
					return fmt.Errorf("--data-dir %s: not a folder (it should hold movielens-100k/ and sweetrs/)", dataDir)
				}
			} else {
				dataDir = defaultDataDirs[0]
				for _, d := range defaultDataDirs {
					if st, err := os.Stat(d); err == nil && st.IsDir() {
						dataDir = d
						break
					}
				}
			}
			// The report's folder must exist and take the file, unless it
			// is --out, which experiment.CheckDir creates.
			reportInOut := filepath.Clean(filepath.Dir(report)) == filepath.Clean(out)
			if writeReport {
				if err := checkReport(report, force); err != nil {
					return err
				}
				if !reportInOut {
					if err := atomicfile.Check(report, true); err != nil {
						return fmt.Errorf("--report: %w", err)
					}
				}
			}
			if err := experiment.CheckDir(out, force); err != nil {
				return err
			}
			if writeReport && reportInOut {
				if err := atomicfile.Check(report, true); err != nil {
					return fmt.Errorf("--report: %w", err)
				}
			}
			settings := experiment.DefaultSettings()
			if quick {
				settings = experiment.QuickSettings()
			}
			cfg := experiment.Config{Tables: list, Trials: trials, Seed: seed, Quick: quick, Settings: settings, DataDir: dataDir}
			fmt.Fprintln(stderr, "dpmc: reproduce is seeded: results are reproducible and the noise in them is NOT private")
			reporters := map[string]*progress.Reporter{}
			prog := func(table string, done, total int) {
				r, ok := reporters[table]
				if !ok {
					r = progress.New(stderr, "table "+table)
					reporters[table] = r
				}
				r.Update(done, total)
			}
			err = experiment.Run(cmd.Context(), cfg, prog, func(res *experiment.TableResult) error {
				if res.Skipped != "" {
					fmt.Fprintf(stderr, "dpmc: skipping table %s: %s%s\n", res.Table, res.Skipped, movieLensHint(res.Table, dataDir))
				}
				if err := experiment.Write(out, res); err != nil {
					return err
				}
				n := len(res.Results)
				if res.Table == "1" {
					n = len(res.Budget)
				}
				files := "table" + res.Table + ".{json,csv,md}"
				if res.Skipped != "" {
					files = "table" + res.Table + ".{json,md} (skipped: no csv)"
				}
				fmt.Fprintf(stdout, "table %-7s %4d rows  %6.1f s  → %s\n", res.Table, n, res.Seconds, filepath.Join(out, files))
				return nil
			})
			if err != nil {
				return fmt.Errorf("reproduce: %w", err)
			}
			if writeReport {
				return renderReport(stdout, out, report, true)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&tables, "table", "all", "tables to run, comma-separated: 1, 3, 6, 7, 8, 9, privacy, or all")
	f.IntVar(&trials, "trials", 10, "trials per cell, each with its own data and noise seeds (--quick: 2 unless given)")
	f.Uint64Var(&seed, "root-seed", 1, "root seed of every trial's data and noise seeds")
	f.BoolVar(&quick, "quick", false, "reduced run (fewer iterations and trials) for smoke tests; not comparable with the paper")
	f.StringVar(&dataDir, "data-dir", "", "directory holding movielens-100k/ and sweetrs/ (default: ./data, else ../shared/data)")
	f.StringVar(&out, "output-dir", "results", "folder for the results; created if absent, and if not empty it must hold earlier results of dpmc reproduce (or pass --force) (default: results, with --quick results-quick)")
	f.StringVar(&report, "report", "REPRODUCTION.md", "report file rendered from --output-dir after the run (default: REPRODUCTION.md; written by default only when --output-dir is left at results/; --quick or another --output-dir writes one only if --report is given)")
	f.BoolVar(&reportOnly, "report-only", false, "re-render the report, each table's Markdown and the plots from the results already in --output-dir, without running anything")
	f.BoolVar(&force, "force", false, "write into a non-empty --output-dir without earlier results, and overwrite a --report file dpmc did not generate")
	deprecatedAlias(cmd, "out", "output-dir")
	deprecatedAlias(cmd, "seed", "root-seed")
	return cmd
}

// movieLensHint says, for a skipped table 6, where an unpacked
// ml-100k/ (the name the MovieLens archive gives its folder) was found
// and how to put it where reproduce reads it; "" if none was.
func movieLensHint(table, dataDir string) string {
	if table != "6" {
		return ""
	}
	for _, d := range []string{dataDir, "."} {
		p := filepath.Join(d, "ml-100k")
		if _, err := os.Stat(filepath.Join(p, "u1.base")); err == nil {
			return fmt.Sprintf(" (found %s/: reproduce reads %s; rename it, or link it: ln -s %s %s)", p, filepath.Join(dataDir, "movielens-100k"), absOr(p), filepath.Join(dataDir, "movielens-100k"))
		}
	}
	return ""
}

// absOr returns p made absolute, or p if that fails.
func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// checkReport refuses to overwrite a report file that dpmc did not write,
// unless forced.
func checkReport(path string, force bool) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("--report %s is a directory, want a file name", path)
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) || force {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	if strings.TrimSpace(line) != experiment.ReportMarker {
		return fmt.Errorf("--report %s exists and was not generated by dpmc reproduce; pass --force to overwrite it", path)
	}
	return nil
}

func renderReport(stdout io.Writer, out, report string, force bool) error {
	if report == "" {
		return fmt.Errorf("--report-only needs --report")
	}
	if err := checkReport(report, force); err != nil {
		return err
	}
	rs, err := experiment.LoadResults(out)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if err := experiment.Render(out, r); err != nil {
			return err
		}
	}
	var search string
	if b, err := os.ReadFile(filepath.Join(out, experiment.SearchFile)); err == nil {
		search = string(b)
	}
	rel, err := filepath.Rel(filepath.Dir(report), out)
	if err != nil {
		rel = out
	}
	if err := atomicfile.Write(report, true, func(w io.Writer) error {
		return experiment.Report(w, rs, filepath.ToSlash(rel), search)
	}); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	fmt.Fprintf(stdout, "report → %s\n", report)
	return nil
}
