package pipeline

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/dpmc/dpmc/internal/exactsum"
	"github.com/dpmc/dpmc/model"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/userdp"
)

// job is what every DoFn carries, gob-encoded (Options holds a NaN
// centre, which JSON cannot encode): the options, the secret noise key of
// an unseeded run with the nonce of its launch, and how to read the
// files.
type job struct {
	Opts  userdp.Options
	Key   []byte
	Nonce [32]byte
	Read  ratings.Options
	// Counters, LogIDs and Progress are Config.ShuffleCounters,
	// Config.LogIDs and Config.Progress.
	Counters, LogIDs, Progress bool
	// Launched is when Build ran (Unix nanoseconds), for the progress
	// lines' elapsed time; zero without Progress. Nothing else reads it.
	Launched int64
}

func (j *job) encode() ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(j); err != nil {
		return nil, fmt.Errorf("pipeline: encoding the job: %w", err)
	}
	return b.Bytes(), nil
}

// Base is embedded in every DoFn: the encoded job, and the plan rebuilt
// from it on the worker.
type Base struct {
	Job []byte

	job   *job
	plan  *userdp.Plan
	mu    float64
	users float64 // the released number of users
}

// decode decodes the job once.
func (b *Base) decode() (*job, error) {
	if b.job == nil {
		var j job
		if err := gob.NewDecoder(bytes.NewReader(b.Job)).Decode(&j); err != nil {
			return nil, fmt.Errorf("pipeline: decoding the job: %w", err)
		}
		b.job = &j
	}
	return b.job, nil
}

// newPlan returns the plan before the mean's release.
func (b *Base) newPlan() (*userdp.Plan, error) {
	j, err := b.decode()
	if err != nil {
		return nil, err
	}
	p, err := userdp.NewPlan(j.Opts)
	if err != nil {
		return nil, err
	}
	if len(j.Key) == 32 {
		p.SetLaunchKey([32]byte(j.Key), j.Nonce)
	}
	return p, nil
}

// ready returns the whole plan, replayed from the mean's exact sums (the
// side input: the combined sums, merged here should a runner split them)
// and the released centre. The replay draws the same noise as the mean
// stage did (seed, or secret key), so every worker holds the same plan.
func (b *Base) ready(side func(*sums) bool) (*userdp.Plan, float64, error) {
	if b.plan != nil {
		return b.plan, b.mu, nil
	}
	var total userdp.MeanSums
	var s sums
	for side(&s) {
		total.Add(userdp.MeanSums(s))
	}
	p, err := b.newPlan()
	if err != nil {
		return nil, 0, err
	}
	var mu, users float64
	if o := p.Options(); o.Objective == userdp.ObjectiveRanking {
		// The ranking objective releases the number of users alone
		// (userdp.Plan.RankUserTerm's sums); its centre is the midpoint.
		users, err = p.ReleaseRankUsers(total)
		mu = (o.Min + o.Max) / 2
	} else {
		mu, users, err = p.ReleaseMean(total)
	}
	if err != nil {
		return nil, 0, err
	}
	if err := p.Decide(users); err != nil {
		return nil, 0, err
	}
	b.plan, b.mu, b.users = p, mu, users
	return p, mu, nil
}

// shuffled counts one element of n payload bytes (IDs and numbers, not
// the coder's framing) sent through the named shuffle: the figures
// behind the per-step shuffle volume in beam/README.md. They are exact
// figures of the data and reach the runner's metrics, so they are
// counted only with Config.ShuffleCounters.
func (b *Base) shuffled(ctx context.Context, name string, n int) {
	if j, err := b.decode(); err != nil || !j.Counters {
		return
	}
	beam.NewCounter("dpmc", name+" elements").Inc(ctx, 1)
	beam.NewCounter("dpmc", name+" bytes").Inc(ctx, int64(n))
}

// counted adds n to the named counter (a figure of the data, not a
// shuffle), only with Config.ShuffleCounters, as shuffled.
func (b *Base) counted(ctx context.Context, name string, n int) {
	if j, err := b.decode(); err != nil || !j.Counters {
		return
	}
	beam.NewCounter("dpmc", name).Inc(ctx, int64(n))
}

// collect drains an iterator.
func collect[T any](next func(*T) bool) []T {
	var out []T
	var v T
	for next(&v) {
		out = append(out, v)
	}
	return out
}

// readBuffer is the number of ratings a read task buffers before it
// emits them as one chunk per user (a variable for tests of the flush).
const readBuffer = 1 << 16

// readFn reads one ratings file with the ratings package's parsers and
// emits its ratings keyed by user ID, as chunks: it buffers up to
// readBuffer ratings (≈ 2 MB), grouped by user, and emits one chunk per
// user in the buffer, in the order of the users' first rating, when it
// is full and at the end of the file. A file whose lines come user by
// user (as most exports do) thus gives about one element per user to the
// grouping by user, which on Prism costs far less memory and CPU than one
// element per rating; any other order gives more, smaller chunks, and the
// same release (the users' stages sort each user's ratings).
type readFn struct {
	Base
	// Buffer overrides readBuffer when positive (tests).
	Buffer int
}

// chunker buffers a file's ratings by user for readFn.
type chunker struct {
	max, n int
	order  []string
	by     map[string]*chunk
	emit   func(string, chunk)
	count  func(user string, c *chunk)
}

