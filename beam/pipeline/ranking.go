package pipeline

import (
	"context"
	"fmt"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/dpmc/dpmc/internal/exactsum"
	"github.com/dpmc/dpmc/userdp"
)

// The ranking objective (userdp.ObjectiveRanking, --objective ranking or
// implicit pairs data): what userdp.Train's ranking release does, from
// the same building blocks (see userdp's "Building blocks"):
//
//	users (GroupByKey(user)) → a user's contributed positives (Plan.Subset)
//	→ user terms → Combine: exact number of users → ReleaseRankUsers, Decide (side input "sums")
//	→ positive count terms (AddPositive) → CombinePerKey(item) → ReleaseCount, Selected → global: the released items
//	→ NewRanking (the head, from the released counts alone)
//	→ Gram terms per head row (HeadPositives: ω_u at the columns l[a:]) → CombinePerKey(head row) → ReleaseGramRow
//	→ global: the noisy M × M Gram → RankComponents → the model file
//
// The head Gram is summed as a CombinePerKey over its M head rows, not as
// one combiner over the packed triangle: an accumulator is then one row
// of at most M exact sums (24 kB at M = 1000) instead of M(M+1)/2
// (12 MB at M = 1000), and the rows' sums and noise spread over the
// workers; only the noisy Gram (M² float64s, 8 MB at M = 1000) meets on
// one worker, for the eigendecomposition, which needs it whole.

// rankUser is one user's contributed positives: candidate item IDs in
// canonical order.
type rankUser struct {
	ID  string
	Pos []string
}

// gramTerm is one user's term of a head row of the Gram: the weight ω_u
// (in units of the Gram's grid) at the columns Cols.
type gramTerm struct {
	Cols []int32
	W    int64
}

// gramRow is a head row's exact Gram sums, indexed by column (a
// combiner's accumulator; grown to the largest column seen).
type gramRow struct {
	S []exactsum.Sum
}

// noisyRow is head row Row's released Gram entries, columns Row…M−1.
type noisyRow struct {
	Row  int32
	Vals []float64
}

// buildRanking adds the ranking objective's stages after the grouping by
// user.
func buildRanking(s beam.Scope, b Base, byUser beam.PCollection, save string, force bool) {
	one := beam.Impulse(s)
	users := beam.ParDo(s.Scope("prepare users (positives)"), &rankPrepareFn{prepareFn: prepareFn{Base: b}}, byUser)
	terms := beam.ParDo(s.Scope("user terms"), &rankUserTermFn{Base: b}, users)
	sum := beam.Combine(s.Scope("number of users"), &meanCombineFn{}, terms)
	g := beam.SideInput{Input: sum}

	countTerms := beam.ParDo(s.Scope("positive count terms"), &rankCountTermFn{Base: b}, users)
	countSums := beam.CombinePerKey(s.Scope("count sums"), &sumCombineFn{}, countTerms)
	counts := beam.ParDo(s.Scope("release counts"), &countFn{b}, countSums, g)
	rel := beam.ParDo(s.Scope("select items"), &selectFn{b}, one, g, beam.SideInput{Input: counts})

	gramTerms := beam.ParDo(s.Scope("user Gram terms"), &rankGramTermFn{Base: b}, users, g, beam.SideInput{Input: rel})
	rowSums := beam.CombinePerKey(s.Scope("Gram row sums"), &gramRowCombineFn{}, gramTerms)
	rows := beam.ParDo(s.Scope("release Gram rows"), &gramRowFn{Base: b}, rowSums, g, beam.SideInput{Input: rel})
	beam.ParDo0(s.Scope("write model"), &rankWriteFn{Base: b, Save: save, Force: force}, rel, g, beam.SideInput{Input: rows})
}

// rankPrepareFn gathers one user's ratings and emits the user's
// contributed positives (userdp's ranking prepare): the candidate items
// (the catalogue's, if any) rated ≥ Options.Positive, in canonical
// order, a Plan.Subset of them beyond MaxItemsPerUser. Users without a
// contributed positive add nothing to any release and are not emitted.
type rankPrepareFn struct {
	prepareFn
}

func (f *rankPrepareFn) ProcessElement(user string, next func(*chunk) bool, emit func(rankUser)) error {
	rs, err := f.gather(user, next)
	if err != nil {
		return err
	}
	thr := f.plan.Options().Positive
	var pos []string
	for _, r := range rs {
		if r.Value >= thr {
			pos = append(pos, r.Item)
		}
	}
	if len(pos) == 0 {
		return nil
	}
	if sub := f.plan.Subset(user, len(pos)); sub != nil {
		for q, k := range sub {
			pos[q] = pos[k] // sub ascending, k ≥ q: in place
		}
		pos = pos[:len(sub)]
	}
	emit(rankUser{ID: user, Pos: pos})
	return nil
}

