package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/beam/pipeline"
)

// run refuses a bad --save before the pipeline starts, with one clean
// error naming the flag: an existing file without --force, an input (the
// data, through a symbolic or hard link, or the catalogue) even with
// --force, a folder that does not exist. Before, the pipeline ran to the
// end and the runner printed several copies of the error.
func TestSaveCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "u.tsv")
	var b strings.Builder
	for u := 1; u <= 30; u++ {
		for i := 1; i <= 5; i++ {
			b.WriteString(strings.Join([]string{strconv.Itoa(u), strconv.Itoa(i), strconv.Itoa(1 + (u+i)%5)}, "\t") + "\n")
		}
	}
	items := filepath.Join(dir, "items.txt")
	existing := filepath.Join(dir, "model.dpmc")
	for p, text := range map[string]string{data: b.String(), items: "1\n2\n3\n4\n5\n", existing: "mine"} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sym, hard := filepath.Join(dir, "sym"), filepath.Join(dir, "hard")
	if err := os.Symlink(data, sym); err != nil {
		t.Skip(err)
	}
	if err := os.Link(data, hard); err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"exists", []string{"--save", existing}, "--save: " + existing + ": file exists (pass --force to overwrite)"},
		{"data", []string{"--save", data, "--force"}, "--save " + data + " is the same file as --data " + data},
		{"symlink", []string{"--save", sym, "--force"}, "--save " + sym + " is the same file as --data " + data},
		{"hard link", []string{"--save", hard, "--force"}, "--save " + hard + " is the same file as --data " + data},
		{"items", []string{"--save", items, "--items", items, "--force"}, "--save " + items + " is the same file as --items " + items},
		{"no folder", []string{"--save", filepath.Join(dir, "none", "m.dpmc")}, "--save: " + filepath.Join(dir, "none", "m.dpmc") + ": directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := flag.NewFlagSet("dpmc-beam", flag.ContinueOnError)
			var f pipeline.Flags
			f.Register(fs)
			if err := fs.Parse(append([]string{"--data", data, "--epsilon", "1", "--seed", "1", "--format", "tsv"}, c.args...)); err != nil {
				t.Fatal(err)
			}
			set := map[string]bool{}
			fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
			err := run(context.Background(), &f, func(name string) bool { return set[name] })
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %v, want one starting %q", err, c.want)
			}
			if got, _ := os.ReadFile(existing); string(got) != "mine" {
				t.Errorf("%s changed", existing)
			}
			if got, _ := os.ReadFile(data); string(got) != b.String() {
				t.Errorf("%s changed", data)
			}
		})
	}
}