func (c *chunker) add(user, item string, v float64) {
	b := c.by[user]
	if b == nil {
		b = &chunk{}
		c.by[user] = b
		c.order = append(c.order, user)
	}
	b.Items = append(b.Items, item)
	b.Vals = append(b.Vals, v)
	if c.n++; c.n >= c.max {
		c.flush()
	}
}

func (c *chunker) flush() {
	for _, u := range c.order {
		c.count(u, c.by[u])
		c.emit(u, *c.by[u])
	}
	c.n, c.order = 0, c.order[:0]
	clear(c.by)
}

func (f *readFn) ProcessElement(ctx context.Context, path string, emit func(string, chunk)) error {
	j, err := f.decode()
	if err != nil {
		return err
	}
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return fmt.Errorf("pipeline: %s: %w", path, err)
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		return fmt.Errorf("pipeline: %s: %w", path, err)
	}
	defer r.Close()
	c := &chunker{max: readBuffer, by: map[string]*chunk{}, emit: emit, count: func(u string, c *chunk) {
		n := len(u)
		for _, it := range c.Items {
			n += len(it) + 8
		}
		f.shuffled(ctx, "ratings by user", n) // an element is a chunk
		f.counted(ctx, "ratings read", len(c.Items))
	}}
	if f.Buffer > 0 {
		c.max = f.Buffer
	}
	if j.Read.Format == ratings.FormatSweetRS {
		// The one format whose repeated (user, item) pairs are averaged
		// within a file: read it whole (ratings.Read averages them).
		d, err := ratings.Read(r, path, j.Read)
		if err != nil {
			return err
		}
		for t := range d.Ratings.All() {
			c.add(d.Users.ID(int(t.User)), d.Items.ID(int(t.Item)), t.Value)
		}
		c.flush()
		return nil
	}
	// Every other format is streamed record by record (ratings.Scan:
	// Read's parser without the matrix), so a task holds at most its
	// buffer, not its file. A value is stored as ratings.Read stores it
	// (rounded to the nearest float32, a zero as +0); a pair of
	// implicit data is 1.
	_, err = ratings.Scan(ctx, r, path, j.Read, func(rec ratings.Record) error {
		v := 1.0
		if !math.IsNaN(rec.Rating) {
			if v32 := float32(rec.Rating); v32 != 0 {
				v = float64(v32)
			} else {
				v = 0
			}
		}
		c.add(rec.User, rec.Item, v)
		return nil
	})
	if err != nil {
		return err
	}
	c.flush()
	return nil
}

// prepareFn gathers one user's ratings: only candidate items (the
// catalogue's, if any), clipped to the range, in canonical item order, and
// the user's contributed subset (userdp.Plan.Subset).
type prepareFn struct {
	Base
	plan    *userdp.Plan
	catalog map[string]bool
}

func (f *prepareFn) ProcessElement(user string, next func(*chunk) bool, emit func(userRec)) error {
	rs, err := f.gather(user, next)
	if err != nil {
		return err
	}
	o := f.plan.Options()
	u := userRec{ID: user, Items: make([]string, len(rs)), Vals: make([]float64, len(rs))}
	for q, r := range rs {
		u.Items[q], u.Vals[q] = r.Item, math.Min(math.Max(r.Value, o.Min), o.Max)
	}
	if pos := f.plan.Subset(user, len(rs)); pos != nil {
		u.Capped, u.Sub = true, make([]int32, len(pos))
		for k, q := range pos {
			u.Sub[k] = int32(q)
		}
	}
	emit(u)
	return nil
}

// gather returns one user's ratings of candidate items (the catalogue's,
// if any), as read, in the canonical order of the item IDs, and refuses
// a duplicate (user, item) pair.
func (f *prepareFn) gather(user string, next func(*chunk) bool) ([]rating, error) {
	if f.plan == nil {
		p, err := f.newPlan()
		if err != nil {
			return nil, err
		}
		f.plan = p
		if items := p.Options().Items; items != nil {
			f.catalog = make(map[string]bool, len(items))
			for _, id := range items {
				f.catalog[id] = true
			}
		}
	}
	var rs []rating
	var c chunk
	for next(&c) {
		for q, it := range c.Items {
			rs = append(rs, rating{Item: it, Value: c.Vals[q]})
		}
	}
	if f.catalog != nil {
		rs = slices.DeleteFunc(rs, func(r rating) bool { return !f.catalog[r.Item] })
	}
	slices.SortFunc(rs, func(a, b rating) int { return userdp.CompareIDs(a.Item, b.Item) })
	if f.job.Read.Format.Implicit() {
		// A repeated pair of implicit data is one positive, as
		// ratings.Read averages it (every value is 1).
		rs = slices.CompactFunc(rs, func(a, b rating) bool { return a.Item == b.Item })
	}
	for q := 1; q < len(rs); q++ {
		if rs[q].Item == rs[q-1].Item {
			// The error reaches the runner's logs: the IDs only when asked.
			if f.job.LogIDs {
				return nil, fmt.Errorf("pipeline: user %q rates item %q twice (in one file or across files)", user, rs[q].Item)
			}
			return nil, fmt.Errorf("pipeline: a user rates an item twice (in one file or across files); rerun with --log-ids to name them (the runner's logs are then not private)")
		}
	}
	return rs, nil
}

