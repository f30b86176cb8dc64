// Package train runs dpmc train's paper mode as one library call and
// renders its report: the solver (package solver), the privacy report
// (package privacy), the error and ranking metrics (package metrics) and
// the model file (package model), in the form the CLI prints.
//
// The user-level private mode is package userdp (Train, Summarize,
// Summary.WriteText); a userdp result becomes a model file with
// model.FromUserLevel.
//
//	run, err := train.Paper(ctx, data, opts, train.Settings{Delta: 1e-6})
//	run.WriteText(os.Stdout)
//	m, err := run.Model()
//	err = m.Save("model.dpmc", false)
package train
