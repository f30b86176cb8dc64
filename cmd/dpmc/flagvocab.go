package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dpmc/dpmc/internal/flagvocab"
)

// applyVocabulary gives every Auto flag of the vocabulary (package
// flagvocab) under root the zero default of its type, which help does not
// print: the command decides that default, and the flag's usage says what
// it is. The variable behind the flag keeps the value it was registered
// with.
func applyVocabulary(root *cobra.Command) {
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if v, ok := flagvocab.Lookup(f.Name); ok && v.Auto && !isAlias(f) {
				f.DefValue = v.Default
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// outputFormat is --output-format text|json for a command that keeps the
// choice as a bool (true for json).
type outputFormat struct{ json *bool }

func (o outputFormat) String() string {
	if o.json != nil && *o.json {
		return "json"
	}
	return "text"
}

func (o outputFormat) Set(s string) error {
	switch s {
	case "text":
		*o.json = false
	case "json":
		*o.json = true
	default:
		return fmt.Errorf("want text or json")
	}
	return nil
}

func (o outputFormat) Type() string { return "string" }

// registerOutputFormat adds --output-format, setting *json, and keeps the
// old --json working for one release as a hidden, deprecated alias.
func registerOutputFormat(cmd *cobra.Command, json *bool, usage string) {
	cmd.Flags().Var(outputFormat{json}, "output-format", usage)
	addAlias(cmd, "json", "output-format", "use --output-format json", "bool", "true", func(s string) string {
		if s == "true" {
			return "json"
		}
		return "text"
	})
}

// alias is the Value of a renamed flag's old name: setting it sets the new
// flag (which then counts as given), through conv if not nil, after a
// notice on the command's standard error (pflag's MarkDeprecated would
// print it to standard output, among the output).
type alias struct {
	cmd       *cobra.Command
	old, to   string
	note, typ string
	conv      func(string) string
}

func (a *alias) String() string { return "" }
func (a *alias) Type() string   { return a.typ }
func (a *alias) Set(s string) error {
	fmt.Fprintf(a.cmd.ErrOrStderr(), "dpmc: warning: --%s is deprecated and goes in the next release: %s\n", a.old, a.note)
	if a.conv != nil {
		s = a.conv(s)
	}
	return a.cmd.Flags().Set(a.to, s)
}

// deprecatedAlias keeps the flag name old working for one release: it is
// hidden, sets --to and prints a notice that names the new flag. Renamed
// flags are listed in the README.
func deprecatedAlias(cmd *cobra.Command, old, to string) {
	t := cmd.Flags().Lookup(to)
	addAlias(cmd, old, to, "use --"+to, t.Value.Type(), t.NoOptDefVal, nil)
}

// addAlias adds the hidden flag old, an alias of --to; its usage starts
// "renamed --to", which marks it as an alias for the tests.
func addAlias(cmd *cobra.Command, old, to, note, typ, noOpt string, conv func(string) string) {
	cmd.Flags().AddFlag(&pflag.Flag{Name: old, Usage: "renamed --" + to, Hidden: true, NoOptDefVal: noOpt,
		Value: &alias{cmd: cmd, old: old, to: to, note: note, typ: typ, conv: conv}})
}

// isAlias reports whether f is the old name of a renamed flag.
func isAlias(f *pflag.Flag) bool {
	_, ok := f.Value.(*alias)
	return ok
}