// meanTermFn emits a user's exact terms of the global mean.
type meanTermFn struct {
	Base
	plan *userdp.Plan
}

func (f *meanTermFn) ProcessElement(ctx context.Context, u userRec, emit func(sums)) error {
	if f.plan == nil {
		p, err := f.newPlan()
		if err != nil {
			return err
		}
		f.plan = p
	}
	_, cv := u.contributed()
	if len(cv) == 0 {
		return nil
	}
	f.shuffled(ctx, "mean terms", 4*16)
	emit(sums(f.plan.UserMean(cv)))
	return nil
}

// The combiners add exact sums (package exactsum through userdp): the
// runner may split, order and merge partial sums as it likes, and the
// whole sum is the same integer, so the release equals dpmc train's.

// meanCombineFn adds the mean's sums.
type meanCombineFn struct{}

func (meanCombineFn) CreateAccumulator() sums { return sums{} }
func (meanCombineFn) AddInput(a, t sums) sums { return meanCombineFn{}.MergeAccumulators(a, t) }
func (meanCombineFn) MergeAccumulators(a, b sums) sums {
	m := userdp.MeanSums(a)
	m.Add(userdp.MeanSums(b))
	return sums(m)
}
func (meanCombineFn) ExtractOutput(a sums) sums { return a }

// sumCombineFn adds exact sums (an item's count).
type sumCombineFn struct{}

func (sumCombineFn) CreateAccumulator() exactsum.Sum { return exactsum.Sum{} }
func (sumCombineFn) AddInput(a, t exactsum.Sum) exactsum.Sum {
	a.Merge(t)
	return a
}
func (sumCombineFn) MergeAccumulators(a, b exactsum.Sum) exactsum.Sum {
	a.Merge(b)
	return a
}
func (sumCombineFn) ExtractOutput(a exactsum.Sum) exactsum.Sum { return a }

// weightedCombineFn adds exact (sum, weight) pairs (an item's bias, the
// tail).
type weightedCombineFn struct{}

func (weightedCombineFn) CreateAccumulator() weighted { return weighted{} }
func (weightedCombineFn) AddInput(a, t weighted) weighted {
	return weightedCombineFn{}.MergeAccumulators(a, t)
}
func (weightedCombineFn) MergeAccumulators(a, b weighted) weighted {
	a.S.Merge(b.S)
	a.W.Merge(b.W)
	return a
}
func (weightedCombineFn) ExtractOutput(a weighted) weighted { return a }

// startCombineFn adds users' start terms into the exact packed
// second-moment matrix (userdp.Plan.AccumulateStart, MergeStart).
type startCombineFn struct {
	Base
	p *userdp.Plan
}

func (f *startCombineFn) CreateAccumulator() packed { return packed{} }
func (f *startCombineFn) AddInput(a packed, t startTerm) (packed, error) {
	if f.p == nil {
		p, err := f.newPlan()
		if err != nil {
			return a, err
		}
		f.p = p
	}
	a.M = f.p.AccumulateStart(a.M, t.Idx, t.Z)
	return a, nil
}
func (f *startCombineFn) MergeAccumulators(a, b packed) packed {
	return packed{M: userdp.MergeStart(a.M, b.M)}
}
func (f *startCombineFn) ExtractOutput(a packed) packed { return a }

// gramCombineFn merges exact partial sums of an item's Gram matrix and
// right-hand side (each a bundle's, see userStepFn) in any order.
type gramCombineFn struct{}

// addItemTerm adds one user's term t to an item's exact sums a
// (userdp.Plan.AddItemTerm), allocating them at the first term.
func addItemTerm(p *userdp.Plan, a gramSums, t itemTerm) gramSums {
	if a.G == nil {
		r := len(t.U)
		a = gramSums{G: make([]exactsum.Sum, r*r), H: make([]exactsum.Sum, r)}
	}
	p.AddItemTerm(a.G, a.H, t.W, t.E, t.U)
	return a
}

func (gramCombineFn) MergeAccumulators(a, b gramSums) gramSums {
	if a.G == nil {
		return b
	}
	for k := range b.G {
		a.G[k].Merge(b.G[k])
	}
	for k := range b.H {
		a.H[k].Merge(b.H[k])
	}
	return a
}

// countTermFn adds users' exact count terms per contributed item over
// a bundle and emits the bundle's sum per item at its end, in canonical
// item order. The sums are exact, so this partial sum is the same
// integer whatever the bundle; it spares the shuffle one element per
// rating (Beam's lifted combine caches 2000 keys a bundle: with more
// items it emits a partial sum at nearly every rating).
type countTermFn struct {
	Base
	plan *userdp.Plan
	acc  map[string]*exactsum.Sum
}

func (f *countTermFn) StartBundle(_ context.Context, _ func(string, exactsum.Sum)) {
	f.acc = map[string]*exactsum.Sum{}
}

