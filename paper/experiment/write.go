package experiment

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dpmc/dpmc/internal/atomicfile"
	"github.com/dpmc/dpmc/internal/outdir"
)

// Files of one table in the output directory.
func csvName(table string) string  { return "table" + table + ".csv" }
func jsonName(table string) string { return "table" + table + ".json" }
func mdName(table string) string   { return "table" + table + ".md" }

// CSVHeader is the header of every tableN.csv but table 1's (and
// table "privacy", which adds the Huber shape alpha at the end).
var CSVHeader = []string{"table", "dataset", "rank", "variance", "observed", "algo", "mechanism", "epsilon", "trial", "rmse"}

// budgetHeader is table 1's CSV header: one row per noise variance.
var budgetHeader = []string{"variance", "sensitivity", "delta",
	"gaussian_sigma", "gaussian_analytic_epsilon", "gaussian_classic_epsilon", "gaussian_log10_epsilon", "paper_gaussian_epsilon",
	"laplace_scale", "laplace_epsilon", "paper_laplace_epsilon",
	"huber_alpha", "huber_scale", "huber_variance", "huber_epsilon", "paper_huber_epsilon"}

// CheckDir makes sure dir can take results: it is created if absent, and
// if it exists and holds files, at least one must be a table JSON written
// by this package — so that a directory of the user's own is never
// written into unless force is set.
func CheckDir(dir string, force bool) error {
	err := outdir.Check(dir, force, func(path string) bool {
		name := filepath.Base(path)
		if !strings.HasPrefix(name, "table") || !strings.HasSuffix(name, ".json") {
			return false
		}
		r, err := ReadTable(path)
		return err == nil && r.Generator == Generator
	})
	if errors.Is(err, outdir.ErrForeign) {
		return fmt.Errorf("results directory %s is not empty and holds no results of dpmc reproduce; choose another --output-dir or pass --force to write into it", dir)
	}
	return err
}

// Write writes res into dir (which CheckDir has approved): tableN.json,
// tableN.csv, tableN.md and, for tables with trials, the plots. Existing
// files of the same table are replaced, each atomically.
func Write(dir string, res *TableResult) error {
	put := func(name string, fn func(io.Writer) error) error {
		if err := atomicfile.Write(filepath.Join(dir, name), true, fn); err != nil {
			return fmt.Errorf("table %s: %w", res.Table, err)
		}
		return nil
	}
	if err := put(jsonName(res.Table), func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(res)
	}); err != nil {
		return err
	}
	if res.Skipped == "" {
		if err := put(csvName(res.Table), func(w io.Writer) error { return writeCSV(w, res) }); err != nil {
			return err
		}
	}
	return Render(dir, res)
}

// Render writes what is derived from res alone into dir: tableN.md and, for
// tables with trials, the plots (PNG and SVG). Write calls it; `dpmc
// reproduce --report-only` calls it on results read back with ReadTable, so
// a change to the presentation never needs the experiments rerun. Existing
// files are replaced atomically.
func Render(dir string, res *TableResult) error {
	md := Markdown(res, "")
	if res.Skipped != "" {
		md = fmt.Sprintf("Table %s was not run: %s\n", res.Table, res.Skipped)
	}
	if err := atomicfile.Write(filepath.Join(dir, mdName(res.Table)), true, func(w io.Writer) error {
		_, err := io.WriteString(w, md)
		return err
	}); err != nil {
		return fmt.Errorf("table %s: %w", res.Table, err)
	}
	if res.Skipped != "" {
		return nil
	}
	return writePlots(dir, res)
}

// ReadTable reads a tableN.json written by Write.
func ReadTable(path string) (*TableResult, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r TableResult
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.Generator != Generator {
		return nil, fmt.Errorf("%s: not written by %s", path, Generator)
	}
	return &r, nil
}

func writeCSV(w io.Writer, res *TableResult) error {
	cw := csv.NewWriter(w)
	if res.Table == "1" {
		if err := cw.Write(budgetHeader); err != nil {
			return err
		}
		for _, r := range res.Budget {
			var pg, pl, ph string
			if r.Paper != nil {
				pg, pl, ph = num(r.Paper.Gaussian), num(r.Paper.Laplace), num(r.Paper.Huber)
			}
			cw.Write([]string{num(r.Variance), num(r.Sensitivity), num(r.Delta),
				num(math.Sqrt(r.Variance)), num(r.GaussianAnalyticEpsilon), num(r.GaussianClassicEpsilon), num(r.GaussianLog10Epsilon), pg,
				num(r.LaplaceScale), num(r.LaplaceEpsilon), pl,
				num(r.HuberAlpha), num(r.HuberScale), num(r.HuberVariance), num(r.HuberEpsilon), ph})
		}
		cw.Flush()
		return cw.Error()
	}
	header := CSVHeader
	if res.Table == "privacy" {
		header = append(header[:len(header):len(header)], "alpha")
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, t := range res.Results {
		row := []string{t.Table, t.Dataset, strconv.Itoa(t.Rank), opt(t.Variance), num(t.Observed),
			t.Algo, t.Mechanism, opt(t.Epsilon), strconv.Itoa(t.Trial), num(t.RMSE)}
		if res.Table == "privacy" {
			row = append(row, opt(t.Alpha))
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func opt(p *float64) string {
	if p == nil {
		return ""
	}
	return num(*p)
}
