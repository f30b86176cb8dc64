package main

import (
	"io"
	"runtime/debug"

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
		Version:       version(),
	}
	root.SetVersionTemplate("dpmc {{.Version}}\n")
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newTrainCmd(), newBudgetCmd(), newSampleCmd(), newAccountCmd(), newAuditCmd(), newReproduceCmd(), newUtilityCmd(), newPredictCmd(), newRecommendCmd(), newGenerateCmd())
	applyVocabulary(root)
	return root
}

// version is the module version and the VCS revision the binary was built
// from, as the Go toolchain recorded them: "v1.2.3" for a tagged module,
// "(devel) revision 1a2b3c4d5e6f (modified)" for a build from a work tree.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (no build information)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = " (modified)"
			}
		}
	}
	if rev != "" {
		v += " revision " + rev[:min(12, len(rev))] + modified
	}
	return v + ", " + info.GoVersion
}