func (f *countTermFn) ProcessElement(ctx context.Context, u userRec, emit func(string, exactsum.Sum)) error {
	if f.plan == nil {
		p, err := f.newPlan()
		if err != nil {
			return err
		}
		f.plan = p
	}
	ci, _ := u.contributed()
	if len(ci) == 0 {
		return nil
	}
	var w exactsum.Sum
	f.plan.AddCount(&w, f.plan.CountWeight(len(ci)))
	addToEach(f.acc, ci, w)
	return nil
}

// addToEach merges one user's exact term w into the bundle's sum of each
// item of ids (countTermFn, rankCountTermFn).
func addToEach(acc map[string]*exactsum.Sum, ids []string, w exactsum.Sum) {
	for _, id := range ids {
		a := acc[id]
		if a == nil {
			a = &exactsum.Sum{}
			acc[id] = a
		}
		a.Merge(w)
	}
}

func (f *countTermFn) FinishBundle(ctx context.Context, emit func(string, exactsum.Sum)) {
	emitSums(ctx, &f.Base, f.acc, emit)
	f.acc = nil
}

// emitSums emits a bundle's count sums per item, in canonical item order.
func emitSums(ctx context.Context, b *Base, acc map[string]*exactsum.Sum, emit func(string, exactsum.Sum)) {
	for _, id := range slices.SortedFunc(maps.Keys(acc), userdp.CompareIDs) {
		b.shuffled(ctx, "count terms by item", len(id)+16)
		emit(id, *acc[id])
	}
}

// countFn releases an item's count from its exact sum and keeps the item
// if it is selected.
type countFn struct{ Base }

func (f *countFn) ProcessElement(item string, sum exactsum.Sum, side func(*sums) bool, emit func(itemValue)) error {
	p, _, err := f.ready(side)
	if err != nil {
		return err
	}
	c, err := p.ReleaseCount(item, sum)
	if err != nil {
		return err
	}
	if p.Selected(c, true) {
		emit(itemValue{Item: item, V: c})
	}
	return nil
}

// selectFn gathers the selected items in canonical order (and, with a
// catalogue, releases the counts of catalogue items nobody rated).
type selectFn struct{ Base }

func (f *selectFn) ProcessElement(_ []byte, side func(*sums) bool, next func(*itemValue) bool, emit func(release)) error {
	p, _, err := f.ready(side)
	if err != nil {
		return err
	}
	cs := collect(next)
	if items := p.Options().Items; items != nil {
		seen := make(map[string]bool, len(cs))
		for _, c := range cs {
			seen[c.Item] = true
		}
		for _, id := range items {
			if !seen[id] {
				c, err := p.ReleaseCount(id, exactsum.Sum{})
				if err != nil {
					return err
				}
				cs = append(cs, itemValue{Item: id, V: c})
			}
		}
	}
	slices.SortFunc(cs, func(a, b itemValue) int { return userdp.CompareIDs(a.Item, b.Item) })
	var rel release
	for _, c := range cs {
		rel.ItemIDs = append(rel.ItemIDs, c.Item)
		rel.Counts = append(rel.Counts, c.V)
	}
	f.progress(stageCounts, 0, fmt.Sprintf("released, %d %s selected", len(rel.ItemIDs), plural(len(rel.ItemIDs), "item", "items")))
	emit(rel)
	return nil
}

// relIndex maps a release's item IDs to their indices; userState caches
// it with the head items and weights of the factor stages.
type relIndex struct {
	rel   *release
	index map[string]int32
	head  []bool
	shead []bool // the head items the PCA start covers (Plan.StartHead)
}

func newRelIndex(rel *release, p *userdp.Plan) *relIndex {
	x := &relIndex{rel: rel, index: make(map[string]int32, len(rel.ItemIDs))}
	for j, id := range rel.ItemIDs {
		x.index[id] = int32(j)
	}
	if p.Options().Rank > 0 {
		x.head = p.Head(rel.Counts)
		x.shead = p.StartHead(rel.Counts, x.head)
	}
	return x
}

// sideRelease reads the release side input once.
func sideRelease(x **relIndex, p *userdp.Plan, next func(*release) bool) (*relIndex, error) {
	if *x == nil {
		var rel release
		if !next(&rel) {
			return nil, fmt.Errorf("pipeline: the release side input is empty")
		}
		*x = newRelIndex(&rel, p)
	}
	return *x, nil
}

// split maps a user's contributed ratings to released indices; n is the
// number of contributed ratings.
func (x *relIndex) split(u *userRec) (kc []int32, kv, tail []float64, n int) {
	kc, kv, tail, _, n = x.splitBuckets(u, 0)
	return kc, kv, tail, n
}

// splitBuckets is split, also giving with nb > 0 tail buckets each
// unreleased item's tail bucket (userdp.TailBucket among nb), in the
// order of tail.
func (x *relIndex) splitBuckets(u *userRec, nb int) (kc []int32, kv, tail []float64, tailBuckets []int32, n int) {
	ci, cv := u.contributed()
	kc, kv, tail = userdp.SplitReleased(labels(len(ci)), cv, func(q int32) int32 {
		if j, ok := x.index[ci[q]]; ok {
			return j
		}
		if nb > 0 {
			tailBuckets = append(tailBuckets, int32(userdp.TailBucket(ci[q], nb)))
		}
		return -1
	})
	return kc, kv, tail, tailBuckets, len(ci)
}

