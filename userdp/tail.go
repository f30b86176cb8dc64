package userdp

import (
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/dpmc/dpmc/internal/dense"
)

// Tail buckets. Under private selection the items that miss the
// threshold cannot be named in the release (their IDs would reveal their
// raters), but the space of buckets [0, TailBuckets) is public: every
// item ID maps to a bucket by a fixed hash (TailBucket), and the bias
// release carries, beside the released items' sums and the tail's two
// coordinates, two coordinates per bucket — the weighted sum of the
// clipped mean deviation and the weight of each user's unreleased items
// that fall in it. Every bucket is released with noise, whether any
// user's item falls in it or not, so the set of occupied buckets is not
// revealed. A bucket's shrunk bias and its released weight (in the item
// counts' units) then stand for every unreleased item that hashes to it:
// its item bias and its feature columns. Items that share a bucket share
// these figures; with 2¹⁶ buckets and a few thousand items that is a few
// per cent of them.
//
// Each user's weight over the tail is split: a share TailAggregateShare
// of its square goes to the tail's two coordinates (the tail bias, the
// prior mean of every bucket), the rest to the buckets, so the bias
// release's ℓ2 sensitivity is BiasBound as without buckets (see
// Plan.UserBias).

// TailAggregateShare is the share of a user's squared tail weight that
// the tail's two aggregate coordinates get when there are tail buckets;
// the buckets get the rest. The tail bias it gives is the buckets' prior
// mean and needs little weight: it pools every unreleased rating.
const TailAggregateShare = 0.1

// DefaultTailBuckets is Defaults' number of tail buckets.
const DefaultTailBuckets = 1 << 16

// MaxTailBuckets is the largest number of tail buckets Validate accepts.
const MaxTailBuckets = 1 << 22

// TailBucket returns the tail bucket of item id among n > 0 buckets:
// FNV-1a (64-bit) of the ID's bytes modulo n. It depends on nothing but
// the ID and n, both public, so computing it costs no privacy.
func TailBucket(id string, n int) int {
	h := uint64(14695981039346656037) // FNV-1a 64: offset basis, then per byte xor and multiply by the prime
	for k := 0; k < len(id); k++ {
		h = (h ^ uint64(id[k])) * 1099511628211
	}
	return int(h % uint64(n))
}

// TailIndex returns the fold-in index (FoldIn, Score, ScoreTail) of an
// item that is not in res.ItemIDs: −2 − its tail bucket when res has tail
// buckets, else −1. The index −1 always means the tail bias and a zero
// factor row, with or without buckets.
func (res *Result) TailIndex(id string) int32 {
	if len(res.BucketBias) == 0 {
		return -1
	}
	return int32(-2 - TailBucket(id, len(res.BucketBias)))
}

// bucketOf returns the tail bucket of fold-in index j < 0, or −1 for the
// tail itself (j = −1, or a release without buckets).
func (res *Result) bucketOf(j int32) int {
	if j >= -1 || len(res.BucketBias) == 0 {
		return -1
	}
	return int(-2 - j)
}

// ScoreTail returns the unclipped prediction for a user with factor u
// (Rank entries) and bias ub and the item of fold-in index j < 0
// (TailIndex): Mu + TailBias + ub for j = −1 or without tail buckets;
// for a bucket's index Mu +
// the bucket's bias + ub + the user's feature coefficients (u's last
// len(Features) entries) times the bucket's feature columns (its learned
// factors are zero), summed in that order.
func (res *Result) ScoreTail(j int32, u []float64, ub float64) float64 {
	b := res.bucketOf(j)
	if b < 0 {
		return res.Mu + res.TailBias + ub
	}
	nb := len(res.BucketBias)
	s := res.Mu + res.BucketBias[b] + ub
	if f := len(res.Features); f > 0 && len(res.BucketV) == nb*f {
		s += dense.Dot(u[len(u)-f:], res.BucketV[b*f:(b+1)*f])
	}
	return s
}

// tailRow fills row (Rank entries) with the factor row of the item of
// fold-in index j < 0 and returns its item bias: zeros and TailBias for
// the tail (j = −1, or without tail buckets), else zero learned factors,
// the bucket's feature columns and the bucket's bias.
func (res *Result) tailRow(j int32, row []float64) float64 {
	clear(row)
	b := res.bucketOf(j)
	if b < 0 {
		return res.TailBias
	}
	nb := len(res.BucketBias)
	if f := len(res.Features); f > 0 && len(res.BucketV) == nb*f {
		copy(row[len(row)-f:], res.BucketV[b*f:(b+1)*f])
	}
	return res.BucketBias[b]
}

// Buckets returns the number of tail buckets the plan releases:
// TailBuckets under private selection with noise and a tail (rating
// objective), else 0 (the tail's two coordinates alone).
func (p *Plan) Buckets() int {
	if !p.WithTail() || p.opts.NoNoise || p.opts.Objective == ObjectiveRanking {
		return 0
	}
	return p.opts.TailBuckets
}

// ReleaseBucket releases tail bucket b from the users' exact summed
// bucket terms (UserBias's emitBucket, added with AddTail): its two noisy
// coordinates, the bucket's bias, shrunk towards the released tail bias
// tailBias, and its released weight in the item counts' units (a lone
// user's item counts 1/√n there, as in the count release). It draws from the stream of
// (tail, 0, the decimal b) alone — the tail's own stream has the empty
// ID — so any implementation releases the same buckets.
func (p *Plan) ReleaseBucket(b int, sum, weight Sum, tailBias float64) (noisyS, noisyW, bias, count float64, err error) {
	return p.releaseBucket(b, sum, weight, tailBias, nil)
}

// releaseBucket is ReleaseBucket drawing from rs's generators (nil:
// Plan.rand's).
func (p *Plan) releaseBucket(b int, sum, weight Sum, tailBias float64, rs *streams) (noisyS, noisyW, bias, count float64, err error) {
	o := &p.opts
	g := p.grids.bias
	var r *rand.Rand
	if rs == nil {
		r = p.rand(phaseTail, 0, strconv.Itoa(b))
	} else {
		r = rs.decimal(phaseTail, 0, b)
	}
	if noisyS, err = noisy(p.noise.biases, sum, g, r); err != nil {
		return 0, 0, 0, 0, err
	}
	if noisyW, err = noisy(p.noise.biases, weight, g, r); err != nil {
		return 0, 0, 0, 0, err
	}
	w := noisyW / o.BiasBound
	bias = tailBias + p.shrinkBias(noisyS-w*tailBias, w)
	bias = math.Min(math.Max(bias, -o.BiasBound), o.BiasBound)
	// A lone user's item adds √((1 − a)/(2n))·BiasBound to the weight
	// coordinate, against 1/√n to a count.
	return noisyS, noisyW, bias, w * math.Sqrt(2/(1-TailAggregateShare)), nil
}
