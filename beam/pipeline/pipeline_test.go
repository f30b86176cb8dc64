package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/dpmc/dpmc/model"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/synthetic"
	"github.com/dpmc/dpmc/userdp"
)

func TestMain(m *testing.M) {
	if err := SetLogLevel("warn"); err != nil {
		panic(err)
	}
	beam.Init()
	os.Exit(m.Run())
}

// writeCSV writes a generated data set as a csv ratings file, values in
// their shortest exact form.
func writeCSV(t *testing.T, users int, seed uint64) string {
	t.Helper()
	d, err := synthetic.DefaultRealistic(users, seed).Generate()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for x := range d.Ratings.All() {
		fmt.Fprintf(&b, "%s,%s,%s\n", d.Users.ID(int(x.User)), d.Items.ID(int(x.Item)), strconv.FormatFloat(x.Value, 'g', -1, 64))
	}
	path := filepath.Join(t.TempDir(), "ratings.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runPrism runs the pipeline on Prism and loads the model it wrote.
func runPrism(t *testing.T, c *Config) *model.Model {
	t.Helper()
	c.Save = filepath.Join(t.TempDir(), "model.dpmc")
	p, s := beam.NewPipelineWithRoot()
	if err := Build(s, c); err != nil {
		t.Fatal(err)
	}
	if _, err := prism.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(c.Save)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// near says whether a and b agree to rel relative to the largest |b|.
func near(a, b []float64, rel float64) bool {
	if len(a) != len(b) {
		return false
	}
	var scale float64
	for _, x := range b {
		scale = math.Max(scale, math.Abs(x))
	}
	for k := range a {
		if math.Abs(a[k]-b[k]) > rel*scale {
			return false
		}
	}
	return true
}

// The pipeline on Prism releases what userdp.Train releases at the same
// seed, from the input shuffled and split into files: the same items,
// counts, biases, tail bias, centre and factors, bit for bit (every sum
// is exact, so neither the order nor the combiners' partition matters),
// and the same privacy report.
func TestPipelineMatchesTrain(t *testing.T) {
	type tc struct {
		name string
		file string
		opts func(lo, hi float64, d *ratings.Dataset) userdp.Options
	}
	cases := []tc{
		{"selection, PCA start over part of the head, 2 steps", "", func(lo, hi float64, _ *ratings.Dataset) userdp.Options {
			o := userdp.Defaults(30, 1e-6, lo, hi).WithFactors(3, 2, 0.4)
			o.MaxItemsPerUser, o.HeadItems, o.StartItems = 40, 60, 20
			o.HeadNoiseRatio = 0 // a head of 60 on 300 users, so that the start covers a third of it
			return o
		}},
		{"catalogue, random start", "", func(lo, hi float64, d *ratings.Dataset) userdp.Options {
			o := userdp.Defaults(30, 1e-6, lo, hi).WithFactors(2, 1, 0.4).WithCatalogue(catalogue(d))
			o.MaxItemsPerUser, o.HeadItems = 40, 50
			o.Shares.PCA = 0
			return o
		}},
		{"defaults: factors off by the rule, catalogue", "", func(lo, hi float64, d *ratings.Dataset) userdp.Options {
			return userdp.Defaults(30, 1e-6, lo, hi).WithCatalogue(catalogue(d))
		}},
	}
	if ml := "../../../shared/data/movielens-100k/u1.base"; fileExists(ml) {
		cases = append(cases, tc{"MovieLens 100k u1.base", ml, func(lo, hi float64, _ *ratings.Dataset) userdp.Options {
			return userdp.Defaults(10, 1e-6, lo, hi).WithFactors(4, 2, 0.4)
		}})
	} else {
		t.Log("MovieLens 100k not present (../shared/data): its case is skipped")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := c.file
			if file == "" {
				file = writeCSV(t, 300, 4)
			}
			cfg := &Config{Files: []string{file}}
			lo, hi, err := Resolve(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if c.file == "" {
				// The pipeline reads the lines shuffled and split into
				// several files: the combiners then meet the users'
				// terms in another order and partition, and the exact
				// sums give Train's release all the same.
				cfg.Files = shuffleSplit(t, file, 3, 9)
				// A small read buffer: each user's ratings reach the
				// grouping in many chunks.
				cfg.ReadBuffer = 997
			}
			d, err := ratings.Load(file, cfg.Read)
			if err != nil {
				t.Fatal(err)
			}
			o := c.opts(lo, hi, d)
			o.Seeded, o.Seed = true, 5
			cfg.Options = o
			want, err := userdp.Train(context.Background(), d, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.ItemIDs) < 20 || (o.Rank > 0 && want.Rank > 0 && len(want.V) == 0) {
				t.Fatalf("degenerate release: %d items", len(want.ItemIDs))
			}
			if wb := len(want.BucketBias); o.Items == nil && wb != o.TailBuckets {
				t.Fatalf("Train released %d tail buckets, want %d", wb, o.TailBuckets)
			}
			got := runPrism(t, cfg)
			if !slices.Equal(got.ItemIDs, want.ItemIDs) {
				t.Fatalf("items: %d released, Train %d", len(got.ItemIDs), len(want.ItemIDs))
			}
			if got.Rank != want.Rank || !slices.Equal(got.Features, want.Features) || got.Mu != want.Mu || got.TailBias != want.TailBias {
				t.Errorf("rank, feature columns, centre, tail bias = %d, %v, %v, %v; Train %d, %v, %v, %v", got.Rank, got.Features, got.Mu, got.TailBias, want.Rank, want.Features, want.Mu, want.TailBias)
			}
			for _, f := range []struct {
				name      string
				got, want []float64
			}{{"counts", got.Counts, want.Counts}, {"item biases", got.ItemBias, want.ItemBias}, {"V", got.V, want.V},
				{"tail bucket biases", got.BucketBias, want.BucketBias}, {"tail bucket features", got.BucketV, want.BucketV}} {
				if !slices.Equal(f.got, f.want) {
					t.Errorf("%s differ from Train's (near to 1e-9 relative: %v)", f.name, near(f.got, f.want, 1e-9))
				}
			}
			report, err := json.Marshal(want.Report)
			if err != nil {
				t.Fatal(err)
			}
			var a, b bytes.Buffer
			json.Compact(&a, report)
			json.Compact(&b, got.Privacy)
			if a.String() != b.String() {
				t.Errorf("privacy report differs:\npipeline %s\nTrain    %s", b.String(), a.String())
			}
			t.Logf("%d items, rank %d, report: %s", len(got.ItemIDs), got.Rank, want.Report.Factors)
		})
	}
}

// shuffleSplit writes the lines of file shuffled (seeded) into parts
// files and returns their paths.
func shuffleSplit(t *testing.T, file string, parts int, seed uint64) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	for k := range lines {
		lines[k] = strings.TrimSuffix(lines[k], "\n") + "\n"
	}
	r := rand.New(rand.NewPCG(seed, seed))
	r.Shuffle(len(lines), func(a, b int) { lines[a], lines[b] = lines[b], lines[a] })
	dir := t.TempDir()
	var out []string
	for k := range parts {
		var sb strings.Builder
		for q := k; q < len(lines); q += parts {
			sb.WriteString(lines[q])
		}
		path := filepath.Join(dir, fmt.Sprintf("part-%d.csv", k))
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, path)
	}
	return out
}

