package model

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/solver"
	"github.com/dpmc/dpmc/userdp"
)

// split loads testdata/ratings.tsv (100 synthetic users) and splits it
// 80/20 at a fixed seed.
func split(t testing.TB) (train, test *ratings.Dataset) {
	t.Helper()
	d, err := ratings.Load("testdata/ratings.tsv", ratings.Options{})
	if err != nil {
		t.Fatal(err)
	}
	train, test, err = ratings.Split(d, 0.2, rng.Seeded(3))
	if err != nil {
		t.Fatal(err)
	}
	return train, test
}

// userLevel trains a seeded user-level model (rank 4) on train.
func userLevel(t testing.TB, train *ratings.Dataset) (*userdp.Result, userdp.Options) {
	t.Helper()
	cat := make([]string, train.Items.Len())
	for j := range cat {
		cat[j] = train.Items.ID(j)
	}
	o := userdp.Defaults(5, 1e-6, train.Min, train.Max).WithCatalogue(cat).WithFactors(4, 2, 0.4)
	o.HeadNoiseRatio = 0 // 100 users: no count reaches 15 σ_G, and the tests need factors
	o.Seeded, o.Seed = true, 9
	res, err := userdp.Train(context.Background(), train, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ItemIDs) < 100 || !slices.ContainsFunc(res.V, func(x float64) bool { return x != 0 }) {
		t.Fatalf("%d items, factors all zero: the tests would not test them", len(res.ItemIDs))
	}
	return res, o
}

func saveLoad(t *testing.T, m *Model) (*Model, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.dpmc")
	if err := m.Save(path, false); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return got, path
}

// Round trip of a user-level model: every field survives bit for bit, and
// the loaded model's fold-in and predictions equal userdp's in-memory
// evaluation (FoldInAll, Users.Predict) bit for bit, for every training
// user and every test pair.
func TestRoundTripUserLevel(t *testing.T) {
	train, test := split(t)
	res, o := userLevel(t, train)
	m, err := FromUserLevel(res, o)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := saveLoad(t, m)
	if got.Kind != UserLevel || got.Rank != 6 || !slices.Equal(got.Features, res.Features) || len(res.Features) != 2 || got.Mu != res.Mu || got.Min != res.Min || got.Max != res.Max || *got.Ridges != *m.Ridges ||
		!slices.Equal(got.ItemIDs, res.ItemIDs) || !bitsEqual(got.ItemBias, res.ItemBias) || !bitsEqual(got.V, res.V) || !bitsEqual(got.Counts, res.Counts) ||
		got.UserIDs != nil || got.U != nil || !bytes.Equal(got.Settings, m.Settings) || !bytes.Equal(got.Privacy, m.Privacy) || got.Released != m.Released {
		t.Fatalf("loaded model differs from the saved one")
	}
	if !strings.Contains(got.Released, "NOT private (seeded") {
		t.Errorf("a seeded model's file says %q", got.Released)
	}
	var rep userdp.Report
	if err := json.Unmarshal(got.Privacy, &rep); err != nil || rep.TotalEpsilon != res.Report.TotalEpsilon {
		t.Errorf("privacy report: %v, total ε %v want %v", err, rep.TotalEpsilon, res.Report.TotalEpsilon)
	}
	users := res.FoldInAll(train)
	r := res.Rank
	for i := range train.Ratings.Rows() {
		items, vals := train.Ratings.Row(i)
		h := History{Items: make([]string, len(items)), Ratings: vals.CopyTo(make([]float64, vals.Len()))}
		for p, j := range items {
			h.Items[p] = train.Items.ID(int(j))
		}
		u, _, err := got.FoldIn(h)
		if err != nil {
			t.Fatal(err)
		}
		if !bitsEqual(u.Factor, users.U[i*r:(i+1)*r]) || math.Float64bits(u.Bias) != math.Float64bits(users.Bias[i]) {
			t.Fatalf("user %s: fold-in from the loaded model differs from FoldInAll", train.Users.ID(i))
		}
		titems, _ := test.Ratings.Row(i)
		for _, j := range titems {
			want := users.Predict(i, int(j))
			var p float64
			if k, ok := got.Item(test.Items.ID(int(j))); ok {
				p = got.Clip(got.Predict(u, k))
			} else {
				p = got.Clip(got.FallbackItem(u, got.TailIndex(test.Items.ID(int(j)))))
			}
			if math.Float64bits(p) != math.Float64bits(want) {
				t.Fatalf("user %d item %d: loaded model predicts %v, in-memory %v", i, j, p, want)
			}
		}
	}
}