// own maps all of a user's ratings to released indices (−1 for others).
func (x *relIndex) own(u *userRec) []int32 {
	out := make([]int32, len(u.Items))
	for q, id := range u.Items {
		out[q] = -1
		if j, ok := x.index[id]; ok {
			out[q] = j
		}
	}
	return out
}

func labels(n int) []int32 {
	l := make([]int32, n)
	for q := range l {
		l[q] = int32(q)
	}
	return l
}

// userBiasFn adds users' bias terms per released item, their tail terms
// and their tail buckets' terms over a bundle, and emits the bundle's
// exact sums (per item, in canonical order, the tail, and per bucket in
// bucket order) at its end, as countTermFn does.
type userBiasFn struct {
	Base
	rel *relIndex

	acc       []weighted // by released index
	seen      []bool
	tail      weighted
	tailTerms bool
	buckets   map[int32]weighted
}

func (f *userBiasFn) StartBundle(_ context.Context, _ func(*sums) bool, _ func(*release) bool, _ func(string, weighted), _ func(weighted), _ func(int, weighted)) {
	f.acc, f.seen, f.tail, f.tailTerms, f.buckets = nil, nil, weighted{}, false, nil
}

func (f *userBiasFn) ProcessElement(ctx context.Context, u userRec, side func(*sums) bool, relSide func(*release) bool, emitItem func(string, weighted), emitTail func(weighted), emitBucket func(int, weighted)) error {
	p, mu, err := f.ready(side)
	if err != nil {
		return err
	}
	x, err := sideRelease(&f.rel, p, relSide)
	if err != nil {
		return err
	}
	if f.acc == nil {
		f.acc, f.seen = make([]weighted, len(x.rel.ItemIDs)), make([]bool, len(x.rel.ItemIDs))
	}
	kc, kv, tail, tb, nc := x.splitBuckets(&u, p.Buckets())
	if !p.WithTail() {
		tail = nil
	}
	if len(kc) == 0 && len(tail) == 0 {
		return nil
	}
	if len(tb) > 0 && f.buckets == nil {
		f.buckets = map[int32]weighted{}
	}
	beta := p.UserOffset(u.Vals, mu)
	ts, tw, ok := p.UserBias(mu, beta, nc, kc, kv, tail, tb, func(j int32, term, weight float64) {
		var w weighted
		p.AddBias(&w.S, &w.W, term, weight)
		f.acc[j] = weightedCombineFn{}.MergeAccumulators(f.acc[j], w)
		f.seen[j] = true
	}, func(b int32, term, weight float64) {
		var w weighted
		p.AddTail(&w.S, &w.W, term, weight)
		f.buckets[b] = weightedCombineFn{}.MergeAccumulators(f.buckets[b], w)
	})
	if ok {
		var w weighted
		p.AddTail(&w.S, &w.W, ts, tw)
		f.tail = weightedCombineFn{}.MergeAccumulators(f.tail, w)
		f.tailTerms = true
	}
	return nil
}

func (f *userBiasFn) FinishBundle(ctx context.Context, _ func(*sums) bool, _ func(*release) bool, emitItem func(string, weighted), emitTail func(weighted), emitBucket func(int, weighted)) {
	for j, ok := range f.seen {
		if ok {
			f.shuffled(ctx, "bias terms by item", len(f.rel.rel.ItemIDs[j])+32)
			emitItem(f.rel.rel.ItemIDs[j], f.acc[j])
		}
	}
	if f.tailTerms {
		f.shuffled(ctx, "tail terms", 32)
		emitTail(f.tail)
	}
	for _, b := range slices.Sorted(maps.Keys(f.buckets)) {
		f.shuffled(ctx, "tail bucket terms", 40)
		emitBucket(int(b), f.buckets[b])
	}
	f.acc, f.seen, f.buckets = nil, nil, nil
}

// biasFn releases an item's bias from its exact sums.
type biasFn struct {
	Base
	rel *relIndex
}

func (f *biasFn) ProcessElement(item string, sw weighted, side func(*sums) bool, relSide func(*release) bool, emit func(itemValue)) error {
	p, _, err := f.ready(side)
	if err != nil {
		return err
	}
	x, err := sideRelease(&f.rel, p, relSide)
	if err != nil {
		return err
	}
	ns, b, err := p.ReleaseBias(item, sw.S, sw.W, x.rel.Counts[x.index[item]])
	if err != nil {
		return err
	}
	emit(itemValue{Item: item, Sum: ns, V: b})
	return nil
}

// assembleFn puts the released biases (and, for items without a
// contributed rating, their noise alone) and the tail into the release.
type assembleFn struct{ Base }

