// Package baseline holds non-private reference recommenders: the yardsticks
// that a private top-k model has to be measured against. None of them is
// private — each reads the training data exactly and its scores reveal it —
// and every one says so in its name (Name).
//
//   - Popularity ranks items by their number of training ratings (every
//     rating, or only the positives: ratings ≥ a threshold). The same for
//     every user; the classic floor of top-k evaluation.
//   - EASE, the "embarrassingly shallow autoencoder" (H. Steck, "Embarrassingly
//     Shallow Autoencoders for Sparse Data", WWW 2019): with X the 0/1
//     users × items matrix, P = (XᵀX + λI)⁻¹ and B = I − P·diagMat(1/diag(P))
//     (so B has a zero diagonal), user u's scores are x_u B. The default
//     λ = 500 is the best of 100, 250, 500, 1000 and 2000 on MovieLens 100k
//     u1 (NDCG@10 0.426, 0.444, 0.448, 0.444, 0.431). λ is added to the
//     diagonal of XᵀX, the items' numbers of ratings, so its best value
//     grows with the ratings per item (u1: 48.5): on larger data give it
//     explicitly (issue 25 used λ = 1000 on a MovieLens-1M-sized split,
//     about 270 ratings per item). It holds about three items × items
//     matrices while fitting: FitEASE refuses more than MaxEASEItems
//     items.
//   - PureSVD (P. Cremonesi, Y. Koren and R. Turrin, "Performance of
//     Recommender Algorithms on Top-N Recommendation Tasks", RecSys 2010):
//     the rank-k truncated SVD X ≈ U Σ Vᵀ of the 0/1 (or rating) matrix with
//     missing entries as zeros; user u's scores are x_u V Vᵀ. k = 20 by
//     default. V is found as the top eigenvectors of XᵀX by subspace iteration
//     with Rayleigh–Ritz steps, to convergence.
//
// Every model scores a user from that user's history alone (Score): a
// held-out user absent from training is folded in exactly as a training
// user, which is what the held-out-users protocol (ratings.SplitUsers)
// evaluates. For package metrics, For(m, history) adapts a model to
// metrics.Scorer over the users of a history matrix (the training matrix
// itself for the usual split), computing each user's scores once.
//
// The scores follow package metrics' conventions: items a user rated are
// scored like any other item (metrics excludes them from the candidates),
// and ties are left to metrics (lower item index first).
package baseline