// Under private item selection the release has a tail bias for the items
// it does not list, and (by default) tail buckets: both survive the round
// trip bit for bit, and the loaded model folds in and predicts unlisted
// items with them exactly as userdp's in-memory evaluation does.
func TestRoundTripTailBias(t *testing.T) {
	for _, buckets := range []int{0, 512, userdp.DefaultTailBuckets} {
		t.Run(fmt.Sprintf("%d buckets", buckets), func(t *testing.T) { roundTripTail(t, buckets) })
	}
}

func roundTripTail(t *testing.T, buckets int) {
	train, test := split(t)
	o := userdp.Defaults(50, 1e-6, train.Min, train.Max)
	o.Seeded, o.Seed = true, 9
	o.TailBuckets = buckets
	res, err := userdp.Train(context.Background(), train, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.TailBias == 0 || len(res.ItemIDs) == train.Items.Len() || len(res.BucketBias) != buckets {
		t.Fatalf("tail bias %v with %d of %d items released, %d buckets: nothing to test", res.TailBias, len(res.ItemIDs), train.Items.Len(), len(res.BucketBias))
	}
	m, err := FromUserLevel(res, o)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := saveLoad(t, m)
	if math.Float64bits(got.TailBias) != math.Float64bits(res.TailBias) {
		t.Fatalf("tail bias %v after the round trip, want %v", got.TailBias, res.TailBias)
	}
	if !bitsEqual(got.BucketBias, res.BucketBias) || !bitsEqual(got.BucketV, res.BucketV) || len(got.BucketV) != buckets*len(got.Features) {
		t.Fatalf("tail buckets differ after the round trip (%d and %d biases, %d and %d feature entries)", len(got.BucketBias), len(res.BucketBias), len(got.BucketV), len(res.BucketV))
	}
	users := res.FoldInAll(train)
	unlisted := 0
	for i := range train.Ratings.Rows() {
		items, vals := train.Ratings.Row(i)
		h := History{Items: make([]string, len(items)), Ratings: vals.CopyTo(make([]float64, vals.Len()))}
		for p, j := range items {
			h.Items[p] = train.Items.ID(int(j))
		}
		u, _, err := got.FoldIn(h)
		if err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(u.Bias) != math.Float64bits(users.Bias[i]) {
			t.Fatalf("user %s: fold-in bias %v, in-memory %v", train.Users.ID(i), u.Bias, users.Bias[i])
		}
		titems, _ := test.Ratings.Row(i)
		for _, j := range titems {
			p := got.Clip(got.FallbackItem(u, got.TailIndex(test.Items.ID(int(j)))))
			if k, ok := got.Item(test.Items.ID(int(j))); ok {
				p = got.Clip(got.Predict(u, k))
			} else {
				unlisted++
			}
			if want := users.Predict(i, int(j)); math.Float64bits(p) != math.Float64bits(want) {
				t.Fatalf("user %d item %d: loaded model predicts %v, in-memory %v", i, j, p, want)
			}
		}
	}
	if unlisted == 0 {
		t.Error("no test rating of an unlisted item: the tail was not exercised")
	}
}

// Round trip of a paper model: predictions of the loaded model equal the
// solver model's bit for bit.
func TestRoundTripPaper(t *testing.T) {
	train, _ := split(t)
	sm, err := solver.Train(context.Background(), train.Ratings, solver.Options{Algorithm: solver.ALS, Rank: 3, Lambda: 0.5, Iters: 3, Seeded: true, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(x *ratings.IDs) []string {
		s := make([]string, x.Len())
		for i := range s {
			s[i] = x.ID(i)
		}
		return s
	}
	m, err := FromSolver(sm, ids(train.Users), ids(train.Items), train.Min, train.Max, 3.5, map[string]any{"algo": "als"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := saveLoad(t, m)
	if got.Kind != Paper || got.Privacy != nil || string(got.Settings) != `{"algo":"als"}` || got.Mean != 3.5 || got.Fallback(0) != 3.5 || got.Fallback(-1) != 3.5 {
		t.Errorf("kind %q, privacy %s, settings %s", got.Kind, got.Privacy, got.Settings)
	}
	for i := range sm.Users {
		u, err := got.UserAt(i)
		if err != nil {
			t.Fatal(err)
		}
		if k, ok := got.UserIndex(train.Users.ID(i)); !ok || k != i {
			t.Fatalf("user %s at %d, %v", train.Users.ID(i), k, ok)
		}
		for j := range sm.Items {
			if a, b := got.Predict(u, j), sm.Predict(i, j); math.Float64bits(a) != math.Float64bits(b) {
				t.Fatalf("(%d, %d): loaded %v, solver %v", i, j, a, b)
			}
		}
	}
	if _, _, err := got.FoldIn(History{}); !errors.Is(err, ErrNoFoldIn) {
		t.Errorf("FoldIn of a paper model: %v", err)
	}
}

func bitsEqual(a, b []float64) bool {
	return len(a) == len(b) && slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// A user-level model file holds nothing per user: no user array, users 0
// in the header, and none of the training users' IDs (renamed to a
// pattern no item ID has) anywhere in the file's bytes.
func TestUserLevelFileHasNoPerUserData(t *testing.T) {
	train, _ := split(t)
	names := make([]string, train.Users.Len())
	for i := range names {
		names[i] = fmt.Sprintf("person-%d", i)
	}
	var err error
	if train.Users, err = ratings.NewIDs(names); err != nil {
		t.Fatal(err)
	}
	res, o := userLevel(t, train)
	m, err := FromUserLevel(res, o)
	if err != nil {
		t.Fatal(err)
	}
	_, path := saveLoad(t, m)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("person-")) {
		t.Error("the file holds a user ID")
	}
	h := readHeader(t, b)
	if h.Users != 0 || h.Kind != UserLevel {
		t.Errorf("header: %d users, kind %q", h.Users, h.Kind)
	}
	var names2 []string
	for _, a := range h.Arrays {
		names2 = append(names2, a.Name)
		if a.Shape[0] != len(res.ItemIDs) {
			t.Errorf("array %s has %d rows, want one per item (%d)", a.Name, a.Shape[0], len(res.ItemIDs))
		}
	}
	if !slices.Equal(names2, []string{"item_ids", "item_bias", "v", "noisy_counts"}) {
		t.Errorf("arrays %v", names2)
	}
	// A user-level model that carries users cannot be written.
	bad := &Model{Kind: m.Kind, Min: m.Min, Max: m.Max, Mu: m.Mu, Rank: m.Rank, ItemIDs: m.ItemIDs, ItemBias: m.ItemBias, V: m.V,
		Counts: m.Counts, Ridges: m.Ridges, UserIDs: []string{"x"}, U: make([]float64, m.Rank)}
	if err := bad.Write(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "no per-user data") {
		t.Errorf("writing a user-level model with users: %v", err)
	}
}

func readHeader(t *testing.T, b []byte) header {
	t.Helper()
	n := binary.LittleEndian.Uint32(b[12:])
	var h header
	if err := json.Unmarshal(b[16:16+n], &h); err != nil {
		t.Fatal(err)
	}
	return h
}

// tiny is a hand-made user-level model with 4 items of rank 1.
func tiny() *Model {
	return &Model{
		Kind: UserLevel, Min: 1, Max: 5, Mu: 3, Rank: 1,
		ItemIDs: []string{"a", "b", "c", "d"}, ItemBias: []float64{0, 0.5, 0.5, -1}, V: []float64{1, 0, 0, 2},
		Counts: []float64{10, 20, 30, 5}, Ridges: &FoldInRidges{UserLambda: 1, UserBiasLambda: 1},
	}
}

func TestWrongVersion(t *testing.T) {
	var good bytes.Buffer
	if err := tiny().Write(&good); err != nil {
		t.Fatal(err)
	}
	future := bytes.Clone(good.Bytes())
	binary.LittleEndian.PutUint32(future[8:], 4)
	headerV := bytes.Replace(good.Bytes(), []byte(`"version": 3`), []byte(`"version": 7`), 1)
	if bytes.Equal(headerV, good.Bytes()) {
		t.Fatal("no version field to change")
	}
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"v1 model JSON", []byte(`{"format":"dpmc-model-v1","result":{}}`), "format version 1"},
		{"v1 release JSON", []byte("{\n \"format\": \"dpmc-release-v1\"\n}\n"), "format version 1"},
		{"future preamble", future, "format version 4, this dpmc reads versions 2 to 3"},
		{"future header", headerV, `version 7`},
	} {
		_, err := Read(bytes.NewReader(c.b), int64(len(c.b)))
		if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrVersion saying %q", c.name, err, c.want)
		}
	}
	// Load names the file.
	path := filepath.Join(t.TempDir(), "old.json")
	os.WriteFile(path, []byte(`{"format":"dpmc-release-v1"}`), 0o644)
	if _, err := Load(path); !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), path) {
		t.Errorf("Load: %v", err)
	}
}

