package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/model"
	"github.com/dpmc/dpmc/ratings"
)

// predictFlags are the flags of dpmc predict.
type predictFlags struct {
	model, pairs string
	pairsFile    fileFlags
	history      string
	historyFile  fileFlags
	clip         bool
	unknown      string
	k            int
	threshold    float64
	out          outputFlags
}

// fileFlags are the flags that say how to read a pairs or history file,
// as dpmc train's --format, --columns and --header do for --data.
type fileFlags struct{ format, columns, header string }

// register adds the flags --PREFIXformat, --PREFIXcolumns and
// --PREFIXheader, for the file named by flag file.
func (f *fileFlags) register(cmd *cobra.Command, prefix, file, columnsHelp string) {
	fs := cmd.Flags()
	fs.StringVar(&f.format, prefix+"format", "auto", "format of --"+file+", as dpmc train reads --data: auto, ml100k, mldat, mlcsv, sweetrs, csv, tsv, pairs")
	fs.StringVar(&f.columns, prefix+"columns", "", columnsHelp)
	fs.StringVar(&f.header, prefix+"header", "auto", "whether a csv/tsv --"+file+" starts with a header line: auto, yes, no")
}

// options returns the ratings.Options of the flags, with the model's
// rating range.
func (f *fileFlags) options(prefix string, m *model.Model) (ratings.Options, error) {
	o := ratings.Options{Columns: f.columns, Min: m.Min, Max: m.Max}
	var err error
	if o.Format, err = ratings.ParseFormat(f.format); err != nil {
		return o, fmt.Errorf("--%sformat: %w", prefix, err)
	}
	if o.Header, err = ratings.ParseHeader(f.header); err != nil {
		return o, fmt.Errorf("--%sheader: %w", prefix, err)
	}
	return o, nil
}

func newPredictCmd() *cobra.Command {
	var fl predictFlags
	cmd := &cobra.Command{
		Use:   "predict",
		Short: "Predict ratings for (user, item) pairs with a saved model",
		Long: `predict reads a model saved by dpmc train --save and a file of (user, item)
pairs, and prints user<TAB>item<TAB>prediction for each, with the file's own
IDs. The file is read exactly as dpmc train reads --data (package ratings: the
same formats and detection, csv quoting, header rule and --columns), and may
also be a csv/tsv list of user,item pairs without ratings. Ratings must lie in
the model's rating range. A pair listed twice is an error naming both lines,
except in a SweetRS file, whose repeated pairs are averaged as train averages
them.

A paper-mode model holds its users. A user-level private model holds no user:
a user's bias and factor are computed from the model and that user's own
ratings, given with --history FILE (a ratings file, read like --pairs). This happens
inside this command, on your machine; nothing is stored. A user without
history ratings is unknown.

Unknown users or items are an error (--unknown error, the default) or get a
fallback (--unknown fallback): μ + the item's bias for an unknown user, μ +
the user's bias for an unknown item, μ for both (a paper-mode model: its mean
training rating in every case); they are counted on stderr. A file in which no pair has a user or an item of
the model is refused (the wrong file or columns).

With ratings, predict also prints, on stderr, RMSE and MAE over the rated
pairs (fallbacks included) and precision/recall/NDCG/MAP@k computed as dpmc
train computes them for its test set when --history is the training file
(package metrics: the candidates are the items of --history and of the model,
each user's candidates those not in the user's history; relevant items the
model does not hold count as missed).

A ranking model (dpmc train --objective ranking) has no rating part: predict
refuses it; dpmc recommend ranks with it.

Interrupted (SIGINT, SIGTERM, SIGHUP), predict stops and writes no output file.`,
		Example: `  dpmc predict --model model.dpmc --pairs pairs.tsv
  dpmc predict --model model.dpmc --pairs u1.test --history u1.base --clip`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPredict(cmd, &fl) },
	}
	f := cmd.Flags()
	f.StringVar(&fl.model, "model", "", "model file written by dpmc train --save (required)")
	f.StringVar(&fl.pairs, "pairs", "", "file of (user, item) pairs, optionally rated: any ratings file dpmc train reads, or user,item lines (required)")
	fl.pairsFile.register(cmd, "", "pairs", `columns of a csv/tsv --pairs: user, item, optionally rating, "_" to ignore a field, e.g. user,item,rating,_ (default: user,item[,rating[,timestamp]])`)
	f.StringVar(&fl.history, "history", "", "users' own ratings (a ratings file, read like --data of dpmc train): folds each user in locally for a user-level model; marks rated items for ranking")
	fl.historyFile.register(cmd, "history-", "history", `columns of a csv/tsv --history (must include rating), e.g. user,item,rating,_`)
	f.BoolVar(&fl.clip, "clip", false, "clip predictions to the model's rating range")
	f.StringVar(&fl.unknown, "unknown", "error", "unknown users or items: error or fallback (μ + item bias, μ + user bias, or μ; paper models: the training mean)")
	f.IntVarP(&fl.k, "k", "k", 10, "list length of the ranking metrics (with a rating column); at most the candidate items, clamped with a note")
	f.Float64Var(&fl.threshold, "relevant", 4, "lowest rating that counts as relevant for the ranking metrics")
	fl.out.register(cmd)
	return cmd
}

