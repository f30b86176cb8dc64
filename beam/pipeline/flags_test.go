package pipeline

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/internal/flagvocab"
)

// Bad flags give an error naming the flag, before any pipeline runs; good
// ones give the options dpmc train --privacy user would use.
func TestFlagsConfig(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "r.csv")
	if err := os.WriteFile(data, []byte("1,10,4\n1,11,3\n2,10,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	save := filepath.Join(dir, "m.dpmc")
	for _, tc := range []struct {
		args []string
		want string // substring of the error; "" for none
	}{
		{[]string{"--data", data, "--epsilon", "1", "--save", save}, ""},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--rank", "2", "--iters", "3", "--seed", "4"}, ""},
		{[]string{"--epsilon", "1", "--save", save}, "--data"},
		{[]string{"--data", data, "--save", save}, "--epsilon"},
		{[]string{"--data", data, "--epsilon", "1"}, "--save"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--delta", "2"}, "--delta"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--format", "xml"}, "--format"},
		{[]string{"--data", filepath.Join(dir, "none*.csv"), "--epsilon", "1", "--save", save}, "--data"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--weights", "heavy"}, "--weights"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--center", "9"}, "--center"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--factor-share", "0.3"}, "--factor-share"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--items", filepath.Join(dir, "absent")}, "--items"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--output-format", "xml"}, "--output-format"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--objective", "ranking"}, ""},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--objective", "ranking", "--rank", "2"}, "--rank"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--objective", "ranks"}, "--objective"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--positive", "9"}, "--positive"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--objective", "rating", "--positive", "4"}, "--positive"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--log-level", "loud"}, "--log-level"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--head-noise-ratio", "7.5", "--start-items", "20"}, ""},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--head-noise-ratio", "-1"}, "--head-noise-ratio"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--start-items", "-2"}, "--start-items"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--popularity-scale", "-1"}, "--popularity-scale"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--bias-column-scale", "-1"}, "--bias-column-scale"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--objective", "ranking", "--popularity-scale", "1"}, "--popularity-scale"},
		{[]string{"--data", data, "--epsilon", "1", "--save", save, "--objective", "ranking", "--start-items", "20"}, "--start-items"},
	} {
		fs := flag.NewFlagSet("dpmc-beam", flag.ContinueOnError)
		var f Flags
		f.Register(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		set := map[string]bool{}
		fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
		c, err := f.Config(func(n string) bool { return set[n] })
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want one naming %s", tc.args, err, tc.want)
		case tc.want == "" && (c.Options.Min != 1 || c.Options.Max != 5 || len(c.Files) != 1):
			t.Errorf("%q: range [%v, %v], %d files; want [1, 5] and 1", tc.args, c.Options.Min, c.Options.Max, len(c.Files))
		case tc.want == "" && set["head-noise-ratio"] && (c.Options.HeadNoiseRatio != 7.5 || c.Options.StartItems != 20):
			t.Errorf("%q: head noise ratio %v, start items %d; want 7.5 and 20", tc.args, c.Options.HeadNoiseRatio, c.Options.StartItems)
		case tc.want == "" && set["seed"] && (!c.Options.Seeded || c.Options.Rank != 2 || c.Options.Iters != 3):
			t.Errorf("%q: seeded %v, rank %d, iters %d", tc.args, c.Options.Seeded, c.Options.Rank, c.Options.Iters)
		}
	}
}

// TestFlagVocabulary: every flag of dpmc-beam is the flag of its name in
// dpmc's one vocabulary (internal/flagvocab: the same type, default and
// unit as in every dpmc command), and they are the flags docs/cli.md lists
// for dpmc-beam.
func TestFlagVocabulary(t *testing.T) {
	fs := flag.NewFlagSet("dpmc-beam", flag.ContinueOnError)
	var f Flags
	f.Register(fs)
	var names []string
	fs.VisitAll(func(fl *flag.Flag) {
		names = append(names, fl.Name)
		if err := flagvocab.Check(fl.Name, "", flagvocab.StdType(fl), fl.DefValue, fl.Usage); err != nil {
			t.Error(err)
		}
	})
	want := slices.Sorted(slices.Values(flagvocab.Beam))
	if !slices.Equal(names, want) {
		t.Errorf("dpmc-beam's flags are %q; flagvocab.Beam lists %q", names, want)
	}
}