// Every truncation, a trailing byte and every one-bit flip anywhere in
// the file (preamble, header, padding, data, checksum) are errors
// (ErrCorrupt or, for the version bytes, ErrVersion), whether the length
// is known or the file is read as a stream; none panics.
func TestCorrupt(t *testing.T) {
	var buf bytes.Buffer
	if err := tiny().Write(&buf); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	for _, size := range []int64{int64(len(b)), -1} {
		if _, err := Read(bytes.NewReader(b), size); err != nil {
			t.Fatal(err)
		}
	}
	for n := range len(b) {
		for _, size := range []int64{int64(n), -1} {
			if _, err := Read(bytes.NewReader(b[:n]), size); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("truncated to %d of %d bytes (size %d): %v", n, len(b), size, err)
			}
		}
	}
	long := append(bytes.Clone(b), 0)
	for _, size := range []int64{int64(len(long)), -1} {
		if _, err := Read(bytes.NewReader(long), size); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "trailing") {
			t.Errorf("trailing byte (size %d): %v", size, err)
		}
	}
	flip := bytes.Clone(b)
	flip[len(flip)-7] ^= 0x10
	if _, err := Read(bytes.NewReader(flip), int64(len(flip))); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("flipped data byte: %v", err)
	}
	for p := range len(b) {
		for bit := range 8 {
			f := bytes.Clone(b)
			f[p] ^= 1 << bit
			for _, size := range []int64{int64(len(f)), -1} {
				if _, err := Read(bytes.NewReader(f), size); !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
					t.Fatalf("bit %d of byte %d of %d flipped (size %d): %v, want an error", bit, p, len(b), size, err)
				}
			}
		}
	}
}

