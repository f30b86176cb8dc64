package model

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/dpmc/dpmc/internal/atomicfile"
	"github.com/dpmc/dpmc/userdp"
)

// Format and Version name the file format Write writes. Read reads
// Version and MinVersion (version 2, whose header no checksum covers).
const (
	Format     = "dpmc-model"
	Version    = 3
	MinVersion = 2
)

// trailerSize is the length of a version-3 file's trailer: the CRC-32
// (IEEE, as zlib.crc32) of every byte before it, little-endian.
const trailerSize = 4

// magic opens every model file.
const magic = "dpmc-mdl"

// preamble is the magic, the version and the header length.
const preambleSize = 16

// Limits of what Read accepts, so that a corrupt header cannot make it
// allocate without bound.
const (
	maxHeader = 64 << 20
	maxRank   = 1 << 12
	maxRows   = 1 << 31
)

// ErrVersion is wrapped by the error Read returns for a file of another
// format version (an older dpmc's JSON model, or a newer dpmc's file).
var ErrVersion = errors.New("unsupported model format version")

// ErrCorrupt is wrapped by the error Read returns for a file that is not
// a well-formed model: truncated, trailing bytes, a bad checksum or an
// inconsistent header.
var ErrCorrupt = errors.New("corrupt model file")

// header is the JSON header of a model file; docs/model-format.md
// documents every field.
type header struct {
	Format     string          `json:"format"`
	Version    int             `json:"version"`
	Kind       Kind            `json:"kind"`
	Released   string          `json:"released"`
	Prediction string          `json:"prediction"`
	RatingMin  float64         `json:"rating_min"`
	RatingMax  float64         `json:"rating_max"`
	Mu         float64         `json:"mu"`
	Mean       float64         `json:"mean,omitempty"`
	TailBias   float64         `json:"tail_bias,omitempty"`
	Buckets    int             `json:"tail_buckets,omitempty"`
	Rank       int             `json:"rank"`
	Features   []string        `json:"feature_columns,omitempty"`
	Items      int             `json:"items"`
	Users      int             `json:"users"`
	FoldIn     *FoldInRidges   `json:"fold_in,omitempty"`
	Settings   json.RawMessage `json:"settings,omitempty"`
	Privacy    json.RawMessage `json:"privacy,omitempty"`
	Ranking    *rankingHeader  `json:"ranking,omitempty"`
	Arrays     []array         `json:"arrays"`
	DataBytes  int64           `json:"data_bytes"`
	// DataCRC32C is version 2's checksum of the data section alone;
	// version 3 has none here (its trailer covers the whole file).
	DataCRC32C *uint32 `json:"data_crc32c,omitempty"`
}

// rankingHeader is the header's "ranking" object: a ranking model's
// scalars (its arrays are rank_head, rank_v, rank_weights and
// rank_eigenvalues).
type rankingHeader struct {
	// Head is M, the number of head items, and Components K.
	Head       int `json:"head"`
	Components int `json:"components"`
	// Positive is the public positive threshold, null for implicit data
	// (every pair a positive).
	Positive *float64 `json:"positive"`
	Edge     float64  `json:"edge"`
	Fallback bool     `json:"fallback"`
	// Scoring is the scoring rule, in words.
	Scoring string `json:"scoring"`
}

// scoringRule is the ranking header's "scoring" field.
const scoringRule = "x = the user's 0/1 history over the head items (rank_head); h = weights * (rank_vᵀx); head item rank_head[r] scores 3 + atan(rank_v[r]·h)/pi, or 3 + atan(noisy_counts[j])/pi without history in the head; other items 0.5 + atan(noisy_counts[j])/pi; the user's own items are left out; higher first"

// array describes one array of the data section.
type array struct {
	Name string `json:"name"`
	// Type is "f8" (little-endian IEEE-754 float64) or "lines" (UTF-8
	// IDs, each followed by "\n").
	Type   string `json:"type"`
	Shape  []int  `json:"shape"`
	Offset int64  `json:"offset"`
	Bytes  int64  `json:"bytes"`
}

// predictionRule is the header's "prediction" field.
const predictionRule = "mu + item_bias[j] + user_bias + dot(user_factor, v[j]); user_bias and user_factor are row i of u (bias 0) in a paper model, and come from fold_in on the user's own ratings in a user model"

// section is one array in memory, for writing.
type section struct {
	a   array
	f8  []float64
	ids []string
}

