// Package metrics measures a recommender on held-out ratings: the rating
// errors RMSE and MAE, and the ranking metrics precision@k, recall@k,
// NDCG@k and MAP@k.
//
// # Conventions
//
// Errors are over every held-out rating, of the predictions as the
// Scorer returns them (clip them there if wanted).
//
// Ranking, for each user:
//
//   - Relevant items are the user's held-out items rated ≥ Threshold
//     (default 4). A user without a relevant held-out item is skipped and
//     not counted.
//   - Candidates are every item the user did not rate in training: the
//     held-out items (relevant or not) and every item the user never
//     rated, which counts as not relevant.
//   - Candidates are ordered by score, highest first; equal scores by the
//     lower item index, so results are deterministic.
//   - With h(p) = 1 if the item at position p (1-based) of the top k is
//     relevant, R the number of relevant items and hits = Σ_{p≤k} h(p):
//     precision@k = hits / k (k even when fewer candidates exist);
//     recall@k = hits / R;
//     NDCG@k = Σ_{p≤k} h(p)/log₂(p+1) ÷ Σ_{p≤min(R,k)} 1/log₂(p+1)
//     (binary gains); AP@k = Σ_{p≤k} h(p)·(hits in the top p)/p ÷ min(R, k).
//   - Each metric is the mean over the users ranked (macro average).
//
// These are the definitions of Surprise's precision_recall_at_k (with
// recall over all relevant items) and of implicit's ranking_metrics_at_k,
// except that candidates include unrated items, as a recommender ranks
// them in use.
package metrics
