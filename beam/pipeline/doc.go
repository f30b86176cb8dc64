// Package pipeline runs dpmc's user-level private training (what
// `dpmc train --privacy user` and userdp.Train do) as an Apache Beam
// pipeline (Go SDK), so that the data can stay in, and the work spread
// over, a cluster. It lives in its own module, github.com/dpmc/dpmc/beam,
// so that the core module does not depend on the Beam SDK.
//
//	cfg := &pipeline.Config{Files: []string{"ratings-*.csv"}, Save: "model.dpmc"}
//	lo, hi, err := pipeline.Resolve(cfg)       // files, format, rating range
//	cfg.Options = userdp.Defaults(1, 1e-6, lo, hi)
//	counters, err := pipeline.Run(ctx, cfg)    // Prism unless --runner says otherwise
//
// # The graph
//
// Every computation is a userdp.Plan building block; the pipeline only
// moves data between them, so there is one implementation of the privacy
// logic, and the pipeline releases exactly what userdp.Train releases
// (TestPipelineMatchesTrain checks the items, counts, biases, factors and
// privacy report at a seed):
//
//	read (one task per file, ratings parsers; a chunk of ratings per user and buffer) → GroupByKey(user)
//	→ prepare: a user's candidate ratings in canonical item order, contributed subset (Plan.Subset)
//	→ mean terms → Combine: exact sums → ReleaseMean (side input "sums" to every later stage)
//	→ count terms (summed per bundle) → CombinePerKey(item) → ReleaseCount, Selected → global: the released item list
//	→ bias terms (summed per bundle) → CombinePerKey(item) → ReleaseBias; tail terms → Combine → global: biases (FitBiasTrend), ReleaseTail
//	→ start terms → Combine (packed second moments) → global: ReleaseStart (or RandomStart)
//	→ per ALS step (unrolled): user fits and item terms (summed per bundle) → CombinePerKey(item) → ReleaseItem → global: V, NormalizeRows
//	→ AppendFeatures (the feature columns, from the released counts and biases) → write the model file (package model) with the privacy report
//
// The global results (the sums behind the noisy mean and user count, the
// selected items with their counts, biases and V) reach the per-user and
// per-item stages as side inputs. Each stage that needs the whole plan
// rebuilds it from the options and the side input "sums": NewPlan,
// ReleaseMean (which draws the same noise wherever it runs, see below) and
// Decide, so every worker holds the same calibration, factor decision and
// report. Every sum over users is exact (userdp.Sum, package
// internal/exactsum: each user's term truncated toward zero to a grid
// fixed by the options, added as a 128-bit integer), and the combiners
// add and merge those integers, so the sums do not depend on how the
// runner partitions, orders or merges the data, and equal Train's bit
// for bit. No stage gathers per-user terms: the largest single value is
// an accumulator — the start's packed lower triangle over the at most
// StartItems most popular head items (S(S+1)/2 sums of 24 bytes) —
// or the release itself (the released items' IDs, counts, biases and
// V); per item, one Gram accumulator of r² + r sums.
//
// The ranking objective (Options.Objective = userdp.ObjectiveRanking:
// --objective ranking, or implicit pairs data) has its own stages
// (ranking.go): each user's contributed positives, the exact number of
// users (Combine), the positive counts (CombinePerKey by item), the
// selection, the head Gram summed per head row (CombinePerKey by row:
// an accumulator is one row of at most M exact sums, 24 kB at the
// largest head, M = 1000, rather than the packed triangle's 12 MB) and
// released row by row, then the components of the noisy M × M Gram
// (8 MB at M = 1000) on one worker.
//
// # DP under retries
//
// A runner may execute a bundle more than once (a failed worker, a
// speculative copy) and keep either output. Two guarantees make that
// harmless:
//
//   - The noise of every release is a deterministic function of a secret
//     and the release's name: the stream of (phase, step, item or user ID)
//     is ChaCha8 keyed by HMAC-SHA-256(K, name), where K is the run key
//     HMAC-SHA-256(key, domain ‖ nonce) when the run is unseeded: the key
//     is Config.Key (drawn from crypto/rand when empty) and the nonce 256
//     fresh bits from crypto/rand, drawn once per launch by Build and
//     shipped to every worker with the key (userdp.Plan.SetLaunchKey);
//     when seeded, the seed (not private).
//     A re-executed bundle therefore draws exactly the noise the first
//     execution drew: whatever output the runner keeps, no item's
//     statistic is ever released with two different noise values (which
//     would average the noise away and spend the budget twice).
//     Everything a DoFn computes from its inputs is deterministic too
//     (exact sums, no map iteration order; the clock only in the
//     progress lines), so a retried bundle emits the same elements — or,
//     where a runner splits it otherwise, per-bundle partial sums (the
//     read's chunks, the count and bias terms) that add up to the same
//     exact totals. TestWorkersShareLaunchNoise
//     checks that every worker's plan of one launch draws the same noise,
//     and TestReusedKeyDoesNotCancel that two launches with one key (on
//     neighbouring data) draw independent noise.
//   - The budget is fixed by the plan, not by executions: the noise
//     scales, the number of releases and the report are computed from the
//     options (and the released, deterministic user count) when the plan
//     is built; no stage spends or accounts anything when it runs, so a
//     retry cannot charge the budget twice, and what the report states is
//     what was released.
//
// What this means for operators: an unseeded run's key travels inside
// the job graph (in every DoFn's serialized configuration), because every
// worker needs it. Anyone who can read the submitted job (the runner's
// job server or console, staged pipeline files, worker memory) can
// regenerate the noise and subtract it from the released model, so the
// job graph must be treated as being as sensitive as the raw ratings —
// which such a reader can usually see anyway. The key is never written
// to the model file, and a new nonce (with a new key, unless
// Config.Key gives one) is drawn for every launch, so that a key reused
// across runs never repeats their noise. With
// --seed the noise is reproducible by anyone with the seed: seeded runs
// are for experiments only and their report says the guarantee is none.
//
// # Scope
//
// The non-private baseline (no noise) is not supported; use dpmc train.
// Each ratings file is read by one task, record by record with package
// ratings' parser (ratings.Scan; a sweetrs file, whose repeated pairs are
// averaged, whole with ratings.Read), so a large data set should come in
// many files to be read in parallel; a (user, item) pair must occur once
// across all files (a repeated pair of implicit data is one positive).
package pipeline