// sections lists m's arrays in file order.
func (m *Model) sections() []section {
	n, r := len(m.ItemIDs), m.Rank
	s := []section{
		{a: array{Name: "item_ids", Type: "lines", Shape: []int{n}}, ids: m.ItemIDs},
		{a: array{Name: "item_bias", Type: "f8", Shape: []int{n}}, f8: m.ItemBias},
		{a: array{Name: "v", Type: "f8", Shape: []int{n, r}}, f8: m.V},
	}
	if m.Kind == UserLevel {
		s = append(s, section{a: array{Name: "noisy_counts", Type: "f8", Shape: []int{n}}, f8: m.Counts})
		if nb := len(m.BucketBias); nb > 0 {
			s = append(s,
				section{a: array{Name: "tail_bucket_bias", Type: "f8", Shape: []int{nb}}, f8: m.BucketBias},
				section{a: array{Name: "tail_bucket_features", Type: "f8", Shape: []int{nb, len(m.Features)}}, f8: m.BucketV})
		}
		if r := m.Ranking; r != nil {
			head := make([]float64, len(r.Head))
			for k, j := range r.Head {
				head[k] = float64(j)
			}
			s = append(s,
				section{a: array{Name: "rank_head", Type: "f8", Shape: []int{len(r.Head)}}, f8: head},
				section{a: array{Name: "rank_v", Type: "f8", Shape: []int{len(r.Head), r.K}}, f8: r.V},
				section{a: array{Name: "rank_weights", Type: "f8", Shape: []int{r.K}}, f8: r.Weights},
				section{a: array{Name: "rank_eigenvalues", Type: "f8", Shape: []int{r.K}}, f8: r.Eigenvalues})
		}
	} else {
		u := len(m.UserIDs)
		s = append(s,
			section{a: array{Name: "user_ids", Type: "lines", Shape: []int{u}}, ids: m.UserIDs},
			section{a: array{Name: "u", Type: "f8", Shape: []int{u, r}}, f8: m.U})
	}
	return s
}