func (f *assembleFn) ProcessElement(rel release, side func(*sums) bool, biases func(*itemValue) bool, tails func(*weighted) bool, emit func(release)) error {
	p, _, err := f.ready(side)
	if err != nil {
		return err
	}
	got := map[string]itemValue{}
	for _, b := range collect(biases) {
		got[b.Item] = b
	}
	n := len(rel.ItemIDs)
	rel.ItemBias = make([]float64, n)
	rel.BiasSums = make([]float64, n)
	for j, id := range rel.ItemIDs {
		b, ok := got[id]
		if !ok {
			if b.Sum, b.V, err = p.ReleaseBias(id, exactsum.Sum{}, exactsum.Sum{}, rel.Counts[j]); err != nil {
				return err
			}
		}
		rel.BiasSums[j], rel.ItemBias[j] = b.Sum, b.V
	}
	p.FitBiasTrend(rel.BiasSums, rel.Counts, rel.ItemBias) // as userdp.Train does
	if p.WithTail() {
		var tw weighted // the combined tail (merged, should a runner split it)
		for _, t := range collect(tails) {
			tw = weightedCombineFn{}.MergeAccumulators(tw, t)
		}
		ns, nw, tb, err := p.ReleaseTail(tw.S, tw.W)
		if err != nil {
			return err
		}
		rel.BiasSums = append(rel.BiasSums, ns, nw)
		rel.TailBias = tb
	}
	if r := p.Options().Rank; r > 0 {
		rel.V = make([]float64, n*r)
	}
	f.progress(stageBiases, 0, "released")
	emit(rel)
	return nil
}

// bucketsFn releases every tail bucket (with or without terms) from the
// buckets' exact sums, given the release with its tail bias; nothing
// without tail buckets.
type bucketsFn struct{ Base }

func (f *bucketsFn) ProcessElement(ctx context.Context, rel release, side func(*sums) bool, buckets func(*int, *weighted) bool, emit func(bucketRelease)) error {
	p, _, err := f.ready(side)
	if err != nil {
		return err
	}
	nb := p.Buckets()
	if nb == 0 {
		return nil
	}
	bs := make([]weighted, nb)
	var b int
	var w weighted
	for buckets(&b, &w) {
		if b < 0 || b >= nb {
			return fmt.Errorf("pipeline: tail bucket %d of %d", b, nb)
		}
		bs[b] = weightedCombineFn{}.MergeAccumulators(bs[b], w) // merged, should a runner split it
	}
	out := bucketRelease{Bias: make([]float64, nb), Counts: make([]float64, nb)}
	for k := range nb {
		if _, _, out.Bias[k], out.Counts[k], err = p.ReleaseBucket(k, bs[k].S, bs[k].W, rel.TailBias); err != nil {
			return err
		}
	}
	f.shuffled(ctx, "tail buckets (side input of the write)", 16*nb)
	emit(out)
	return nil
}

// startTermFn emits a user's weighted residual vector over the head items
// (PCA start only).
type startTermFn struct {
	Base
	rel *relIndex
	pos []int32
}

func (f *startTermFn) ProcessElement(ctx context.Context, u userRec, side func(*sums) bool, relSide func(*release) bool, emit func(startTerm)) error {
	p, mu, err := f.ready(side)
	if err != nil {
		return err
	}
	if p.Options().Rank == 0 || !p.PCAStart() {
		return nil
	}
	x, err := sideRelease(&f.rel, p, relSide)
	if err != nil {
		return err
	}
	if f.pos == nil {
		_, f.pos = userdp.StartPositions(x.shead)
	}
	kc, kv, _, _ := x.split(&u)
	w := p.FactorWeights(kc, x.rel.Counts, x.shead)
	beta := p.UserOffset(u.Vals, mu)
	idx, z := p.StartTerms(mu, beta, x.rel.ItemBias, f.pos, kc, kv, w, nil, nil)
	if len(idx) > 0 {
		f.shuffled(ctx, "start terms", 12*len(idx))
		emit(startTerm{Idx: idx, Z: z})
	}
	return nil
}

// startFn releases the start: random, or from the users' exact
// second-moment matrix (combined by startCombineFn).
type startFn struct{ Base }

func (f *startFn) ProcessElement(rel release, side func(*sums) bool, next func(*packed) bool, emit func(release)) error {
	p, _, err := f.ready(side)
	if err != nil {
		return err
	}
	if p.Options().Rank == 0 {
		f.progress(stageStart, 0, "none: the plan releases no factors")
		emit(rel)
		return nil
	}
	head := p.Head(rel.Counts)
	if !p.PCAStart() {
		p.RandomStart(rel.ItemIDs, head, rel.V)
		f.progress(stageStart, 0, "released (random)")
		emit(rel)
		return nil
	}
	shead := p.StartHead(rel.Counts, head)
	cand, _ := userdp.StartPositions(shead)
	h := len(cand)
	if h > 0 {
		var m []exactsum.Sum
		for _, t := range collect(next) {
			m = userdp.MergeStart(m, t.M)
		}
		if err := p.ReleaseStart(rel.ItemIDs, shead, cand, m, rel.V); err != nil {
			return err
		}
	}
	f.progress(stageStart, 0, "released (PCA)")
	emit(rel)
	return nil
}

// userStepFn is a user's part of ALS step Step: the user's own fit from
// the release, then one term per contributed head item, added to the
// bundle's exact sums of that item's Gram matrix and right-hand side;
// at the bundle's end it emits one partial sum per item, in canonical
// order (as countTermFn does: the sums are exact, so the partition does
// not matter, and the shuffle carries at most one element per head item
// and bundle instead of one per rating).
type userStepFn struct {
	Base
	Step int

	rel    *relIndex
	res    *userdp.Result
	solver *userdp.Solver
	acc    []gramSums // by released index
}

func (f *userStepFn) StartBundle(_ context.Context, _ func(*sums) bool, _ func(*release) bool, _ func(string, gramSums)) {
	f.acc = nil
}

