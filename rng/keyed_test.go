package rng

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	mrand "math/rand/v2"
	"reflect"
	"sync"
	"testing"
)

// words returns the first n words of r.
func words(r *mrand.Rand, n int) []uint64 {
	w := make([]uint64, n)
	for i := range w {
		w[i] = r.Uint64()
	}
	return w
}

func sameWords(a, b []uint64) int {
	same := 0
	for i := range a {
		if a[i] == b[i] {
			same++
		}
	}
	return same
}

// TestKeyedFactoriesDiffer checks that two factories (two runs) draw
// different streams for the same (release, row), and that one factory's
// streams differ between pairs, even pairs that swap release and row.
func TestKeyedFactoriesDiffer(t *testing.T) {
	a, b := NewKeyed(), NewKeyed()
	if a.key == b.key {
		t.Fatal("two NewKeyed calls drew the same key")
	}
	if a.key == ([32]byte{}) {
		t.Fatal("NewKeyed left the key zero")
	}
	for _, p := range [][2]uint64{{0, 0}, {1, 7}, {7, 1}, {1 << 40, 3}} {
		if s := sameWords(words(a.Stream(p[0], p[1]), 100), words(b.Stream(p[0], p[1]), 100)); s > 0 {
			t.Errorf("release %d row %d: %d of 100 words coincide between two runs' streams", p[0], p[1], s)
		}
	}
	for _, q := range [][4]uint64{{0, 0, 0, 1}, {0, 1, 1, 0}, {1, 7, 7, 1}, {3, 0, 4, 0}} {
		if s := sameWords(words(a.Stream(q[0], q[1]), 100), words(a.Stream(q[2], q[3]), 100)); s > 0 {
			t.Errorf("(%d, %d) and (%d, %d): %d of 100 words coincide", q[0], q[1], q[2], q[3], s)
		}
	}
}

// TestKeyedStreamIsAFunctionOfThePair checks that a factory's stream of
// (release, row) depends on nothing else: Stream, and KeyedReseeders used
// from 1, 2 or 7 goroutines visiting the pairs in different orders, each
// re-keyed between pairs, give the same words for every pair.
func TestKeyedStreamIsAFunctionOfThePair(t *testing.T) {
	k := NewKeyed()
	const releases, rows, n = 5, 40, 20
	want := make(map[[2]uint64][]uint64)
	for rel := range uint64(releases) {
		for row := range uint64(rows) {
			want[[2]uint64{rel, row}] = words(k.Stream(rel, row), n)
		}
	}
	for _, workers := range []int{1, 2, 7} {
		var (
			mu  sync.Mutex
			got = make(map[[2]uint64][]uint64)
			wg  sync.WaitGroup
		)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := k.Reseeder()
				order := Seeded(uint64(100*workers + w)).Perm(releases * rows)
				for _, p := range order {
					if p%workers != w {
						continue
					}
					key := [2]uint64{uint64(p / rows), uint64(p % rows)}
					ws := words(s.Stream(key[0], key[1]), n)
					mu.Lock()
					got[key] = ws
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		for key, ws := range want {
			if g := got[key]; sameWords(g, ws) != n {
				t.Fatalf("%d workers: release %d row %d: words differ from Keyed.Stream's", workers, key[0], key[1])
			}
		}
	}
}

// TestKeyedDerivation pins how a stream's ChaCha8 key is derived (with a
// key set here, inside the package: the only way to fix one), so that a
// change to it is seen.
func TestKeyedDerivation(t *testing.T) {
	k := &Keyed{made: true}
	for i := range k.key {
		k.key[i] = byte(i)
	}
	mac := hmac.New(sha256.New, k.key[:])
	mac.Write([]byte("dpmc/rng/keyed/v1"))
	mac.Write(binary.LittleEndian.AppendUint64(nil, 3))
	mac.Write(binary.LittleEndian.AppendUint64(nil, 9))
	var ck [32]byte
	copy(ck[:], mac.Sum(nil))
	want := words(mrand.New(mrand.NewChaCha8(ck)), 10)
	if s := sameWords(words(k.Stream(3, 9), 10), want); s != 10 {
		t.Errorf("Stream(3, 9): %d of 10 words match HMAC-SHA-256(K, domain‖3‖9) as the ChaCha8 key", s)
	}
	if s := sameWords(words(k.Reseeder().Stream(3, 9), 10), want); s != 10 {
		t.Errorf("Reseeder().Stream(3, 9): %d of 10 words match", s)
	}
}

// TestKeyedReseederDoesNotAllocate: a worker re-keys once per row.
func TestKeyedReseederDoesNotAllocate(t *testing.T) {
	s := NewKeyed().Reseeder()
	var i uint64
	if a := testing.AllocsPerRun(100, func() { i++; _ = s.Stream(1, i).Uint64() }); a != 0 {
		t.Errorf("KeyedReseeder.Stream: %v allocations per call, want 0", a)
	}
}

func BenchmarkKeyedReseed(b *testing.B) {
	s := NewKeyed().Reseeder()
	var i uint64
	for b.Loop() {
		i++
		_ = s.Stream(1, i).Uint64()
	}
}

// TestKeyedTakesNoKey checks that nothing outside the package can fix a
// run's key: Keyed has no exported field, and the zero Keyed (which any
// caller can make, with a known all-zero key) refuses to hand out
// streams.
func TestKeyedTakesNoKey(t *testing.T) {
	typ := reflect.TypeFor[Keyed]()
	for i := range typ.NumField() {
		if f := typ.Field(i); f.IsExported() {
			t.Errorf("Keyed has an exported field %s", f.Name)
		}
	}
	for name, f := range map[string]func(k *Keyed){
		"Stream":   func(k *Keyed) { k.Stream(0, 0) },
		"Reseeder": func(k *Keyed) { k.Reseeder() },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s of a zero Keyed did not panic", name)
				}
			}()
			f(new(Keyed))
		}()
	}
}
