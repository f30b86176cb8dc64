package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"
)

func newSampleCmd() *cobra.Command {
	var (
		noise noiseFlags
		seed  seedFlag
		n     int64
		out   outputFlags
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

A line on stderr names the distribution, its variance and the privacy one
release with this noise would give per unit of sensitivity. The samples are
noise alone: they release no data.`,
		Example: `  dpmc sample --mechanism huber --alpha 1 -n 100000 --seed 1 > huber.txt
  dpmc sample --mechanism laplace --scale 2 -n 10000000 -o laplace.txt`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := noise.build(cmd)
			if err != nil {
				return err
			}
			if n < 0 {
				return fmt.Errorf("-n = %d: want a count ≥ 0", n)
			}
			if err := out.check(); err != nil {
				return err
			}
			r, seeded := seed.rand(cmd)
			stderr := cmd.ErrOrStderr()
			if seeded {
				fmt.Fprintln(stderr, seededWarning)
			}
			fmt.Fprintf(stderr, "dpmc: %d samples of %s, variance %.6g; %s\n", n, m, m.Variance(), guaranteeLine(m))
			ctx := cmd.Context()
			return out.write(cmd.OutOrStdout(), func(w io.Writer) error {
				buf := make([]byte, 0, 32)
				for i := range n {
					if i&0xffff == 0 {
						if err := ctx.Err(); err != nil {
							return fmt.Errorf("sample: stopped after %d samples: %w", i, err)
						}
					}
					buf = strconv.AppendFloat(buf[:0], m.Sample(r), 'g', -1, 64)
					buf = append(buf, '\n')
					if _, err := w.Write(buf); err != nil {
						return fmt.Errorf("sample: writing: %w", err)
					}
				}
				return nil
			})
		},
	}
	noise.register(cmd, "")
	cmd.Flags().Int64VarP(&n, "n", "n", 1000, "number of samples to write")
	seed.register(cmd)
	out.register(cmd)
	return cmd
}