func (f *userStepFn) ProcessElement(ctx context.Context, u userRec, side func(*sums) bool, relSide func(*release) bool, emit func(string, gramSums)) error {
	p, mu, err := f.ready(side)
	if err != nil {
		return err
	}
	o := p.Options()
	if o.Rank == 0 {
		return nil
	}
	x, err := sideRelease(&f.rel, p, relSide)
	if err != nil {
		return err
	}
	if f.res == nil {
		f.res = fitModel(x.rel, mu, o)
		f.solver = p.NewSolver()
	}
	if f.acc == nil {
		f.acc = make([]gramSums, len(x.rel.ItemIDs))
	}
	uf := make([]float64, o.Rank)
	var ub float64
	f.solver.FoldIn(f.res, x.rel.V, x.own(&u), u.Vals, uf, &ub)
	kc, kv, _, _ := x.split(&u)
	w := p.FactorWeights(kc, x.rel.Counts, x.head)
	uc := make([]float64, o.Rank)
	for q, j := range kc {
		if w[q] == 0 {
			continue
		}
		clear(uc)
		e := p.ItemTerm(uf, uc, kv[q], mu, x.rel.ItemBias[j], ub)
		f.acc[j] = addItemTerm(p, f.acc[j], itemTerm{W: w[q], E: e, U: uc})
	}
	return nil
}

func (f *userStepFn) FinishBundle(ctx context.Context, _ func(*sums) bool, _ func(*release) bool, emit func(string, gramSums)) {
	for j, a := range f.acc {
		if a.G == nil {
			continue
		}
		id := f.rel.rel.ItemIDs[j]
		f.shuffled(ctx, fmt.Sprintf("ALS step %d terms by item", f.Step+1), len(id)+16*(len(a.G)+len(a.H)))
		emit(id, a)
	}
	f.acc = nil
}

// releaseBytes is the payload size of a release.
func releaseBytes(rel *release) int {
	n := 8 * (len(rel.Counts) + len(rel.ItemBias) + len(rel.BiasSums) + len(rel.V) + 1)
	for _, id := range rel.ItemIDs {
		n += len(id)
	}
	return n
}

// fitModel is the part of a Result a user's fit reads.
func fitModel(rel *release, mu float64, o userdp.Options) *userdp.Result {
	return &userdp.Result{
		Rank: o.Rank, Mu: mu, ItemIDs: rel.ItemIDs, ItemBias: rel.ItemBias, V: rel.V, Counts: rel.Counts,
		TailBias: rel.TailBias, Min: o.Min, Max: o.Max,
		UserLambda: o.UserLambda, UserBiasLambda: o.UserBiasLambda, UserLambdaPerRating: o.UserLambdaPerRating,
	}
}

// itemStepFn releases an item's factor row at step Step from its exact
// sums (combined by gramCombineFn).
type itemStepFn struct {
	Base
	Step int

	rel    *relIndex
	solver *userdp.Solver
}

func (f *itemStepFn) ProcessElement(item string, gs gramSums, side func(*sums) bool, relSide func(*release) bool, emit func(itemRow)) error {
	p, _, err := f.ready(side)
	if err != nil {
		return err
	}
	x, err := sideRelease(&f.rel, p, relSide)
	if err != nil {
		return err
	}
	if f.solver == nil {
		f.solver = p.NewSolver()
	}
	r := p.Options().Rank
	if gs.G == nil {
		gs = gramSums{G: make([]exactsum.Sum, r*r), H: make([]exactsum.Sum, r)}
	}
	row := make([]float64, r)
	if err := p.ReleaseItem(f.solver, f.Step, item, x.rel.Counts[x.index[item]], gs.G, gs.H, row); err != nil {
		return err
	}
	emit(itemRow{Item: item, Row: row})
	return nil
}

// stepFn puts step Step's rows into V (head items without a term get
// their noise alone) and normalizes it.
type stepFn struct {
	Base
	Step int
}

func (f *stepFn) ProcessElement(ctx context.Context, rel release, side func(*sums) bool, rows func(*itemRow) bool, emit func(release)) error {
	p, _, err := f.ready(side)
	if err != nil {
		return err
	}
	r := p.Options().Rank
	if r == 0 {
		f.progress(stageStep, f.Step, "none: the plan releases no factors")
		emit(rel)
		return nil
	}
	got := map[string][]float64{}
	for _, row := range collect(rows) {
		got[row.Item] = row.Row
	}
	head := p.Head(rel.Counts)
	v := slices.Clone(rel.V)
	var s *userdp.Solver
	for j, id := range rel.ItemIDs {
		if !head[j] {
			continue
		}
		if row, ok := got[id]; ok {
			copy(v[j*r:(j+1)*r], row)
			continue
		}
		if s == nil {
			s = p.NewSolver()
		}
		if err := p.ReleaseItem(s, f.Step, id, rel.Counts[j], make([]exactsum.Sum, r*r), make([]exactsum.Sum, r), v[j*r:(j+1)*r]); err != nil {
			return err
		}
	}
	userdp.NormalizeRows(v, r, head)
	rel.V = v
	f.shuffled(ctx, "release broadcast (side input, per step)", releaseBytes(&rel))
	f.progress(stageStep, f.Step, "V released")
	emit(rel)
	return nil
}