// check reports the first inconsistency of m. In Read it also builds m's
// index of IDs (see checkIDs).
func (m *Model) check() error {
	switch m.Kind {
	case UserLevel:
		if m.Ridges == nil {
			return errors.New("a user-level model needs its fold-in ridges")
		}
		if m.UserIDs != nil || m.U != nil {
			return errors.New("a user-level model holds no per-user data")
		}
		if len(m.Counts) != len(m.ItemIDs) {
			return fmt.Errorf("%d noisy counts for %d items", len(m.Counts), len(m.ItemIDs))
		}
		for _, x := range []float64{m.Ridges.UserLambda, m.Ridges.UserLambdaPerRating, m.Ridges.UserBiasLambda} {
			if !(x >= 0) || math.IsInf(x, 0) {
				return fmt.Errorf("fold-in ridge %v, want a finite number ≥ 0", x)
			}
		}
		if nb := len(m.BucketBias); nb > userdp.MaxTailBuckets || len(m.BucketV) != nb*len(m.Features) {
			return fmt.Errorf("%d tail buckets with %d feature entries for %d feature columns, want at most %d buckets and one entry per bucket and column", nb, len(m.BucketV), len(m.Features), userdp.MaxTailBuckets)
		}
		if m.Ranking != nil {
			if len(m.BucketBias) > 0 {
				return errors.New("a ranking model has no tail buckets")
			}
			if m.Rank != 0 {
				return fmt.Errorf("a ranking model has no rating part, but rank %d", m.Rank)
			}
			if err := m.Ranking.check(len(m.ItemIDs)); err != nil {
				return err
			}
		}
	case Paper:
		if len(m.Features) > 0 {
			return errors.New("a paper model has no feature columns")
		}
		if m.Ranking != nil {
			return errors.New("a paper model has no ranking part")
		}
		if m.Ridges != nil || m.Counts != nil {
			return errors.New("a paper model has no fold-in ridges and no noisy counts")
		}
		if m.BucketBias != nil || m.BucketV != nil {
			return errors.New("a paper model has no tail buckets")
		}
		if len(m.U) != len(m.UserIDs)*m.Rank {
			return fmt.Errorf("u has %d entries, want %d users × rank %d", len(m.U), len(m.UserIDs), m.Rank)
		}
	default:
		return fmt.Errorf("kind %q, want %q or %q", m.Kind, UserLevel, Paper)
	}
	if m.Rank < 0 || m.Rank > maxRank {
		return fmt.Errorf("rank %d, want in [0, %d]", m.Rank, maxRank)
	}
	if len(m.Features) > m.Rank {
		return fmt.Errorf("%d feature columns, but rank %d", len(m.Features), m.Rank)
	}
	for k, f := range m.Features {
		if f != userdp.FeaturePopularity && f != userdp.FeatureItemBias || slices.Index(m.Features, f) != k {
			return fmt.Errorf("feature columns %q, want distinct names among %q and %q", m.Features, userdp.FeaturePopularity, userdp.FeatureItemBias)
		}
	}
	if !(m.Min < m.Max) || math.IsInf(m.Min, 0) || math.IsInf(m.Max, 0) {
		return fmt.Errorf("rating range [%v, %v], want finite MIN < MAX", m.Min, m.Max)
	}
	if math.IsNaN(m.Mu) || math.IsInf(m.Mu, 0) || math.IsNaN(m.Mean) || math.IsInf(m.Mean, 0) || math.IsNaN(m.TailBias) || math.IsInf(m.TailBias, 0) {
		return fmt.Errorf("mu = %v, mean = %v, tail bias = %v, want finite numbers", m.Mu, m.Mean, m.TailBias)
	}
	if m.Kind == Paper && m.TailBias != 0 {
		return errors.New("a paper model has no tail bias")
	}
	if m.Kind == UserLevel && m.Mean != 0 {
		return errors.New("a user-level model has no mean (its centre is mu)")
	}
	if len(m.ItemBias) != len(m.ItemIDs) || len(m.V) != len(m.ItemIDs)*m.Rank {
		return fmt.Errorf("%d item biases and %d factor entries for %d items at rank %d", len(m.ItemBias), len(m.V), len(m.ItemIDs), m.Rank)
	}
	if err := m.checkIDs(); err != nil {
		return err
	}
	for _, s := range m.sections() {
		if m.floatsChecked {
			break
		}
		if p := firstNonFinite(s.f8); p >= 0 {
			return fmt.Errorf("%s[%d] = %v, want a finite number", s.a.Name, p, s.f8[p])
		}
	}
	for _, raw := range []json.RawMessage{m.Settings, m.Privacy} {
		if raw != nil && !json.Valid(raw) {
			return errors.New("settings or privacy report is not valid JSON")
		}
	}
	return nil
}

// checkIDs checks that the item and user IDs are non-empty, free of line
// breaks and unique. It builds m's index only when Read asks for it
// (itemsChecked set): saving a model does not need one, and the maps of
// a large model's IDs cost more memory than a sort. A model indexed
// already is checked against its index, which allocates nothing.
func (m *Model) checkIDs() error {
	if err := idChars("item", m.ItemIDs); err != nil {
		return err
	}
	if err := idChars("user", m.UserIDs); err != nil {
		return err
	}
	switch {
	case m.indexed.Load():
		if err := inIndex("item", m.ItemIDs, m.itemIdx); err != nil {
			return err
		}
		return inIndex("user", m.UserIDs, m.userIdx)
	case m.itemsChecked != nil:
		// Read: its index of the items, and the users' now.
		users, err := indexIDs("user", m.UserIDs)
		if err != nil {
			return err
		}
		items := m.itemsChecked
		m.once.Do(func() { m.itemIdx, m.userIdx = items, users; m.indexed.Store(true) })
		return nil
	}
	if err := unique("item", m.ItemIDs); err != nil {
		return err
	}
	return unique("user", m.UserIDs)
}

// idChars checks that every ID is non-empty and has no control
// character (a tab or line break would break the tab-separated outputs
// of predict and recommend, and a line feed the file's ID lists).
func idChars(what string, ids []string) error {
	for _, id := range ids {
		if id == "" || hasControl(id) {
			return fmt.Errorf("%s ID %q: want a non-empty ID without a control character (tab, CR, LF, …)", what, id)
		}
	}
	return nil
}

// hasControl reports whether s holds a control character (C0, DEL or,
// in valid UTF-8, C1), as package ratings refuses in IDs.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] < 0xa0 {
			return true
		}
	}
	return false
}

// indexIDs returns the index of ids, or an error naming an ID that
// appears twice.
func indexIDs(what string, ids []string) (map[string]int, error) {
	seen := make(map[string]int, len(ids))
	for k, id := range ids {
		n := len(seen)
		seen[id] = k // one map operation: the map is memory-bound
		if len(seen) == n {
			return nil, fmt.Errorf("%s ID %q appears twice", what, id)
		}
	}
	return seen, nil
}