// TestHeaderFlips saves a model as dpmc train does (trained on
// testdata/ratings.tsv) and flips every bit of its preamble, header and
// padding (issue 24: version 2 loaded one-bit changes of mu, tail_bias,
// rating_max, the fold-in ridges and the stated ε silently): every flip
// must be an error, and the checksum error must name the checksum.
func TestHeaderFlips(t *testing.T) {
	train, _ := split(t)
	res, o := userLevel(t, train)
	m, err := FromUserLevel(res, o)
	if err != nil {
		t.Fatal(err)
	}
	m.TailBias = -0.3125 // as under private item selection
	path := filepath.Join(t.TempDir(), "m.dpmc")
	if err := m.Save(path, false); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dataStart := int(pad8(int64(16 + binary.LittleEndian.Uint32(b[12:]))))
	caught := map[string]int{}
	for p := range dataStart {
		for bit := range 8 {
			f := bytes.Clone(b)
			f[p] ^= 1 << bit
			_, err := Read(bytes.NewReader(f), int64(len(f)))
			switch {
			case err == nil:
				t.Fatalf("bit %d of header byte %d (%q) flipped: loaded", bit, p, b[p])
			case strings.Contains(err.Error(), "checksum"):
				caught["checksum"]++
			default:
				caught["other"]++
			}
		}
	}
	// Most flips leave well-formed JSON (a digit, a letter of a string):
	// only the checksum catches them.
	if caught["checksum"] < dataStart {
		t.Errorf("flips caught: %v; want most by the checksum", caught)
	}
	for _, field := range []string{`"mu"`, `"tail_bias"`, `"rating_max"`, `"user_lambda"`, `"epsilon"`} {
		if !bytes.Contains(b[:dataStart], []byte(field)) {
			t.Errorf("header has no %s field: the test does not cover it", field)
		}
	}
}

