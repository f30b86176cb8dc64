package main

import (
	"fmt"

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
which items a user rated; give them with --history to exclude them.

A user-level private model holds no user (the billboard model): give the
user's own ratings with --history FILE (a ratings file, read exactly as dpmc
train reads --data; if the file holds several users, --user picks one).
Ratings outside the model's rating range are refused; a pair rated twice is an
error, except in a SweetRS file, whose repeated pairs are averaged as train
averages them. The user's bias and factor are
computed here from the released model and those ratings; the ratings never
leave this command.`,
		Example: `  dpmc recommend --model paper.dpmc --user 17 -k 10
  dpmc recommend --model private.dpmc --history my-ratings.tsv -k 10 --output-format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runRecommend(cmd, &fl) },
	}
	f := cmd.Flags()
	f.StringVar(&fl.model, "model", "", "model file written by dpmc train --save (required)")
	f.StringVar(&fl.user, "user", "", "user ID (a paper model's user; with --history, which of its users)")
	f.StringVar(&fl.history, "history", "", "the user's own ratings (a ratings file, read like --data of dpmc train): required for a user-level model")
	fl.historyFile.register(cmd, "history-", "history", `columns of a csv/tsv --history (must include rating), e.g. user,item,rating,_`)
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
	rec, err := m.RecommendUser(req)
	if err != nil {
		return err
	}
	if fl.json {
		return rec.WriteJSON(cmd.OutOrStdout())
	}
	return rec.WriteText(cmd.OutOrStdout())
}