// The combiners' merges are exact: any order and partition of the terms
// gives the same accumulator.
func TestCombinersOrderFree(t *testing.T) {
	p, err := userdp.NewPlan(userdp.Defaults(1, 1e-6, 1, 5).WithFactors(3, 1, 0.4))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	terms := make([]itemTerm, 200)
	for k := range terms {
		terms[k] = itemTerm{W: r.Float64(), E: 2*r.Float64() - 1, U: []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}}
	}
	gc := gramCombineFn{}
	sum := func(ts []itemTerm, parts int) gramSums {
		accs := make([]gramSums, parts) // bundles' partial sums (userStepFn)
		for _, t := range ts {
			k := r.IntN(parts)
			accs[k] = addItemTerm(p, accs[k], t)
		}
		r.Shuffle(parts, func(a, b int) { accs[a], accs[b] = accs[b], accs[a] })
		var out gramSums
		for _, a := range accs {
			out = gc.MergeAccumulators(out, a)
		}
		return out
	}
	want := sum(terms, 1)
	for range 20 {
		ts := slices.Clone(terms)
		r.Shuffle(len(ts), func(a, b int) { ts[a], ts[b] = ts[b], ts[a] })
		got := sum(ts, 1+r.IntN(7))
		if !slices.Equal(got.G, want.G) || !slices.Equal(got.H, want.H) {
			t.Fatal("a shuffled, partitioned Gram sum differs")
		}
	}
}

// catalogue is two thirds of d's items and one item nobody rated.
func catalogue(d *ratings.Dataset) []string {
	var ids []string
	for j := range d.Items.Len() {
		if j%3 != 0 {
			ids = append(ids, d.Items.ID(j))
		}
	}
	return append(ids, "not-rated-by-anyone")
}

// Every worker of one launch rebuilds the plan from the job and draws the
// same noise (so a retried bundle releases what the first execution
// did); a second launch with the same key draws other noise.
func TestWorkersShareLaunchNoise(t *testing.T) {
	c := &Config{Key: bytes.Repeat([]byte{7}, 32)}
	o := userdp.Defaults(1, 1e-6, 1, 5)
	draw := func(enc []byte) float64 {
		b := Base{Job: enc}
		p, err := b.newPlan()
		if err != nil {
			t.Fatal(err)
		}
		var s userdp.MeanSums
		s.Users.AddUnits(1000)
		_, users, err := p.ReleaseMean(s)
		if err != nil {
			t.Fatal(err)
		}
		return users
	}
	job1, err := newJob(c, o)
	if err != nil {
		t.Fatal(err)
	}
	job2, err := newJob(c, o)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := draw(job1), draw(job1); a != b {
		t.Errorf("two workers of one launch released %v and %v users", a, b)
	}
	if a, b := draw(job1), draw(job2); a == b {
		t.Errorf("two launches with one key released the same noisy number of users %v", a)
	}
}

