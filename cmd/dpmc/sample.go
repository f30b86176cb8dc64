package main

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
)

func newSampleCmd() *cobra.Command {
	var (
		nf      noiseFlags
		seed    seedFlag
		n       int64
		out     outputFlags
		sampler string
		value   float64
	)
	cmd := &cobra.Command{
		Use:   "sample",
		Short: "Write noise samples of a mechanism, one number per line",
		Long: `sample writes -n independent draws of a mechanism's noise, one number per
line (shortest decimal that round-trips to the same float64), so that the
distributions can be inspected with any tool. Samples are streamed: -n may
be as large as you like without using memory.

  huber:    s·T, T with density κ_α exp(−ρ_α(t)) (--alpha α, --scale s)
  laplace:  Laplace with scale b (--scale b)
  gaussian: N(0, σ²) (--sigma σ)

By default (--sampler discrete) the noise is the exact discrete version of
the mechanism on a power-of-two grid γ (package discrete): every sample is
γ times an integer drawn exactly, with no floating-point sampler involved.
--sampler float uses the floating-point samplers of the paper's experiments;
their outputs lie on lattices that can reveal the input, so they are NOT
private (a warning says so).

--value X writes -n releases of X instead of bare noise: X rounded to the
grid plus one noise draw each, exactly what a private release of X looks
like.

A line on stderr names the distribution, its variance and the privacy one
release with this noise would give per unit of sensitivity.`,
		Example: `  dpmc sample --mechanism huber --alpha 1 -n 100000 --seed 1 > huber.txt
  dpmc sample --mechanism laplace --scale 2 -n 10000000 -o laplace.txt
  dpmc sample --mechanism gaussian --sigma 49 --value 1000 -n 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := nf.build(cmd)
			if err != nil {
				return err
			}
			if sampler != "discrete" && sampler != "float" {
				return fmt.Errorf("--sampler %q: want discrete or float", sampler)
			}
			if n < 0 {
				return fmt.Errorf("-n = %d: want a count ≥ 0", n)
			}
			withValue := cmd.Flags().Changed("value")
			if withValue && (math.IsNaN(value) || math.IsInf(value, 0)) {
				return fmt.Errorf("--value %v: want a finite number", value)
			}
			var line string
			if sampler == "discrete" {
				d, err := discrete.For(m)
				if err != nil {
					return fmt.Errorf("--sampler discrete: %w", err)
				}
				if withValue && math.IsInf(math.Round(value/d.Granularity())*d.Granularity(), 0) {
					return fmt.Errorf("--value %v: too large for the grid γ = %g", value, d.Granularity())
				}
				if line, err = discrete.PerUnit(d); err != nil {
					return err
				}
				m = d
			} else {
				line = guaranteeLine(m)
			}
			if err := out.check(); err != nil {
				return err
			}
			r, seeded := seed.rand(cmd)
			stderr := cmd.ErrOrStderr()
			if seeded {
				fmt.Fprintln(stderr, seededWarning)
			}
			if sampler == "float" {
				fmt.Fprintln(stderr, floatWarning)
			}
			fmt.Fprintf(stderr, "dpmc: %d samples of %s, variance %.6g; %s\n", n, m, m.Variance(), line)
			draw := func() float64 { return m.Sample(r) }
			if withValue {
				x := []float64{0}
				draw = func() float64 {
					x[0] = value
					noise.AddNoise(m, x, r)
					return x[0]
				}
			}
			ctx := cmd.Context()
			return out.write(cmd.OutOrStdout(), func(w io.Writer) error {
				buf := make([]byte, 0, 32)
				for i := range n {
					if i&0xffff == 0 {
						if err := ctx.Err(); err != nil {
							return fmt.Errorf("sample: stopped after %d samples: %w", i, err)
						}
					}
					buf = strconv.AppendFloat(buf[:0], draw(), 'g', -1, 64)
					buf = append(buf, '\n')
					if _, err := w.Write(buf); err != nil {
						return fmt.Errorf("sample: writing: %w", err)
					}
				}
				return nil
			})
		},
	}
	nf.register(cmd, "")
	cmd.Flags().Int64VarP(&n, "n", "n", 1000, "number of samples to write")
	cmd.Flags().StringVar(&sampler, "sampler", "discrete", "noise sampler: discrete (exact, on a power-of-two grid) or float (floating-point, NOT private; for experiments and reproducing the paper) (default: discrete)")
	cmd.Flags().Float64Var(&value, "value", 0, "release this value plus noise (rounded to the grid) instead of writing bare noise")
	seed.register(cmd)
	out.register(cmd)
	return cmd
}

// floatWarning is printed to stderr whenever floating-point noise is drawn.
const floatWarning = "dpmc: warning: --sampler float draws floating-point noise whose values lie on lattices that can reveal the input; it is NOT private — use it only for experiments and reproducing the paper"
