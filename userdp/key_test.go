package userdp

import (
	"testing"
)

// F1: a caller's key may be reused. Two plans with one key, on
// neighbouring data sets (one user more), must not carry the same noise:
// if they did, their noisy user counts would differ by exactly 1 and the
// count of an item the extra user did not rate by exactly 0.
func TestReusedKeyDoesNotCancel(t *testing.T) {
	key := [32]byte{1, 2, 3}
	run := func(users float64) (n, count float64) {
		p, err := NewPlan(Defaults(1, 1e-6, 1, 5))
		if err != nil {
			t.Fatal(err)
		}
		p.SetKey(key)
		_, n, err = p.ReleaseMean(usersSums(users))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Decide(n); err != nil {
			t.Fatal(err)
		}
		return n, releaseCountOf(t, p, "item 7", 12.5)
	}
	for range 3 {
		n1, c1 := run(943)
		n2, c2 := run(944)
		if n2-n1 == 1 {
			t.Errorf("noisy user counts %v and %v differ by exactly 1: the noise cancels", n1, n2)
		}
		if c1 == c2 {
			t.Errorf("an item the extra user did not rate was released as %v both times: the noise cancels", c1)
		}
	}
}

// The workers of one launch (one key, one nonce) draw the same noise;
// another nonce draws other noise.
func TestLaunchKeySharedByWorkers(t *testing.T) {
	key, nonce := [32]byte{9}, NewLaunchNonce()
	draw := func(nonce [32]byte) float64 {
		p, err := NewPlan(Defaults(1, 1e-6, 1, 5))
		if err != nil {
			t.Fatal(err)
		}
		p.SetLaunchKey(key, nonce)
		_, n, err := p.ReleaseMean(usersSums(500))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if a, b := draw(nonce), draw(nonce); a != b {
		t.Errorf("one launch key drew %v and %v", a, b)
	}
	if a, b := draw(nonce), draw(NewLaunchNonce()); a == b {
		t.Errorf("two nonces drew the same %v", a)
	}
	if n1, n2 := NewLaunchNonce(), NewLaunchNonce(); n1 == n2 {
		t.Error("two launch nonces are equal")
	}
}