// Recommend ranks by score, breaks ties by index, excludes, and FoldIn
// counts unknown items.
func TestRecommend(t *testing.T) {
	m := tiny()
	u := User{Bias: 0.25, Factor: []float64{0.5}}
	// scores: a 3+0+0.25+0.5 = 3.75, b 3.75, c 3.75, d 3−1+0.25+1 = 3.25
	got := m.Recommend(u, 3, nil)
	want := []Scored{{0, "a", 3.75}, {1, "b", 3.75}, {2, "c", 3.75}}
	if !slices.Equal(got, want) {
		t.Errorf("Recommend = %v, want %v", got, want)
	}
	got = m.Recommend(u, 10, func(j int) bool { return j == 1 })
	want = []Scored{{0, "a", 3.75}, {2, "c", 3.75}, {3, "d", 3.25}}
	if !slices.Equal(got, want) {
		t.Errorf("Recommend excluding b = %v, want %v", got, want)
	}
	if got := m.Recommend(u, 0, nil); len(got) != 0 {
		t.Errorf("k = 0: %v", got)
	}
	// Fold-in from one rating of d (5 stars) and one of an unknown item
	// (features [v; 1] = [2; 1] and [0; 1], targets 5−3+1 = 3 and 4−3 = 1,
	// ridges 1 and 1): A = I + [[4, 2], [2, 1]] + [[0, 0], [0, 1]].
	fu, unknown, err := m.FoldIn(History{Items: []string{"d", "zz"}, Ratings: []float64{5, 4}})
	if err != nil || unknown != 1 {
		t.Fatalf("FoldIn: %v, %d unknown", err, unknown)
	}
	// A = [[5, 2], [2, 3]], rhs = [2·3, 3+1] = [6, 4]: u = (18−8)/11, b = (20−12)/11.
	if math.Abs(fu.Factor[0]-10.0/11) > 1e-12 || math.Abs(fu.Bias-8.0/11) > 1e-12 {
		t.Errorf("FoldIn = %v, want u = %v, b = %v", fu, 10.0/11, 8.0/11)
	}
	if _, _, err := m.FoldIn(History{Items: []string{"a"}, Ratings: []float64{math.NaN()}}); err == nil {
		t.Error("FoldIn accepted a NaN rating")
	}
	if _, err := m.UserAt(0); !errors.Is(err, ErrNoUsers) {
		t.Errorf("UserAt of a user-level model: %v", err)
	}
}

// rebuild writes a file from a header and a data section, with the
// checksum and sizes recomputed: a well-formed file whose content the
// test chose.
func rebuild(t *testing.T, h header, data []byte) []byte {
	t.Helper()
	h.DataBytes, h.DataCRC32C = int64(len(data)), nil
	js, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	js = append(js, '\n')
	b := []byte(magic)
	b = binary.LittleEndian.AppendUint32(b, Version)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(js)))
	b = append(b, js...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	b = append(b, data...)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// A well-formed file whose content is inconsistent is ErrCorrupt: a NaN
// factor, a duplicate item ID, a user-level file with a user array.
func TestInconsistentContent(t *testing.T) {
	var buf bytes.Buffer
	if err := tiny().Write(&buf); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	h := readHeader(t, b)
	start := int(pad8(int64(16 + binary.LittleEndian.Uint32(b[12:]))))
	data := b[start : len(b)-trailerSize]
	if _, err := Read(bytes.NewReader(rebuild(t, h, data)), int64(len(rebuild(t, h, data)))); err != nil {
		t.Fatalf("rebuilt unchanged file: %v", err)
	}
	vOff := int(h.Arrays[2].Offset)
	nan := bytes.Clone(data)
	binary.LittleEndian.PutUint64(nan[vOff+8:], math.Float64bits(math.NaN()))
	dup := bytes.Clone(data)
	copy(dup, "a\na\n") // item IDs "a", "b" → "a", "a"
	withUsers := h
	withUsers.Users = 1
	unknownColumn := h
	unknownColumn.Features = []string{"genre"}
	tooManyColumns := h
	tooManyColumns.Features = []string{"popularity", "item_bias"}
	negBuckets, hugeBuckets, bucketsWithoutArrays := h, h, h
	negBuckets.Buckets, hugeBuckets.Buckets, bucketsWithoutArrays.Buckets = -1, userdp.MaxTailBuckets+1, 4
	for _, c := range []struct {
		name string
		h    header
		data []byte
		want string
	}{
		{"NaN factor", h, nan, "v[1] = NaN"},
		{"duplicate ID", h, dup, `"a" appears twice`},
		{"users in a user-level file", withUsers, data, "declares 1 users"},
		{"unknown feature column", unknownColumn, data, `feature columns ["genre"], want distinct names`},
		{"more feature columns than the rank", tooManyColumns, data, "2 feature columns, but rank 1"},
		{"negative tail buckets", negBuckets, data, "-1 tail buckets"},
		{"too many tail buckets", hugeBuckets, data, fmt.Sprintf("%d tail buckets", userdp.MaxTailBuckets+1)},
		{"tail buckets without their arrays", bucketsWithoutArrays, data, "arrays, want"},
	} {
		f := rebuild(t, c.h, c.data)
		if _, err := Read(bytes.NewReader(f), int64(len(f))); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrCorrupt saying %q", c.name, err, c.want)
		}
	}
}

