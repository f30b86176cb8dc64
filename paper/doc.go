// Package paper is the home of everything that exists to reproduce and
// judge the paper "Introducing the Huber mechanism for differentially
// private low-rank matrix completion" (Gowtham, M, Tholeti, Kalyani). It
// holds no code of its own; its packages are:
//
//   - paper/train: `dpmc train --privacy paper` as one library call — the
//     paper's noisy ALS and IRLS+Huber (package solver) on a data set, with
//     the error metrics and the privacy report — and its rendering.
//   - paper/privacy: the paper mode's privacy report: the per-release ε of
//     the noisy right-hand sides and what they compose to.
//   - paper/calibrate: a mechanism built from the paper's knob, a noise
//     variance per coordinate.
//   - paper/budget: the paper's Table 1 (the one-release ε of each
//     mechanism at equal variance).
//   - paper/experiment: the paper's experiments and the comparisons it
//     leaves out, and the REPRODUCTION.md report (`dpmc reproduce`).
//
// # What the paper's algorithms guarantee
//
// Nothing about the trained model. The paper adds noise to the right-hand
// side of each item's least-squares update, at a per-release ε computed for
// an assumed sensitivity, but the Gram matrix is released without noise,
// no user's contribution is bounded (so the assumed sensitivity does not
// hold), and the many releases are not composed into a total. The reports
// of paper/privacy compose them anyway, for comparison, and say on every
// line that the total is not a guarantee.
//
// A differentially private model is package userdp's (`dpmc train
// --privacy user`): user-level (ε, δ)-DP of everything it releases, with
// every sensitivity bounded and every release accounted.
package paper
