package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/dpmc/dpmc/model"
)

// recommendFlags are the flags of dpmc recommend.
type recommendFlags struct {
	model, user        string
	history            string
	historyFile        fileFlags
	k                  int
	includeRated, json bool
}

func newRecommendCmd() *cobra.Command {
	var fl recommendFlags
	cmd := &cobra.Command{
		Use:   "recommend",
		Short: "Recommend the top k items for one user with a saved model",
		Long: `recommend prints the k items with the highest predicted rating for one user,
best first, with their scores (unclipped predictions), leaving out the items
the user has rated.

A paper-mode model holds its users: --user ID picks one. It does not record
which items a user rated; give them with --history to exclude them (without
it, recommend warns that the list may include them).

A -k beyond the model's items is clamped to them; a list shorter than -k
(few items, or few left once the rated ones are excluded) is said on
stderr, and in --json under "warnings" beside "k_requested".

A user-level private model holds no user (the billboard model): give the
user's own ratings with --history FILE (a ratings file, read exactly as dpmc
train reads --data; if the file holds several users, --user picks one).
Ratings outside the model's rating range are refused; a pair rated twice is an
error, except in a SweetRS file, whose repeated pairs are averaged as train
averages them. The user's bias and factor are
computed here from the released model and those ratings; the ratings never
leave this command.

A ranking model (dpmc train --objective ranking) ranks with its ranking part:
the user's own items from --history (rated or not: a pairs file of
user<TAB>item or user,item lines works; ratings are ignored) pick the head
items that co-occur with them, then come the other items by noisy
popularity; the user's own items are left out. Its scores order the items
and are not ratings. Nothing about the user leaves this command.`,
		Example: `  dpmc recommend --model paper.dpmc --user 17 -k 10
  dpmc recommend --model private.dpmc --history my-ratings.tsv -k 10 --output-format json
  dpmc recommend --model ranking.dpmc --history my-clicks.tsv -k 10`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runRecommend(cmd, &fl) },
	}
	f := cmd.Flags()
	f.StringVar(&fl.model, "model", "", "model file written by dpmc train --save (required)")
	f.StringVar(&fl.user, "user", "", "user ID (a paper model's user; with --history, which of its users)")
	f.StringVar(&fl.history, "history", "", "the user's own ratings (a ratings file, read like --data of dpmc train; for a ranking model also a pairs file without ratings): required for a user-level model")
	fl.historyFile.register(cmd, "history-", "history", `columns of a csv/tsv --history (must include rating; a pairs file needs none), e.g. user,item,rating,_`)
	f.IntVarP(&fl.k, "k", "k", 10, "number of items to recommend")
	f.BoolVar(&fl.includeRated, "include-rated", false, "keep the --history items among the candidates")
	registerOutputFormat(cmd, &fl.json, `text (lines), or json: {"recommendations": [{"item": ID, "score": s}, ...], ...}`)
	return cmd
}

func runRecommend(cmd *cobra.Command, fl *recommendFlags) error {
	if fl.model == "" {
		return fmt.Errorf("recommend needs --model")
	}
	if fl.k < 1 {
		return fmt.Errorf("-k = %d, want ≥ 1", fl.k)
	}
	m, err := model.Load(fl.model)
	if err != nil {
		return fmt.Errorf("--model: %w", err)
	}
	hs, err := loadHistories(cmd.Context(), fl.history, &fl.historyFile, m)
	if err != nil {
		return err
	}
	req := model.Request{User: fl.user, K: fl.k, IncludeRated: fl.includeRated}
	switch {
	case fl.history == "" && fl.user == "":
		return fmt.Errorf("give --user ID (a paper model) or --history FILE (the user's own ratings)")
	case fl.history != "" && fl.user == "":
		if len(hs.Users) != 1 {
			return fmt.Errorf("--history %s holds %d users: pick one with --user", fl.history, len(hs.Users))
		}
		h := hs.ByUser[hs.Users[0]]
		req.User, req.History = hs.Users[0], &h
	case fl.history != "":
		h, ok := hs.ByUser[fl.user]
		if !ok {
			return fmt.Errorf("--history %s has no rating of user %s", fl.history, fl.user)
		}
		req.History = &h
	}
	stderr := cmd.ErrOrStderr()
	var warnings []string
	warn := func(format string, a ...any) {
		w := fmt.Sprintf(format, a...)
		warnings = append(warnings, w)
		fmt.Fprintln(stderr, "dpmc: recommend:", w)
	}
	// Bound k by the candidates before anything is allocated for them.
	if n := len(m.ItemIDs); req.K > n {
		req.K = n
		warn("-k %d exceeds the model's %d items: clamped to %d", fl.k, n, n)
	}
	if m.Kind == model.Paper && req.History == nil {
		warn("a paper-mode model does not record which items user %s rated, so the list may include them; give the user's ratings with --history FILE (such as the training file) to leave them out", req.User)
	}
	rec, err := m.RecommendUser(req)
	if err != nil {
		return err
	}
	if len(rec.Items) < fl.k {
		why := fmt.Sprintf("the model holds %d items", len(m.ItemIDs))
		if rec.Excluded > 0 {
			why += fmt.Sprintf(", %d of them rated by the user and left out (--include-rated keeps them)", rec.Excluded)
		}
		warn("%d items, fewer than -k %d: %s", len(rec.Items), fl.k, why)
	}
	if fl.json {
		return writeRecommendJSON(cmd.OutOrStdout(), rec, fl.k, warnings)
	}
	return rec.WriteText(cmd.OutOrStdout())
}

// recommendJSON is recommend's --json object: the model's recommendation
// with the k asked for (its "k" is the k used, at most the number of
// items) and what recommend warned about on stderr (a list shorter than
// k_requested, or rated items that could not be left out).
type recommendJSON struct {
	*model.Recommendation
	KRequested int      `json:"k_requested"`
	Warnings   []string `json:"warnings,omitempty"`
}

func writeRecommendJSON(w io.Writer, rec *model.Recommendation, k int, warnings []string) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(recommendJSON{Recommendation: rec, KRequested: k, Warnings: warnings})
}