// unique reports an ID that appears twice in ids, by sorting their
// positions: 4 bytes an ID, against about 36 for a map (BenchmarkWritePaper).
func unique(what string, ids []string) error {
	if len(ids) > math.MaxInt32 {
		return fmt.Errorf("%d %s IDs, want at most %d", len(ids), what, math.MaxInt32)
	}
	perm := make([]int32, len(ids))
	for k := range perm {
		perm[k] = int32(k)
	}
	slices.SortFunc(perm, func(a, b int32) int { return strings.Compare(ids[a], ids[b]) })
	for k := 1; k < len(perm); k++ {
		if ids[perm[k]] == ids[perm[k-1]] {
			return fmt.Errorf("%s ID %q appears twice", what, ids[perm[k]])
		}
	}
	return nil
}

// inIndex reports an ID of ids that idx does not map to its position:
// an ID that appears twice, or one changed since idx was built.
func inIndex(what string, ids []string, idx map[string]int) error {
	if len(idx) != len(ids) {
		return fmt.Errorf("%d %s IDs, but the model's index was built for %d", len(ids), what, len(idx))
	}
	for k, id := range ids {
		if j, ok := idx[id]; !ok || j != k {
			if j, ok := idx[id]; ok && ids[j] == id {
				return fmt.Errorf("%s ID %q appears twice", what, id)
			}
			return fmt.Errorf("%s ID %q at position %d is not in the model's index: IDs changed after the model was used", what, id, k)
		}
	}
	return nil
}

// firstNonFinite returns the index of the first NaN or infinity in x, or −1.
func firstNonFinite(x []float64) int {
	for p, v := range x {
		if v-v != 0 {
			return p
		}
	}
	return -1
}

// Save writes m to path atomically (a reader never sees a half-written
// file), refusing to replace an existing file unless overwrite is set.
func (m *Model) Save(path string, overwrite bool) error {
	return m.SaveContext(context.Background(), path, overwrite)
}

// SaveContext is Save, stopped when ctx is done: a cancelled save returns
// ctx's error and leaves path as it was, with no temporary file behind.
func (m *Model) SaveContext(ctx context.Context, path string, overwrite bool) error {
	if err := m.check(); err != nil {
		return fmt.Errorf("model: save %s: %w", path, err)
	}
	if err := atomicfile.WriteContext(ctx, path, overwrite, m.Write); err != nil {
		return fmt.Errorf("model: save %s: %w", path, err)
	}
	return nil
}

// Write writes m in the dpmc-model version 3 format (docs/model-format.md):
// a 16-byte preamble, the JSON header, zero padding to a multiple of 8
// bytes, the arrays, each starting at a multiple of 8 bytes, and a 4-byte
// trailer, the CRC-32 of every byte before it (header included).
func (m *Model) Write(w io.Writer) error {
	if err := m.check(); err != nil {
		return fmt.Errorf("model: write: %w", err)
	}
	secs := m.sections()
	h := header{
		Format: Format, Version: Version, Kind: m.Kind, Released: m.Released, Prediction: predictionRule,
		RatingMin: m.Min, RatingMax: m.Max, Mu: m.Mu, Mean: m.Mean, TailBias: m.TailBias, Buckets: len(m.BucketBias), Rank: m.Rank, Features: m.Features, Items: len(m.ItemIDs), Users: len(m.UserIDs),
		FoldIn: m.Ridges, Settings: compact(m.Settings), Privacy: compact(m.Privacy),
	}
	if r := m.Ranking; r != nil {
		h.Ranking = &rankingHeader{Head: len(r.Head), Components: r.K, Edge: r.Edge, Fallback: r.Fallback, Scoring: scoringRule}
		if !math.IsInf(r.Positive, -1) {
			p := r.Positive
			h.Ranking.Positive = &p
		}
	}
	var off int64
	for i := range secs {
		s := &secs[i]
		s.a.Offset, s.a.Bytes = off, s.size()
		off += pad8(s.a.Bytes)
		h.Arrays = append(h.Arrays, s.a)
	}
	h.DataBytes = off
	js, err := json.MarshalIndent(h, "", " ")
	if err != nil {
		return fmt.Errorf("model: write: %w", err)
	}
	js = append(js, '\n')
	if len(js) > maxHeader {
		return fmt.Errorf("model: write: header of %d bytes, more than %d (settings or privacy report too large)", len(js), maxHeader)
	}
	crc := crc32.NewIEEE()
	cw := io.MultiWriter(w, crc)
	var pre [preambleSize]byte
	copy(pre[:], magic)
	binary.LittleEndian.PutUint32(pre[8:], Version)
	binary.LittleEndian.PutUint32(pre[12:], uint32(len(js)))
	if _, err := cw.Write(pre[:]); err != nil {
		return err
	}
	if _, err := cw.Write(js); err != nil {
		return err
	}
	hl := int64(preambleSize + len(js))
	if _, err := cw.Write(make([]byte, pad8(hl)-hl)); err != nil {
		return err
	}
	for i := range secs {
		n, err := writeSection(cw, &secs[i])
		if err != nil {
			return err
		}
		if n != secs[i].a.Bytes {
			return fmt.Errorf("model: write: %s: %d bytes, declared %d", secs[i].a.Name, n, secs[i].a.Bytes)
		}
		if _, err := cw.Write(make([]byte, pad8(n)-n)); err != nil {
			return err
		}
	}
	_, err = w.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	return err
}

