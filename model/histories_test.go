package model

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
)

// LoadHistories groups a file as ReadPairs and GroupHistories do (same
// users, items and ratings per user; each user's ratings in train's
// order), with the same errors naming file and line.
func TestLoadHistories(t *testing.T) {
	sweet := `"product","user","value"` + "\n"
	for _, c := range []struct {
		name, file, in string
		opts           ratings.Options
		err            string
	}{
		{"tsv", "h.tsv", "u1\tb\t4\nu2\ta\t3\nu1\ta\t5\nu3\tc\t1\n", ratings.Options{}, ""},
		{"sweetrs averages", "ratings-final.csv", sweet + "\"a\",\"1\",2\n\"b\",\"1\",0\n\"a\",\"1\",5\n\"b\",\"2\",4\n", ratings.Options{}, ""},
		{"averaging asked for", "h.csv", "1,a,2\n1,a,5\n2,a,1\n", ratings.Options{Duplicates: ratings.DuplicatesAverage}, ""},
		{"csv refuses", "h.csv", "1,a,2\n2,b,3\n1,a,5\n", ratings.Options{}, `h.csv:3: duplicate rating: user "1", item "a" already rated on line 1`},
		{"no rating column", "h.csv", "1,a\n", ratings.Options{Columns: "user,item"}, "h.csv: a history needs ratings"},
		{"model range", "h.csv", "1,a,4.5\n", ratings.Options{Min: 1, Max: 4}, "h.csv:1: rating out of range"},
		{"tab in an ID", "h.csv", "1,a,4\n\"x\ty\",a,4\n", ratings.Options{}, `h.csv:2: malformed line: user ID "x\ty" holds the control character U+0009`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.file)
			if err := os.WriteFile(path, []byte(c.in), 0o644); err != nil {
				t.Fatal(err)
			}
			got, info, err := LoadHistories(context.Background(), path, c.opts)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "model: ") {
					t.Fatalf("error %v, want one with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ps, pinfo, err := ReadPairs(context.Background(), strings.NewReader(c.in), path, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			want, err := GroupHistories(ps, path)
			if err != nil {
				t.Fatal(err)
			}
			if info != pinfo {
				t.Errorf("info %+v, ReadPairs %+v", info, pinfo)
			}
			if !slices.Equal(got.Users, want.Users) || !slices.Equal(got.Items, want.Items) || len(got.ByUser) != len(want.ByUser) {
				t.Fatalf("users %v items %v, want %v %v", got.Users, got.Items, want.Users, want.Items)
			}
			for _, u := range want.Users {
				if g, w := sortedHistory(got.ByUser[u]), sortedHistory(want.ByUser[u]); !slices.Equal(g, w) {
					t.Errorf("user %s: %v, want %v", u, g, w)
				}
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := filepath.Join(t.TempDir(), "h.tsv")
	writeRatings(t, path, 5000, 1)
	if _, _, err := LoadHistories(ctx, path, ratings.Options{}); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), path) {
		t.Errorf("cancelled: %v", err)
	}
}

func sortedHistory(h History) []string {
	var out []string
	for k, it := range h.Items {
		out = append(out, fmt.Sprintf("%s=%v", it, h.Ratings[k]))
	}
	slices.Sort(out)
	return out
}

// writeRatings writes n ratings of n/100 users × n/50 items, seeded.
func writeRatings(t testing.TB, path string, n int, seed uint64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	r := rng.Seeded(seed)
	users, items := n/100, n/50
	seen := make(map[[2]int]bool, n)
	for len(seen) < n {
		k := [2]int{r.IntN(users), r.IntN(items)}
		if seen[k] {
			continue
		}
		seen[k] = true
		fmt.Fprintf(w, "%d\t%d\t%d\n", k[0]+1, k[1]+1, 1+r.IntN(5))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// LoadHistories allocates some 90 bytes a rating in all (issue 24,
// item 6: reading pairs and grouping them took ten times the memory of
// training: ReadPairs and GroupHistories allocate some 410 bytes a
// rating).
func TestLoadHistoriesMemory(t *testing.T) {
	const n = 200_000
	path := filepath.Join(t.TempDir(), "h.tsv")
	writeRatings(t, path, n, 2)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h, _, err := LoadHistories(context.Background(), path, ratings.Options{})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	perRating := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("%.0f bytes allocated a rating", perRating)
	if perRating > 120 {
		t.Errorf("LoadHistories allocated %.0f bytes a rating, want at most 120", perRating)
	}
	total := 0
	for _, u := range h.ByUser {
		total += len(u.Items)
	}
	if total != n {
		t.Errorf("%d ratings grouped, want %d", total, n)
	}
}