func runPredict(cmd *cobra.Command, fl *predictFlags) error {
	ctx := cmd.Context()
	if fl.model == "" || fl.pairs == "" {
		return fmt.Errorf("predict needs --model and --pairs")
	}
	unknown, err := model.ParseUnknown(fl.unknown)
	if err != nil {
		return fmt.Errorf("--unknown: %w", err)
	}
	if fl.k < 1 {
		return fmt.Errorf("--k = %d, want ≥ 1", fl.k)
	}
	if math.IsNaN(fl.threshold) || math.IsInf(fl.threshold, 0) {
		return fmt.Errorf("--relevant = %v, want a finite rating", fl.threshold)
	}
	if err := refuseSameFile("--output", fl.out.path, namedFile{"--pairs", fl.pairs}, namedFile{"--history", fl.history}, namedFile{"--model", fl.model}); err != nil {
		return err
	}
	if err := fl.out.check(); err != nil {
		return err
	}
	m, err := model.Load(fl.model)
	if err != nil {
		return fmt.Errorf("--model: %w", err)
	}
	if !m.HasRatings() {
		return fmt.Errorf("--model %s is a ranking model (dpmc train --objective ranking): it has no rating part, so predict has no rating to give; rank items for a user with dpmc recommend --model %s --history FILE", fl.model, fl.model)
	}
	popts, err := fl.pairsFile.options("", m)
	if err != nil {
		return err
	}
	pairs, info, err := model.LoadPairs(ctx, fl.pairs, popts)
	if err != nil {
		return fmt.Errorf("--pairs: %w", err)
	}
	o := model.PredictOptions{Clip: fl.clip, Unknown: unknown, Name: fl.pairs}
	if o.Histories, err = loadHistories(ctx, fl.history, &fl.historyFile, m); err != nil {
		return err
	}
	preds, st, err := m.PredictPairs(ctx, pairs, o)
	if err != nil {
		return err
	}
	var r metrics.Result
	if info.Rated {
		// Bound k by the candidates before anything is allocated for them.
		k := fl.k
		if n := candidateItems(m, o.Histories); k > n {
			k = n
			fmt.Fprintf(cmd.ErrOrStderr(), "dpmc: predict: --k %d exceeds the %d candidate items (the model's and --history's): ranking metrics at k = %d\n", fl.k, n, k)
		}
		if r, err = m.EvaluatePairs(ctx, preds, o, metrics.Options{K: k, Threshold: fl.threshold}); err != nil {
			return err
		}
	}
	if err := fl.out.write(cmd.OutOrStdout(), func(w io.Writer) error { return writePredictions(ctx, w, preds) }); err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	fmt.Fprintf(stderr, "dpmc: predict: %d pairs", st.Pairs)
	if info.Averaged > 0 {
		fmt.Fprintf(stderr, " (%d repeated pairs averaged, as train does for %s)", info.Averaged, info.Format)
	}
	if unknown == model.UnknownFallback {
		fmt.Fprintf(stderr, "; %d with an unknown user, %d with an unknown item (fallback)", st.UnknownUsers, st.UnknownItems)
	} else {
		fmt.Fprint(stderr, "; every user and item known to the model")
	}
	if fl.history != "" && m.Kind == model.UserLevel {
		fmt.Fprintf(stderr, "; %d users folded in from --history (%d of their ratings are of items not in the model)", st.FoldedIn, st.HistoryUnknown)
	}
	fmt.Fprintln(stderr)
	if info.Rated {
		fmt.Fprintf(stderr, "dpmc: predict: evaluation only (exact figures of --pairs, not private): %s\n", r)
	}
	return nil
}

// candidateItems is the number of items the ranking metrics rank: those
// of the model and of the histories (at least 1).
func candidateItems(m *model.Model, h model.Histories) int {
	n := len(m.ItemIDs)
	for _, id := range h.Items {
		if _, ok := m.Item(id); !ok {
			n++
		}
	}
	return max(n, 1)
}

// loadHistories reads --history (empty without one), with the rating
// range of m.
func loadHistories(ctx context.Context, path string, ff *fileFlags, m *model.Model) (model.Histories, error) {
	if path == "" {
		return model.Histories{}, nil
	}
	opts, err := ff.options("history-", m)
	if err != nil {
		return model.Histories{}, err
	}
	h, info, err := model.LoadHistories(ctx, path, opts)
	if err != nil {
		return model.Histories{}, fmt.Errorf("--history: %w", err)
	}
	if !info.Rated && m.HasRatings() && m.Kind == model.UserLevel {
		return model.Histories{}, fmt.Errorf("--history %s holds (user, item) pairs without ratings (implicit feedback): a rating model folds a user in from the user's ratings; give rated history, or use a ranking model (dpmc train --objective ranking)", path)
	}
	return h, nil
}

// writePredictions writes user<TAB>item<TAB>prediction lines, looking at
// ctx every 1024 predictions.
func writePredictions(ctx context.Context, w io.Writer, preds []model.Prediction) error {
	bw := bufio.NewWriter(w)
	for k, p := range preds {
		if k%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("writing predictions: %w", err)
			}
		}
		bw.WriteString(p.User)
		bw.WriteByte('\t')
		bw.WriteString(p.Item)
		bw.WriteByte('\t')
		bw.WriteString(strconv.FormatFloat(p.Score, 'g', -1, 64))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