// Write refuses tail buckets whose feature rows do not match the feature
// columns, and tail buckets in a paper model or a ranking model.
func TestTailBucketChecks(t *testing.T) {
	mismatch := tiny()
	mismatch.BucketBias, mismatch.BucketV = make([]float64, 4), make([]float64, 3)
	paper := paperModel([]string{"u"}, []string{"a"})
	paper.BucketBias = make([]float64, 2)
	for _, c := range []struct {
		name string
		m    *Model
		want string
	}{
		{"feature rows of the wrong length", mismatch, fmt.Sprintf("4 tail buckets with 3 feature entries for %d feature columns", len(mismatch.Features))},
		{"a paper model", paper, "a paper model has no tail buckets"},
	} {
		if err := c.m.Write(io.Discard); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// paperModel returns a small paper model with the given IDs (rank 1).
func paperModel(users, items []string) *Model {
	return &Model{
		Kind: Paper, Min: 1, Max: 5, Rank: 1,
		ItemIDs: items, ItemBias: make([]float64, len(items)), V: make([]float64, len(items)),
		UserIDs: users, U: make([]float64, len(users)),
	}
}

// The ID checks of Write: unindexed models by sorting, indexed ones
// against their index, without allocating; each bad list is refused with
// the ID named.
func TestCheckIDs(t *testing.T) {
	for _, c := range []struct {
		name         string
		users, items []string
		want         string // "" for no error
	}{
		{"fine", []string{"u1", "u2", "u3"}, []string{"a", "b"}, ""},
		{"no IDs", nil, nil, ""},
		{"duplicate user", []string{"u1", "u2", "u1"}, []string{"a", "b"}, `user ID "u1" appears twice`},
		{"duplicate item", []string{"u1"}, []string{"b", "a", "b"}, `item ID "b" appears twice`},
		{"empty user", []string{"u1", ""}, []string{"a"}, `user ID "": want a non-empty ID`},
		{"item with a line break", []string{"u1"}, []string{"a\nb"}, `item ID "a\nb": want a non-empty ID without a control character`},
		{"user with a tab", []string{"u\t1"}, []string{"a"}, `user ID "u\t1": want a non-empty ID without a control character`},
		{"item with a CR", []string{"u1"}, []string{"a\rb"}, `item ID "a\rb"`},
		{"item with a C1 control", []string{"u1"}, []string{"a\u0085"}, `item ID "a\u0085"`},
		{"item with an escape", []string{"u1"}, []string{"\x1b[31m"}, `item ID "\x1b[31m"`},
		{"printable non-ASCII", []string{"u\u00a0"}, []string{"é", "\u00bf"}, ""},
	} {
		err := paperModel(c.users, c.items).Write(io.Discard)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}

	// Indexed, then changed.
	for _, c := range []struct {
		name   string
		change func(m *Model)
		want   string
	}{
		{"unchanged", func(*Model) {}, ""},
		{"user made a duplicate", func(m *Model) { m.UserIDs[2] = "u1" }, `user ID "u1" appears twice`},
		{"item renamed", func(m *Model) { m.ItemIDs[0] = "z" }, `item ID "z" at position 0 is not in the model's index`},
		{"user added", func(m *Model) { m.UserIDs = append(m.UserIDs, "u4"); m.U = append(m.U, 0) }, "4 user IDs, but the model's index was built for 3"},
	} {
		m := paperModel([]string{"u1", "u2", "u3"}, []string{"a", "b"})
		if i, ok := m.UserIndex("u2"); !ok || i != 1 {
			t.Fatalf("%s: UserIndex(u2) = %d, %v", c.name, i, ok)
		}
		c.change(m)
		err := m.Write(io.Discard)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("indexed, %s: %v, want %q", c.name, err, c.want)
		}
	}

	// A read model is indexed by Read; checking its IDs again allocates
	// nothing.
	var buf bytes.Buffer
	if err := paperModel([]string{"u1", "u2", "u3"}, []string{"a", "b"}).Write(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if !got.indexed.Load() {
		t.Fatal("Read did not index the model")
	}
	if n := testing.AllocsPerRun(10, func() {
		if err := got.checkIDs(); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("checkIDs of an indexed model: %v allocations, want 0", n)
	}
	// An unindexed one stays unindexed: saving builds no maps.
	m := paperModel([]string{"u1", "u2", "u3"}, []string{"a", "b"})
	if err := m.Write(io.Discard); err != nil || m.indexed.Load() || m.userIdx != nil {
		t.Errorf("Write of an unindexed model: %v, indexed %v", err, m.indexed.Load())
	}
}

// A file whose user IDs repeat is corrupt, and Read says which ID.
func TestReadDuplicateUser(t *testing.T) {
	m := paperModel([]string{"u1", "u2"}, []string{"a"})
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	h := readHeader(t, b)
	data := bytes.Replace(b[int(pad8(int64(16+binary.LittleEndian.Uint32(b[12:])))):len(b)-trailerSize], []byte("u1\nu2\n"), []byte("u2\nu2\n"), 1)
	b = rebuild(t, h, data)
	if _, err := Read(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), `user ID "u2" appears twice`) {
		t.Errorf("Read: %v, want ErrCorrupt naming u2", err)
	}
}

// A cancelled save leaves nothing: no file, no temporary file.
func TestSaveContextCancelled(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := filepath.Join(dir, "m.dpmc")
	if err := tiny().SaveContext(ctx, path, false); !errors.Is(err, context.Canceled) {
		t.Fatalf("SaveContext: %v, want context.Canceled", err)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("folder after a cancelled save: %v, %v", entries, err)
	}
	if err := tiny().SaveContext(context.Background(), path, false); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Fatal(err)
	}
}

// Feature columns need a user-level model with as many columns, named
// once each among the known features: Write refuses anything else,
// saying what.
func TestCheckFeatureColumns(t *testing.T) {
	paper := paperModel([]string{"u1"}, []string{"a", "b"})
	paper.Features = []string{userdp.FeaturePopularity}
	if err := paper.Write(io.Discard); err == nil || !strings.Contains(err.Error(), "a paper model has no feature columns") {
		t.Errorf("paper model with a feature column: %v", err)
	}
	train, _ := split(t)
	res, o := userLevel(t, train)
	for _, c := range []struct {
		name     string
		rank     int
		features []string
		want     string
	}{
		{"more columns than the rank", 1, []string{"popularity", "item_bias"}, "2 feature columns, but rank 1"},
		{"unknown name", 6, []string{"popularity", "genre"}, `feature columns ["popularity" "genre"], want distinct names`},
		{"twice the same", 6, []string{"item_bias", "item_bias"}, "want distinct names"},
	} {
		m, err := FromUserLevel(res, o)
		if err != nil {
			t.Fatal(err)
		}
		m.Rank, m.V, m.Features = c.rank, make([]float64, len(m.ItemIDs)*c.rank), c.features
		if err := m.Write(io.Discard); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