// rankUserTermFn emits a user's term of the number of users.
type rankUserTermFn struct {
	Base
	plan *userdp.Plan
}

func (f *rankUserTermFn) ProcessElement(ctx context.Context, u rankUser, emit func(sums)) error {
	if f.plan == nil {
		p, err := f.newPlan()
		if err != nil {
			return err
		}
		f.plan = p
	}
	f.shuffled(ctx, "user terms", 4*16)
	emit(sums(f.plan.RankUserTerm()))
	return nil
}

// rankCountTermFn adds users' exact positive count terms per
// contributed positive over a bundle and emits the bundle's sum per item
// at its end, in canonical item order, as countTermFn does.
type rankCountTermFn struct {
	Base
	plan *userdp.Plan
	acc  map[string]*exactsum.Sum
}

func (f *rankCountTermFn) StartBundle(_ context.Context, _ func(string, exactsum.Sum)) {
	f.acc = map[string]*exactsum.Sum{}
}

func (f *rankCountTermFn) ProcessElement(ctx context.Context, u rankUser, emit func(string, exactsum.Sum)) error {
	if f.plan == nil {
		p, err := f.newPlan()
		if err != nil {
			return err
		}
		f.plan = p
	}
	var w exactsum.Sum
	f.plan.AddPositive(&w, len(u.Pos))
	addToEach(f.acc, u.Pos, w)
	return nil
}

func (f *rankCountTermFn) FinishBundle(ctx context.Context, emit func(string, exactsum.Sum)) {
	emitSums(ctx, &f.Base, f.acc, emit)
	f.acc = nil
}

// rankHead is the head of the Gram, from the release (NewRanking): each
// head item's row and the head items' IDs by row.
type rankHead struct {
	row map[string]int32
	ids []string
}

func newRankHead(p *userdp.Plan, users float64, rel *release) *rankHead {
	rk, m := p.NewRanking(rel.Counts, users)
	h := &rankHead{row: make(map[string]int32, m), ids: make([]string, m)}
	for j, r := range rk.HeadRow {
		if r >= 0 {
			h.row[rel.ItemIDs[j]] = r
			h.ids[r] = rel.ItemIDs[j]
		}
	}
	return h
}

// sideHead reads the release side input once and returns its head.
func (b *Base) sideHead(x **rankHead, p *userdp.Plan, next func(*release) bool) (*rankHead, error) {
	if *x == nil {
		var rel release
		if !next(&rel) {
			return nil, fmt.Errorf("pipeline: the release side input is empty")
		}
		*x = newRankHead(p, b.users, &rel)
	}
	return *x, nil
}

// rankGramTermFn emits a user's terms of the head Gram, one per head row
// the user's (capped) positives reach.
type rankGramTermFn struct {
	Base
	head *rankHead
	buf  []int
}

func (f *rankGramTermFn) ProcessElement(ctx context.Context, u rankUser, side func(*sums) bool, relSide func(*release) bool, emit func(int32, gramTerm)) error {
	p, _, err := f.ready(side)
	if err != nil {
		return err
	}
	h, err := f.sideHead(&f.head, p, relSide)
	if err != nil {
		return err
	}
	if len(h.ids) == 0 {
		return nil
	}
	var rows []int32
	for _, id := range u.Pos {
		if r, ok := h.row[id]; ok {
			rows = append(rows, r) // ascending: head rows follow the canonical order
		}
	}
	if len(rows) == 0 {
		return nil
	}
	kept, om := p.HeadPositives(u.ID, rows, f.buf)
	for a, r := range kept {
		f.shuffled(ctx, "Gram terms by head row", 4+8+4*len(kept[a:]))
		emit(r, gramTerm{Cols: kept[a:], W: om})
	}
	return nil
}

// gramRowCombineFn adds users' terms of a head row exactly.
type gramRowCombineFn struct{}

func (gramRowCombineFn) CreateAccumulator() gramRow { return gramRow{} }
func (gramRowCombineFn) AddInput(a gramRow, t gramTerm) gramRow {
	return gramRow{S: userdp.AddGramRow(a.S, t.Cols, t.W)}
}
func (gramRowCombineFn) MergeAccumulators(a, b gramRow) gramRow {
	if len(b.S) > len(a.S) {
		a, b = b, a
	}
	for k := range b.S {
		a.S[k].Merge(b.S[k])
	}
	return a
}
func (gramRowCombineFn) ExtractOutput(a gramRow) gramRow { return a }

