package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/dpmc/dpmc/internal/atomicfile"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/synthetic"
)

func newGenerateCmd() *cobra.Command {
	var (
		n, testN int
		seed     uint64
		out      outputFlags
		testPath string
		decimals int
		kind     string
		users    int
		testFrac float64
	)
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Write a synthetic ratings set (the benchmark, or the MovieLens-shaped one) as a tsv file",
		Long: `generate writes the project's benchmark data set (package synthetic,
Benchmark) as a ratings file, so that dpmc and other tools (LIBMF, …) can
be timed on the same data: --ratings ratings (default 10 000 000) of
--ratings/100 users × --ratings/500 items (100 ratings per user and 500 per
item on average; at least 50 000, which fill every cell), cells uniform
without replacement, each

  x = clamp(3 + 0.8·uᵀv/√10 + N(0, 0.1²), 1, 5),  u, v ~ N(0, I₁₀),

rounded to float32. Lines are "user<TAB>item<TAB>rating", users and items
numbered from 1, each rating the shortest decimal that reads back as the
same number (dpmc train --format tsv reads it exactly).

--decimals D writes each rating rounded to D decimals instead (0: whole
numbers, a file of at most 5 distinct values; 4: values such as 3.1416,
which are not exactly float32s), for timing both kinds of ratings file.

--test-output FILE also writes --test-ratings held-out ratings (cells the
training file does not rate, valued by the same formula with fresh noise).

--synthetic realistic writes instead the generator fitted to MovieLens
100k's statistics (synthetic.DefaultRealistic, docs/generator.md) at
--users users (default 6 040, MovieLens-1M-shaped: 3 706 items, of which
the files hold those someone rated; 943 is MovieLens 100k's size),
whole-star ratings 1 to 5. With --test-output it holds out --test-fraction
(default 0.2) of the ratings at random, drawn from seed --data-seed + 1:
--data-seed 1 gives the split of dpmc utility's synthetic data set at the
same --users (PRIVACY-UTILITY.md's "synthetic, MovieLens-1M-shaped"
rows), so other tools, or other dpmc versions, can be run on it side by
side. (dpmc train --synthetic realistic --seed S draws its data seed and
split from S, so it trains on another set.)

The data is synthetic and seeded (--data-seed): experimental data, not private
data.`,
		Example: `  dpmc generate -o r10m.tsv --test-output r10m.test.tsv
  dpmc generate --ratings 1000000 --data-seed 2 -o r1m.tsv
  dpmc train --data r10m.tsv --test r10m.test.tsv --format tsv --algo als --mechanism none --rank 32 --lambda 0.005 --lambda-scale count --iters 6
  dpmc generate --synthetic realistic -o ml1m-shaped.tsv --test-output ml1m-shaped.test.tsv
  dpmc train --data ml1m-shaped.tsv --test ml1m-shaped.test.tsv --privacy user --epsilon 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if kind == "realistic" {
				return generateRealistic(cmd, users, seed, testFrac, testPath, &out)
			}
			if kind != "" {
				return fmt.Errorf("--synthetic %q: want realistic (or leave it out for the benchmark set)", kind)
			}
			for _, name := range []string{"users", "test-fraction"} {
				if cmd.Flags().Changed(name) {
					return fmt.Errorf("--%s applies only to --synthetic realistic", name)
				}
			}
			if n < 50_000 || n > math.MaxInt32 {
				return fmt.Errorf("--ratings %d: want at least 50000 (with 100 ratings per user and 500 per item, fewer do not fit in the users × items cells) and at most %d", n, math.MaxInt32)
			}
			if err := out.check(); err != nil {
				return err
			}
			if testPath != "" {
				if err := checkTestOutput(testPath, &out); err != nil {
					return err
				}
				if testN < 1 {
					return fmt.Errorf("--test-ratings %d: want at least 1", testN)
				}
			} else if cmd.Flags().Changed("test-ratings") {
				return fmt.Errorf("--test-ratings needs --test-output")
			}
			rounded := cmd.Flags().Changed("decimals")
			if rounded && (decimals < 0 || decimals > 9) {
				return fmt.Errorf("--decimals %d: want 0 to 9", decimals)
			}
			write := func(d *ratings.Dataset) func(io.Writer) error {
				if rounded {
					return func(w io.Writer) error { return writeRounded(w, d.Ratings, decimals) }
				}
				return func(w io.Writer) error { return d.WriteTSV(w) }
			}
			b := synthetic.DefaultBenchmark(1, seed)
			b.Users, b.Items, b.Ratings = n/100, n/500, n
			if testPath != "" && int64(testN) > int64(b.Users)*int64(b.Items)-int64(n) {
				return fmt.Errorf("--test-ratings %d: only %d cells are left unrated", testN, int64(b.Users)*int64(b.Items)-int64(n))
			}
			stderr := cmd.ErrOrStderr()
			fmt.Fprintf(stderr, "dpmc: generating %d ratings of %d users × %d items (seed %d; synthetic, experimental data)\n", n, b.Users, b.Items, seed)
			d, err := b.Generate()
			if err != nil {
				return err
			}
			if err := cmd.Context().Err(); err != nil {
				return err
			}
			var test *ratings.Dataset
			if testPath != "" {
				m, err := b.Test(testN, d.Ratings)
				if err != nil {
					return err
				}
				test = &ratings.Dataset{Ratings: m, Users: d.Users, Items: d.Items, Min: d.Min, Max: d.Max}
			}
			if err := out.writeContext(cmd.Context(), cmd.OutOrStdout(), write(d)); err != nil {
				return err
			}
			if test != nil {
				if err := atomicfile.WriteContext(cmd.Context(), testPath, out.force, write(test)); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "dpmc: wrote %d held-out ratings to %s\n", testN, testPath)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&n, "ratings", 10_000_000, "number of training ratings (users = ratings/100, items = ratings/500)")
	f.Uint64Var(&seed, "data-seed", 1, "seed of the data (the set is deterministic for a seed)")
	f.StringVar(&testPath, "test-output", "", "also write held-out ratings to this file (atomically; --force overwrites)")
	f.IntVar(&testN, "test-ratings", 100_000, "number of held-out ratings for --test-output")
	f.IntVar(&decimals, "decimals", 0, "write each rating rounded to this many decimals, 0 to 9 (default: the shortest decimal of its float32)")
	f.StringVar(&kind, "synthetic", "", `which set: "" (the benchmark) or "realistic" (fitted to MovieLens 100k's statistics; docs/generator.md)`)
	f.IntVar(&users, "users", 6040, "--synthetic realistic: number of users (items scale as users^0.425: 1 682 at 943, 3 706 at 6 040)")
	f.Float64Var(&testFrac, "test-fraction", 0, "--synthetic realistic: fraction of the ratings held out for --test-output, in (0, 1) (default 0.2)")
	out.register(cmd)
	deprecatedAlias(cmd, "seed", "data-seed")
	deprecatedAlias(cmd, "test", "test-output")
	return cmd
}

// generateRealistic is generate --synthetic realistic: the MovieLens-shaped
// set of users users from seed, all of it to out, or its training part to
// out and the held-out fraction frac to testPath.
func generateRealistic(cmd *cobra.Command, users int, seed uint64, frac float64, testPath string, out *outputFlags) error {
	for _, name := range []string{"ratings", "test-ratings", "decimals"} {
		if cmd.Flags().Changed(name) {
			return fmt.Errorf("--%s applies only to the benchmark set, not to --synthetic realistic", name)
		}
	}
	if err := checkUsers(users); err != nil {
		return err
	}
	if err := out.check(); err != nil {
		return err
	}
	if testPath == "" {
		if cmd.Flags().Changed("test-fraction") {
			return fmt.Errorf("--test-fraction needs --test-output")
		}
	} else {
		if !cmd.Flags().Changed("test-fraction") {
			frac = 0.2
		}
		if !(frac > 0 && frac < 1) {
			return fmt.Errorf("--test-fraction %v: want in (0, 1)", frac)
		}
		if err := checkTestOutput(testPath, out); err != nil {
			return err
		}
	}
	g := synthetic.DefaultRealistic(users, seed)
	stderr := cmd.ErrOrStderr()
	fmt.Fprintf(stderr, "dpmc: generating the realistic set of %d users × %d items (data seed %d; synthetic, experimental data)\n", g.Users, g.Items, seed)
	d, err := g.Generate()
	if err != nil {
		return err
	}
	if err := cmd.Context().Err(); err != nil {
		return err
	}
	if testPath == "" {
		return out.writeContext(cmd.Context(), cmd.OutOrStdout(), d.WriteTSV)
	}
	tr, te, err := ratings.Split(d, frac, rng.Seeded(seed+1))
	if err != nil {
		return err
	}
	if err := out.writeContext(cmd.Context(), cmd.OutOrStdout(), tr.WriteTSV); err != nil {
		return err
	}
	if err := atomicfile.WriteContext(cmd.Context(), testPath, out.force, te.WriteTSV); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "dpmc: wrote %d training ratings and %d held-out ratings (%g of them, split seed %d) to %s\n",
		tr.Ratings.Len(), te.Ratings.Len(), frac, seed+1, testPath)
	return nil
}

// checkTestOutput refuses a --test-output that is --output's file, or that
// exists without --force.
func checkTestOutput(testPath string, out *outputFlags) error {
	if err := refuseSameFile("--test-output", testPath, namedFile{"--output", out.path}); err != nil {
		return err
	}
	if err := atomicfile.Check(testPath, out.force); err != nil {
		return fmt.Errorf("--test-output: %w", err)
	}
	return nil
}

// checkUsers refuses a --users outside [10, 1 000 000], the sizes the
// realistic generator is built for.
func checkUsers(users int) error {
	if users < 10 || users > 1_000_000 {
		return fmt.Errorf("--users %d: want in [10, 1000000]", users)
	}
	return nil
}

// writeRounded writes m's ratings as WriteTSV does for a generated set
// (users and items numbered from 1), each rating rounded to decimals
// decimals.
func writeRounded(w io.Writer, m *ratings.Matrix, decimals int) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var line []byte
	for t := range m.All() {
		line = strconv.AppendInt(line[:0], int64(t.User)+1, 10)
		line = append(line, '\t')
		line = strconv.AppendInt(line, int64(t.Item)+1, 10)
		line = append(line, '\t')
		line = strconv.AppendFloat(line, t.Value, 'f', decimals, 64)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}