// size returns the number of bytes writeSection writes for s.
func (s *section) size() int64 {
	if s.a.Type != "lines" {
		return 8 * int64(len(s.f8))
	}
	n := int64(len(s.ids))
	for _, id := range s.ids {
		n += int64(len(id))
	}
	return n
}

// compact returns raw without insignificant space (nil stays nil).
func compact(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

func pad8(n int64) int64 { return (n + 7) &^ 7 }

// writeSection writes one array's bytes and returns their count.
func writeSection(w io.Writer, s *section) (int64, error) {
	var n int64
	if s.a.Type == "lines" {
		bw := bufio.NewWriterSize(w, 1<<16)
		for _, id := range s.ids {
			k, _ := bw.WriteString(id)
			bw.WriteByte('\n')
			n += int64(k) + 1
		}
		return n, bw.Flush()
	}
	buf := make([]byte, 0, 1<<16)
	for p := 0; p < len(s.f8); {
		buf = buf[:0]
		for ; p < len(s.f8) && len(buf) < cap(buf); p++ {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(s.f8[p]))
		}
		if _, err := w.Write(buf); err != nil {
			return n, err
		}
		n += int64(len(buf))
	}
	return n, nil
}

// Load reads the model file at path. A regular file is checked against
// its size before anything large is allocated; a pipe, FIFO or other
// non-seekable file (/dev/stdin, <(cat m)) is read as a stream (see Read);
// a directory is an error. Errors wrap ErrVersion for a file of another
// version (e.g. an older dpmc's JSON model) and ErrCorrupt for a damaged
// one, and name the file.
func Load(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	size := int64(-1)
	switch {
	case st.IsDir():
		return nil, fmt.Errorf("model: %s is a directory, not a model file", path)
	case st.Mode().IsRegular():
		size = st.Size()
	}
	m, err := read(bufio.NewReaderSize(f, 1<<20), size)
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", path, err)
	}
	return m, nil
}

// Read reads a model of exactly size bytes from r: size is the file's
// length, which bounds every allocation before the data is read, or −1
// for an input of unknown length (a pipe), which Read reads to its end,
// its allocations growing with the bytes actually read. Errors wrap
// ErrVersion or ErrCorrupt.
func Read(r io.Reader, size int64) (*Model, error) {
	m, err := read(r, size)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return m, nil
}

