package main

import (
	"io"

	"github.com/spf13/cobra"
)

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "dpmc",
		Short: "Differentially private low-rank matrix completion",
		Long: `dpmc completes a partially observed ratings matrix (users × items) while
bounding what the released model reveals about any one rating, with noise
from the Laplace, Gaussian or Huber mechanism.

It implements "Introducing the Huber mechanism for differentially private
low-rank matrix completion" (Gowtham, M, Tholeti, Kalyani). Every noisy
output states the guarantee it carries; runs given --seed are reproducible
and therefore not private.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newTrainCmd(), newBudgetCmd(), newSampleCmd(), newAccountCmd(), newAuditCmd(), newReproduceCmd(), newUtilityCmd())
	return root
}
