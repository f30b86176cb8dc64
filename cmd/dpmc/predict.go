package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/model"
)

// predictFlags are the flags of dpmc predict.
type predictFlags struct {
	model, pairs, columns string
	history, histColumns  string
	clip                  bool
	unknown               string
	k                     int
	threshold             float64
	out                   outputFlags
}

func newPredictCmd() *cobra.Command {
	var fl predictFlags
	cmd := &cobra.Command{
		Use:   "predict",
		Short: "Predict ratings for (user, item) pairs with a saved model",
		Long: `predict reads a model saved by dpmc train --save and a file of (user, item)
pairs, one per line (tab-, comma- or space-separated), and prints
user<TAB>item<TAB>prediction for each, with the file's own IDs.

A paper-mode model holds its users. A user-level private model holds no user:
a user's bias and factor are computed from the model and that user's own
ratings, given with --history FILE (user, item, rating per line). This happens
inside this command, on your machine; nothing is stored. A user without
history ratings is unknown.

Unknown users or items are an error (--unknown error, the default) or get a
fallback (--unknown fallback): μ + the item's bias for an unknown user, μ +
the user's bias for an unknown item, μ for both (a paper-mode model: its mean
training rating in every case); they are counted on stderr.

With a rating column (--columns user,item,rating) predict also prints, on
stderr, RMSE and MAE over the rated pairs and precision/recall/NDCG/MAP@k
(package metrics: each known user's candidates are every model item not in
the user's --history).`,
		Example: `  dpmc predict --model model.dpmc --pairs pairs.tsv
  dpmc predict --model model.dpmc --pairs u1.test --columns user,item,rating,_ --history u1.base --history-columns user,item,rating,_ --clip`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPredict(cmd, &fl) },
	}
	f := cmd.Flags()
	f.StringVar(&fl.model, "model", "", "model file written by dpmc train --save (required)")
	f.StringVar(&fl.pairs, "pairs", "", "file of (user, item) pairs, one per line (required)")
	f.StringVar(&fl.columns, "columns", "user,item", `columns of --pairs: user, item, optionally rating, "_" to ignore a field, e.g. user,item,rating,_`)
	f.StringVar(&fl.history, "history", "", "users' own ratings (user, item, rating per line): folds each user in locally for a user-level model; marks rated items for ranking")
	f.StringVar(&fl.histColumns, "history-columns", "user,item,rating", "columns of --history (must include rating)")
	f.BoolVar(&fl.clip, "clip", false, "clip predictions to the model's rating range")
	f.StringVar(&fl.unknown, "unknown", "error", "unknown users or items: error or fallback (μ + item bias, μ + user bias, or μ; paper models: the training mean)")
	f.IntVar(&fl.k, "k", 10, "list length of the ranking metrics (with a rating column)")
	f.Float64Var(&fl.threshold, "relevant", 4, "lowest rating that counts as relevant for the ranking metrics")
	fl.out.register(cmd)
	return cmd
}

func runPredict(cmd *cobra.Command, fl *predictFlags) error {
	if fl.model == "" || fl.pairs == "" {
		return fmt.Errorf("predict needs --model and --pairs")
	}
	unknown, err := model.ParseUnknown(fl.unknown)
	if err != nil {
		return fmt.Errorf("--unknown: %w", err)
	}
	cols, err := model.ParseColumns(fl.columns)
	if err != nil {
		return fmt.Errorf("--columns: %w", err)
	}
	if fl.k < 1 {
		return fmt.Errorf("--k = %d, want ≥ 1", fl.k)
	}
	if err := fl.out.check(); err != nil {
		return err
	}
	m, err := model.Load(fl.model)
	if err != nil {
		return fmt.Errorf("--model: %w", err)
	}
	pairs, err := model.LoadPairs(fl.pairs, cols)
	if err != nil {
		return fmt.Errorf("--pairs: %w", err)
	}
	o := model.PredictOptions{Clip: fl.clip, Unknown: unknown, Name: fl.pairs}
	if o.Histories, err = loadHistories(fl.history, fl.histColumns); err != nil {
		return err
	}
	preds, st, err := m.PredictPairs(pairs, o)
	if err != nil {
		return err
	}
	if err := fl.out.write(cmd.OutOrStdout(), func(w io.Writer) error { return writePredictions(w, preds) }); err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	fmt.Fprintf(stderr, "dpmc: predict: %d pairs; %d with an unknown user, %d with an unknown item (fallback)", st.Pairs, st.UnknownUsers, st.UnknownItems)
	if fl.history != "" && m.Kind == model.UserLevel {
		fmt.Fprintf(stderr, "; %d users folded in from --history (%d of their ratings are of items not in the model)", st.FoldedIn, st.HistoryUnknown)
	}
	fmt.Fprintln(stderr)
	if cols.HasRating() && len(preds) > 0 {
		r, err := m.EvaluatePairs(preds, o, metrics.Options{K: fl.k, Threshold: fl.threshold})
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "dpmc: predict: %s\n", r)
	}
	return nil
}

// loadHistories reads --history (nil without one).
func loadHistories(path, columns string) (map[string]model.History, error) {
	if path == "" {
		return nil, nil
	}
	c, err := model.ParseColumns(columns)
	if err != nil {
		return nil, fmt.Errorf("--history-columns: %w", err)
	}
	h, err := model.LoadHistories(path, c)
	if err != nil {
		return nil, fmt.Errorf("--history: %w", err)
	}
	return h, nil
}

func writePredictions(w io.Writer, preds []model.Prediction) error {
	bw := bufio.NewWriter(w)
	for _, p := range preds {
		bw.WriteString(p.User)
		bw.WriteByte('\t')
		bw.WriteString(p.Item)
		bw.WriteByte('\t')
		bw.WriteString(strconv.FormatFloat(p.Score, 'g', -1, 64))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