// gramRowFn releases a head row of the Gram from its exact sums.
type gramRowFn struct {
	Base
	head *rankHead
}

func (f *gramRowFn) ProcessElement(ctx context.Context, r int32, row gramRow, side func(*sums) bool, relSide func(*release) bool, emit func(noisyRow)) error {
	p, _, err := f.ready(side)
	if err != nil {
		return err
	}
	h, err := f.sideHead(&f.head, p, relSide)
	if err != nil {
		return err
	}
	m := len(h.ids)
	if int(r) >= m {
		return fmt.Errorf("pipeline: Gram row %d of %d", r, m)
	}
	dst := make([]float64, m)
	if err := p.ReleaseGramRow(h.ids[r], int(r), row.S, dst); err != nil {
		return err
	}
	f.shuffled(ctx, "noisy Gram rows (side input)", 4+8*(m-int(r)))
	emit(noisyRow{Row: r, Vals: dst[r:]})
	return nil
}

// rankWriteFn assembles the noisy Gram (head rows without a term get
// their noise alone), releases its components and writes the model.
type rankWriteFn struct {
	Base
	Save  string
	Force bool
}

func (f *rankWriteFn) ProcessElement(ctx context.Context, rel release, side func(*sums) bool, rows func(*noisyRow) bool) error {
	// A fresh plan: RankComponents adds M and k to the plan's report.
	f.plan = nil
	p, mu, err := f.ready(side)
	if err != nil {
		return err
	}
	o := p.Options()
	rk, m := p.NewRanking(rel.Counts, f.users)
	if m > 0 {
		h := newRankHead(p, f.users, &rel)
		g := make([]float64, m*m)
		got := make([]bool, m)
		for _, r := range collect(rows) {
			if int(r.Row) >= m || len(r.Vals) != m-int(r.Row) {
				return fmt.Errorf("pipeline: Gram row %d of %d with %d entries", r.Row, m, len(r.Vals))
			}
			copy(g[int(r.Row)*m+int(r.Row):(int(r.Row)+1)*m], r.Vals)
			got[r.Row] = true
		}
		for r := range m {
			if !got[r] {
				if err := p.ReleaseGramRow(h.ids[r], r, nil, g[r*m:(r+1)*m]); err != nil {
					return err
				}
			}
		}
		if err := p.RankComponents(rk, g, m); err != nil {
			return err
		}
		f.progress(stageGram, 0, fmt.Sprintf("released (%d head items), components computed", m))
	} else {
		f.progress(stageGram, 0, "none: no head items")
	}
	res := &userdp.Result{
		Mu: mu, Min: o.Min, Max: o.Max,
		UserLambda: o.UserLambda, UserBiasLambda: o.UserBiasLambda, UserLambdaPerRating: o.UserLambdaPerRating,
		Report:  p.Report(),
		ItemIDs: rel.ItemIDs, ItemBias: make([]float64, len(rel.ItemIDs)), Counts: rel.Counts,
		Ranking: rk,
	}
	if err := f.saveTo(ctx, f.Save, f.Force, res); err != nil {
		return err
	}
	f.progress(stageWrite, 0, "written to "+f.Save)
	return nil
}

func init() {
	for _, t := range []any{rankUser{}, gramTerm{}, gramRow{}, noisyRow{}} {
		beam.RegisterType(reflect.TypeOf(t))
	}
	register.DoFn3x1[string, func(*chunk) bool, func(rankUser), error](&rankPrepareFn{})
	register.DoFn3x1[context.Context, rankUser, func(sums), error](&rankUserTermFn{})
	register.DoFn3x1[context.Context, rankUser, func(string, exactsum.Sum), error](&rankCountTermFn{})
	register.DoFn5x1[context.Context, rankUser, func(*sums) bool, func(*release) bool, func(int32, gramTerm), error](&rankGramTermFn{})
	register.Combiner3[gramRow, gramTerm, gramRow](&gramRowCombineFn{})
	register.DoFn6x1[context.Context, int32, gramRow, func(*sums) bool, func(*release) bool, func(noisyRow), error](&gramRowFn{})
	register.DoFn4x1[context.Context, release, func(*sums) bool, func(*noisyRow) bool, error](&rankWriteFn{})
	register.Emitter1[rankUser]()
	register.Emitter2[int32, gramTerm]()
	register.Emitter1[noisyRow]()
	register.Iter1[noisyRow]()
}