func read(r io.Reader, size int64) (*Model, error) {
	var pre [preambleSize]byte
	if n, err := io.ReadFull(r, pre[:]); err != nil {
		if n > 0 && pre[0] == '{' {
			return nil, oldJSON()
		}
		if n == 0 && size < 0 {
			return nil, fmt.Errorf("%w: empty input, not a model file", ErrCorrupt)
		}
		return nil, fmt.Errorf("%w: %d bytes, shorter than the %d-byte preamble", ErrCorrupt, n, preambleSize)
	}
	if pre[0] == '{' {
		return nil, oldJSON()
	}
	if string(pre[:8]) != magic {
		return nil, fmt.Errorf("%w: not a dpmc model file (no %q magic)", ErrCorrupt, magic)
	}
	version := int(binary.LittleEndian.Uint32(pre[8:]))
	if version < MinVersion || version > Version {
		return nil, fmt.Errorf("%w: format version %d, this dpmc reads versions %d to %d (a newer dpmc wrote it?)", ErrVersion, version, MinVersion, Version)
	}
	trailer := int64(trailerSize)
	crc := crc32.NewIEEE() // version 3: every byte before the trailer
	if version == 2 {
		trailer, crc = 0, crc32.New(crc32.MakeTable(crc32.Castagnoli)) // the data section alone
	} else {
		crc.Write(pre[:])
	}
	hl := int64(binary.LittleEndian.Uint32(pre[12:]))
	if hl > maxHeader || size >= 0 && preambleSize+hl > size {
		return nil, fmt.Errorf("%w: header of %d bytes in a file of %d", ErrCorrupt, hl, size)
	}
	js, err := readBytes(r, pad8(preambleSize+hl)-preambleSize, size)
	if err != nil {
		return nil, fmt.Errorf("%w: truncated header: %v", ErrCorrupt, err)
	}
	if version > 2 {
		crc.Write(js)
	}
	var h header
	dec := json.NewDecoder(bytes.NewReader(js[:hl]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrCorrupt, err)
	}
	if h.Format != Format || h.Version != version {
		return nil, fmt.Errorf("%w: header says format %q version %d, want %q version %d", ErrVersion, h.Format, h.Version, Format, version)
	}
	if (h.DataCRC32C != nil) != (version == 2) {
		return nil, fmt.Errorf("%w: a version %d header with or without data_crc32c (version 2 has one, version 3 none)", ErrCorrupt, version)
	}
	if h.Kind != UserLevel && h.Kind != Paper {
		return nil, fmt.Errorf("%w: kind %q, want %q or %q", ErrCorrupt, h.Kind, UserLevel, Paper)
	}
	if h.Ranking != nil && (version == 2 || h.Kind != UserLevel) {
		return nil, fmt.Errorf("%w: a ranking section in a version %d %s model (only version 3 user models have one)", ErrCorrupt, version, h.Kind)
	}
	if r := h.Ranking; r != nil && (r.Head < 0 || r.Head > h.Items || r.Components < 0 || r.Components > userdp.MaxComponents) {
		return nil, fmt.Errorf("%w: ranking of %d head items and %d components for %d items", ErrCorrupt, r.Head, r.Components, h.Items)
	}
	if h.Buckets < 0 || h.Buckets > userdp.MaxTailBuckets || h.Buckets > 0 && (h.Kind != UserLevel || h.Ranking != nil || version == 2) {
		return nil, fmt.Errorf("%w: %d tail buckets in a version %d %s model (want 0 to %d, in a version-3 user-level rating model)", ErrCorrupt, h.Buckets, version, h.Kind, userdp.MaxTailBuckets)
	}
	if h.Kind == UserLevel && h.Users != 0 {
		return nil, fmt.Errorf("%w: a user-level model declares %d users (it holds no per-user arrays)", ErrCorrupt, h.Users)
	}
	if h.DataBytes < 0 || size >= 0 && pad8(preambleSize+hl)+h.DataBytes+trailer != size {
		return nil, fmt.Errorf("%w: header declares %d data bytes, the file has %d (truncated or trailing bytes)", ErrCorrupt, h.DataBytes, size-pad8(preambleSize+hl)-trailer)
	}
	if h.Rank < 0 || h.Rank > maxRank || h.Items < 0 || h.Items > maxRows || h.Users < 0 || h.Users > maxRows {
		return nil, fmt.Errorf("%w: rank %d, %d items, %d users", ErrCorrupt, h.Rank, h.Items, h.Users)
	}
	m := &Model{Kind: h.Kind, Min: h.RatingMin, Max: h.RatingMax, Mu: h.Mu, Mean: h.Mean, TailBias: h.TailBias, Rank: h.Rank, Features: h.Features, Ridges: h.FoldIn,
		Settings: compact(h.Settings), Privacy: compact(h.Privacy), Released: h.Released, version: version}
	if h.Kind == Paper {
		m.UserIDs, m.U = []string{}, []float64{}
	} else {
		m.Counts = []float64{}
	}
	if r := h.Ranking; r != nil {
		m.Ranking = &Ranking{K: r.Components, Edge: r.Edge, Fallback: r.Fallback, Positive: math.Inf(-1)}
		if r.Positive != nil {
			m.Ranking.Positive = *r.Positive
		}
	}
	// The arrays must be those of m's kind, in file order, contiguous.
	want := m.sectionsFor(h.Items, h.Users, h.Buckets, h.Ranking)
	if len(h.Arrays) != len(want) {
		return nil, fmt.Errorf("%w: %d arrays, want %d for a %s model", ErrCorrupt, len(h.Arrays), len(want), h.Kind)
	}
	var off int64
	var done chan error
	var items map[string]int
	for i, a := range h.Arrays {
		w := want[i]
		if a.Name != w.Name || a.Type != w.Type || !equalInts(a.Shape, w.Shape) || a.Offset != off || a.Bytes < 0 || off+pad8(a.Bytes) > h.DataBytes {
			if done != nil {
				<-done
			}
			return nil, fmt.Errorf("%w: array %d is %q %s %v at %d (%d bytes), want %q %s %v at %d", ErrCorrupt, i, a.Name, a.Type, a.Shape, a.Offset, a.Bytes, w.Name, w.Type, w.Shape, off)
		}
		if err := m.readSection(r, crc, a, size); err != nil {
			if done != nil {
				<-done
			}
			return nil, err
		}
		off += pad8(a.Bytes)
		if i == 0 {
			// Index the item IDs while the arrays are read.
			done = make(chan error, 1)
			go func() {
				var err error
				items, err = indexIDs("item", m.ItemIDs)
				done <- err
			}()
		}
	}
	if err := <-done; err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	m.itemsChecked, m.floatsChecked = items, true
	defer func() { m.itemsChecked, m.floatsChecked = nil, false }()
	if off != h.DataBytes {
		return nil, fmt.Errorf("%w: arrays end at %d, data at %d", ErrCorrupt, off, h.DataBytes)
	}
	got := crc.Sum32()
	if version == 2 {
		if got != *h.DataCRC32C {
			return nil, fmt.Errorf("%w: data checksum %08x, header says %08x", ErrCorrupt, got, *h.DataCRC32C)
		}
	} else {
		var t [trailerSize]byte
		if _, err := io.ReadFull(r, t[:]); err != nil {
			return nil, fmt.Errorf("%w: truncated before its %d-byte checksum: %v", ErrCorrupt, trailerSize, err)
		}
		if want := binary.LittleEndian.Uint32(t[:]); got != want {
			return nil, fmt.Errorf("%w: checksum %08x, the file says %08x (a changed byte, header or data)", ErrCorrupt, got, want)
		}
	}
	if size < 0 {
		var b [1]byte
		if n, _ := io.ReadFull(r, b[:]); n > 0 {
			return nil, fmt.Errorf("%w: trailing bytes after the end of the model", ErrCorrupt)
		}
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return m, nil
}

// readBytes reads exactly n bytes from r. With size ≥ 0 (n checked
// against it) it allocates n at once; with an input of unknown length it
// grows its buffer with the bytes read, so that a corrupt length costs no
// more memory than the input holds.
func readBytes(r io.Reader, n, size int64) ([]byte, error) {
	if size >= 0 {
		b := make([]byte, n)
		_, err := io.ReadFull(r, b)
		return b, err
	}
	var buf bytes.Buffer
	got, err := buf.ReadFrom(io.LimitReader(r, n))
	if err == nil && got < n {
		err = io.ErrUnexpectedEOF
	}
	return buf.Bytes(), err
}

func oldJSON() error {
	return fmt.Errorf("%w: a JSON model of format version 1 (dpmc-model-v1 or dpmc-release-v1) from an older dpmc; retrain with --save to write version %d", ErrVersion, Version)
}

// sectionsFor is the array list a model of m's kind with n items, u
// users and nb tail buckets (and the ranking section rk, if not nil) has.
func (m *Model) sectionsFor(n, u, nb int, rk *rankingHeader) []array {
	r := m.Rank
	a := []array{{Name: "item_ids", Type: "lines", Shape: []int{n}}, {Name: "item_bias", Type: "f8", Shape: []int{n}}, {Name: "v", Type: "f8", Shape: []int{n, r}}}
	if m.Kind == Paper {
		return append(a, array{Name: "user_ids", Type: "lines", Shape: []int{u}}, array{Name: "u", Type: "f8", Shape: []int{u, r}})
	}
	a = append(a, array{Name: "noisy_counts", Type: "f8", Shape: []int{n}})
	if nb > 0 {
		a = append(a, array{Name: "tail_bucket_bias", Type: "f8", Shape: []int{nb}}, array{Name: "tail_bucket_features", Type: "f8", Shape: []int{nb, len(m.Features)}})
	}
	if rk != nil {
		a = append(a, array{Name: "rank_head", Type: "f8", Shape: []int{rk.Head}}, array{Name: "rank_v", Type: "f8", Shape: []int{rk.Head, rk.Components}},
			array{Name: "rank_weights", Type: "f8", Shape: []int{rk.Components}}, array{Name: "rank_eigenvalues", Type: "f8", Shape: []int{rk.Components}})
	}
	return a
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// readSection reads array a (and its padding) into m, feeding every byte
// to crc; size is read's (−1: unknown, allocate as the bytes come).
func (m *Model) readSection(r io.Reader, crc hash.Hash32, a array, size int64) error {
	padded := pad8(a.Bytes)
	if a.Type == "lines" {
		buf, err := readBytes(r, padded, size)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrCorrupt, a.Name, err)
		}
		crc.Write(buf)
		text := buf[:a.Bytes]
		if a.Shape[0] == 0 && len(text) == 0 {
			m.setIDs(a.Name, []string{})
			return nil
		}
		if len(text) == 0 || text[len(text)-1] != '\n' {
			return fmt.Errorf("%w: %s does not end in a line break", ErrCorrupt, a.Name)
		}
		ids := strings.Split(string(text[:len(text)-1]), "\n")
		if len(ids) != a.Shape[0] {
			return fmt.Errorf("%w: %s has %d IDs, want %d", ErrCorrupt, a.Name, len(ids), a.Shape[0])
		}
		m.setIDs(a.Name, ids)
		return nil
	}
	n := int64(1)
	for _, d := range a.Shape {
		n *= int64(d)
	}
	if n*8 != a.Bytes {
		return fmt.Errorf("%w: %s: %d bytes for shape %v", ErrCorrupt, a.Name, a.Bytes, a.Shape)
	}
	var dst []float64
	if size >= 0 {
		dst = make([]float64, n)
		if p, err := readFloats(r, crc, dst); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrCorrupt, a.Name, err)
		} else if p >= 0 {
			return fmt.Errorf("%w: %s[%d] = %v, want a finite number", ErrCorrupt, a.Name, p, dst[p])
		}
	} else {
		// A stream: grow with the data read (a truncated stream fails
		// after allocating what it held, not what its header claims).
		const step = 1 << 16
		dst = make([]float64, 0, min(n, step))
		for p := int64(0); p < n; p += step {
			k := min(step, n-p)
			dst = slices.Grow(dst, int(k))[:p+k]
			if q, err := readFloats(r, crc, dst[p:]); err != nil {
				return fmt.Errorf("%w: %s: %v", ErrCorrupt, a.Name, err)
			} else if q >= 0 {
				return fmt.Errorf("%w: %s[%d] = %v, want a finite number", ErrCorrupt, a.Name, p+int64(q), dst[p+int64(q)])
			}
		}
	}
	buf := make([]byte, 8)
	if pad := padded - a.Bytes; pad > 0 {
		b := buf[:pad]
		if _, err := io.ReadFull(r, b); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrCorrupt, a.Name, err)
		}
		crc.Write(b)
	}
	switch a.Name {
	case "item_bias":
		m.ItemBias = dst
	case "v":
		m.V = dst
	case "noisy_counts":
		m.Counts = dst
	case "tail_bucket_bias":
		m.BucketBias = dst
	case "tail_bucket_features":
		m.BucketV = dst
	case "u":
		m.U = dst
	case "rank_head":
		m.Ranking.Head = make([]int32, len(dst))
		for k, x := range dst {
			if x != math.Trunc(x) || x < 0 || x >= math.MaxInt32 {
				return fmt.Errorf("%w: rank_head[%d] = %v, want an item index", ErrCorrupt, k, x)
			}
			m.Ranking.Head[k] = int32(x)
		}
	case "rank_v":
		m.Ranking.V = dst
	case "rank_weights":
		m.Ranking.Weights = dst
	case "rank_eigenvalues":
		m.Ranking.Eigenvalues = dst
	}
	return nil
}

func (m *Model) setIDs(name string, ids []string) {
	if name == "item_ids" {
		m.ItemIDs = ids
	} else {
		m.UserIDs = ids
	}
}
