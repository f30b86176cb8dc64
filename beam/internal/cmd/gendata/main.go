// Command gendata writes synthetic.DefaultRealistic(users, seed) (a
// MovieLens-1M-shaped data set: 6040 users give about a million ratings)
// as a csv ratings file, or as -shards files NAME-00000-of-N.csv split by
// user, for the scale measurements of the Beam pipeline (beam/README.md).
//
//	go run ./internal/cmd/gendata -users 6040 -seed 1 -o /tmp/r1m.csv
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/dpmc/dpmc/synthetic"
)

func main() {
	users := flag.Int("users", 6040, "number of users (items scale as users^0.425: 1 682 at 943, 3 706 at 6 040)")
	seed := flag.Uint64("seed", 1, "generator seed")
	out := flag.String("o", "ratings.csv", "output file (with -shards: its name without .csv is the prefix)")
	shards := flag.Int("shards", 1, "number of files, split by user")
	flag.Parse()
	if err := run(*users, *seed, *out, *shards); err != nil {
		fmt.Fprintln(os.Stderr, "gendata:", err)
		os.Exit(1)
	}
}

func run(users int, seed uint64, out string, shards int) error {
	if shards < 1 {
		return fmt.Errorf("-shards = %d, want ≥ 1", shards)
	}
	d, err := synthetic.DefaultRealistic(users, seed).Generate()
	if err != nil {
		return err
	}
	ws := make([]*bufio.Writer, shards)
	fs := make([]*os.File, shards)
	for k := range ws {
		name := out
		if shards > 1 {
			name = fmt.Sprintf("%s-%05d-of-%05d.csv", strings.TrimSuffix(out, ".csv"), k, shards)
		}
		if fs[k], err = os.Create(name); err != nil {
			return err
		}
		ws[k] = bufio.NewWriterSize(fs[k], 1<<20)
	}
	for x := range d.Ratings.All() {
		w := ws[int(x.User)%shards]
		w.WriteString(d.Users.ID(int(x.User)))
		w.WriteByte(',')
		w.WriteString(d.Items.ID(int(x.Item)))
		w.WriteByte(',')
		w.WriteString(strconv.FormatFloat(x.Value, 'g', -1, 64))
		w.WriteByte('\n')
	}
	for k := range ws {
		if err := ws[k].Flush(); err != nil {
			return err
		}
		if err := fs[k].Close(); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "gendata: %d users, %d items, %d ratings\n", d.Ratings.Rows(), d.Ratings.Cols(), d.Ratings.Len())
	return nil
}
