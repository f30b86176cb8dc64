// Package experiment runs the paper's experiments and the comparisons it
// leaves out, and writes their results, summaries, plots and the
// REPRODUCTION.md report. It is what `dpmc reproduce` calls.
//
// How the parts fit:
//
//   - Plan turns a Config into trials: one solver run each, with the data
//     seed and noise seed it uses. Tables 3, 8 and 9 are synthetic problems
//     of rank 5, 10 and 20; table 6 is MovieLens 100k (u1.base / u1.test);
//     table 7 is SweetRS subsampled to 5, 10 and 15 % visible cells; table
//     "privacy" compares the mechanisms at equal per-release ε instead of
//     equal variance. Table 1 is package budget's.
//   - Run executes the trials on a pool of workers (each trial single
//     threaded, so trials run side by side) and returns Results.
//   - Summarize groups trials into cells with mean, standard deviation and a
//     95 % Student-t confidence interval, and compares cells with paired
//     intervals: within a trial index every mechanism and solver sees the
//     same data and the same noise stream (common random numbers), so the
//     paired difference is the honest test of "A beats B".
//   - Write puts tableN.csv, tableN.json, tableN.md and plots into the
//     output directory; Report renders REPRODUCTION.md from what is there.
//
// Everything is seeded: results are reproducible and the noise is
// therefore NOT private. These are experiments about accuracy, not private
// releases.
package experiment