// F1: two launches with one caller key on neighbouring data sets (one
// user removed) must not carry the same noise, or the difference of
// their releases would be the exact difference of the data: with a
// public catalogue, every item the removed user did not rate would get
// the same released count twice. The key is not in the model file.
func TestReusedKeyDoesNotCancel(t *testing.T) {
	file := writeCSV(t, 200, 6)
	all, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(all), "\n")
	gone := strings.SplitN(lines[0], ",", 2)[0] + ","
	var rest strings.Builder
	for _, l := range lines {
		if !strings.HasPrefix(l, gone) {
			rest.WriteString(l)
		}
	}
	neighbour := filepath.Join(t.TempDir(), "neighbour.csv")
	if err := os.WriteFile(neighbour, []byte(rest.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := ratings.Load(file, ratings.Options{})
	if err != nil {
		t.Fatal(err)
	}
	items := catalogue(d)
	k := sha256.Sum256([]byte{1})
	run := func(path string) *model.Model {
		cfg := &Config{Files: []string{path}}
		lo, hi, err := Resolve(cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Options = userdp.Defaults(30, 1e-6, lo, hi).WithCatalogue(items)
		cfg.Key = slices.Clone(k[:])
		m := runPrism(t, cfg)
		b, err := os.ReadFile(cfg.Save)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, k[:8]) || bytes.Contains(b, []byte(hex.EncodeToString(k[:8]))) || bytes.Contains(b, []byte(base64.StdEncoding.EncodeToString(k[:]))) {
			t.Error("the model file holds the noise key")
		}
		return m
	}
	a, b := run(file), run(neighbour)
	if len(a.Counts) != len(b.Counts) {
		t.Fatalf("%d and %d released items over one catalogue", len(a.Counts), len(b.Counts))
	}
	same := 0
	for j := range a.Counts {
		if a.Counts[j] == b.Counts[j] {
			same++
		}
	}
	if same > 0 {
		t.Errorf("%d of %d items have the same released count on neighbouring data under one key: the noise cancels", same, len(a.Counts))
	}
}

// The core module's go.mod and go.sum do not list Beam: only this module
// pulls its dependency tree.
func TestCoreModuleHasNoBeam(t *testing.T) {
	for _, f := range []string{"../../go.mod", "../../go.sum"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(bytes.ToLower(b), []byte("beam")) {
			t.Errorf("%s mentions beam", f)
		}
		if !bytes.Contains(b, []byte("gonum.org/v1/gonum")) {
			t.Errorf("%s does not look like the core module's", f)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// F3: the shuffle counters (exact figures of the data) reach the
// runner's metrics only when asked for.
func TestShuffleCountersOnlyWhenAsked(t *testing.T) {
	file := writeCSV(t, 60, 3)
	for _, on := range []bool{false, true} {
		cfg := &Config{Files: []string{file}, ShuffleCounters: on}
		lo, hi, err := Resolve(cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Options = userdp.Defaults(5, 1e-6, lo, hi)
		cfg.Options.Seeded = true
		cfg.Save = filepath.Join(t.TempDir(), "model.dpmc")
		counters, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if on && (counters["ratings by user elements"] == 0 || counters["ratings read"] == 0) {
			t.Errorf("ShuffleCounters on: counters %v lack the ratings", counters)
		}
		if !on && len(counters) != 0 {
			t.Errorf("ShuffleCounters off: counters %v reached the runner's metrics", counters)
		}
	}
}

// F3: a duplicate (user, item) pair is refused without naming the IDs
// (the error reaches the runner's logs) unless LogIDs asks for them.
func TestDuplicatePairHidesIDs(t *testing.T) {
	for _, logIDs := range []bool{false, true} {
		c := &Config{Key: bytes.Repeat([]byte{1}, 32), LogIDs: logIDs}
		enc, err := newJob(c, userdp.Defaults(1, 1e-6, 1, 5))
		if err != nil {
			t.Fatal(err)
		}
		f := &prepareFn{Base: Base{Job: enc}}
		// Two chunks (two files, or two flushes of one read's buffer).
		cs := []chunk{{Items: []string{"a", "secret-item"}, Vals: []float64{1, 3}}, {Items: []string{"secret-item"}, Vals: []float64{4}}}
		next := func(c *chunk) bool {
			if len(cs) == 0 {
				return false
			}
			*c, cs = cs[0], cs[1:]
			return true
		}
		err = f.ProcessElement("secret-user", next, func(userRec) {})
		if err == nil {
			t.Fatal("a duplicate pair was accepted")
		}
		named := strings.Contains(err.Error(), "secret-user") || strings.Contains(err.Error(), "secret-item")
		if named != logIDs || !strings.Contains(err.Error(), "twice") {
			t.Errorf("LogIDs %v: %q", logIDs, err)
		}
	}
}