// writeFn writes the release as a dpmc model file, with the privacy
// report, to Save (a local path, written atomically, or any path Beam's
// file systems know, such as gs://…).
type writeFn struct {
	Base
	Save  string
	Force bool
}

func (f *writeFn) ProcessElement(ctx context.Context, rel release, side func(*sums) bool, buckets func(*bucketRelease) bool) error {
	p, mu, err := f.ready(side)
	if err != nil {
		return err
	}
	o := p.Options()
	res := fitModel(&rel, mu, o)
	res.Report = p.Report()
	var tb bucketRelease
	if buckets(&tb) {
		res.BucketBias, res.BucketCounts = tb.Bias, tb.Counts // after the steps, as userdp.Train does
	}
	p.AppendFeatures(res) // after the steps, as userdp.Train does
	if err := f.saveTo(ctx, f.Save, f.Force, res); err != nil {
		return err
	}
	f.progress(stageWrite, 0, "written to "+f.Save)
	return nil
}

// saveTo writes res as a dpmc model file, with its privacy report, to
// path (a local path, written atomically, or any path Beam's file
// systems know, such as gs://…).
func (b *Base) saveTo(ctx context.Context, path string, force bool, res *userdp.Result) error {
	j, err := b.decode()
	if err != nil {
		return err
	}
	m, err := model.FromUserLevel(res, j.Opts)
	if err != nil {
		return fmt.Errorf("pipeline: --save: %w", err)
	}
	if !strings.Contains(path, "://") {
		return m.Save(path, force)
	}
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return fmt.Errorf("pipeline: --save: %w", err)
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, path)
	if err != nil {
		return fmt.Errorf("pipeline: --save: %w", err)
	}
	if err := m.Write(w); err != nil {
		w.Close()
		return fmt.Errorf("pipeline: --save: %w", err)
	}
	return w.Close()
}

func init() {
	// Generic registration: the SDK calls the DoFns, emitters and
	// iterators without reflection.
	register.DoFn3x1[context.Context, string, func(string, chunk), error](&readFn{})
	register.DoFn3x1[string, func(*chunk) bool, func(userRec), error](&prepareFn{})
	register.DoFn3x1[context.Context, userRec, func(sums), error](&meanTermFn{})
	register.Combiner1[sums](&meanCombineFn{})
	register.Combiner1[exactsum.Sum](&sumCombineFn{})
	register.Combiner1[weighted](&weightedCombineFn{})
	register.Combiner3[packed, startTerm, packed](&startCombineFn{})
	register.Combiner1[gramSums](&gramCombineFn{})
	register.DoFn3x1[context.Context, userRec, func(string, exactsum.Sum), error](&countTermFn{})
	register.DoFn4x1[string, exactsum.Sum, func(*sums) bool, func(itemValue), error](&countFn{})
	register.DoFn4x1[[]byte, func(*sums) bool, func(*itemValue) bool, func(release), error](&selectFn{})
	register.DoFn7x1[context.Context, userRec, func(*sums) bool, func(*release) bool, func(string, weighted), func(weighted), func(int, weighted), error](&userBiasFn{})
	register.DoFn5x1[string, weighted, func(*sums) bool, func(*release) bool, func(itemValue), error](&biasFn{})
	register.DoFn5x1[release, func(*sums) bool, func(*itemValue) bool, func(*weighted) bool, func(release), error](&assembleFn{})
	register.DoFn5x1[context.Context, release, func(*sums) bool, func(*int, *weighted) bool, func(bucketRelease), error](&bucketsFn{})
	register.DoFn5x1[context.Context, userRec, func(*sums) bool, func(*release) bool, func(startTerm), error](&startTermFn{})
	register.DoFn4x1[release, func(*sums) bool, func(*packed) bool, func(release), error](&startFn{})
	register.DoFn5x1[context.Context, userRec, func(*sums) bool, func(*release) bool, func(string, gramSums), error](&userStepFn{})
	register.DoFn5x1[string, gramSums, func(*sums) bool, func(*release) bool, func(itemRow), error](&itemStepFn{})
	register.DoFn5x1[context.Context, release, func(*sums) bool, func(*itemRow) bool, func(release), error](&stepFn{})
	register.DoFn4x1[context.Context, release, func(*sums) bool, func(*bucketRelease) bool, error](&writeFn{})

	register.Emitter2[string, chunk]()
	register.Emitter2[string, weighted]()
	register.Emitter2[string, exactsum.Sum]()
	register.Emitter2[string, gramSums]()
	register.Emitter1[userRec]()
	register.Emitter1[sums]()
	register.Emitter1[weighted]()
	register.Emitter1[itemValue]()
	register.Emitter1[release]()
	register.Emitter1[startTerm]()
	register.Emitter1[itemRow]()
	register.Emitter2[int, weighted]()
	register.Emitter1[bucketRelease]()

	register.Iter1[chunk]()
	register.Iter1[weighted]()
	register.Iter1[sums]()
	register.Iter1[itemValue]()
	register.Iter1[release]()
	register.Iter1[packed]()
	register.Iter1[itemRow]()
	register.Iter2[int, weighted]()
	register.Iter1[bucketRelease]()
}
