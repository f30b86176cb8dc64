package model

import (
	"bytes"
	"os"
	"testing"
)

// testdata/small.dpmc is a version-2 file written when the format was
// fixed (by TestWriteFixture with -args -update): it must still load, and
// writing it again must give the same bytes, so the format cannot change
// by accident.
func TestFixture(t *testing.T) {
	b, err := os.ReadFile("testdata/small.dpmc")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load("testdata/small.dpmc")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := m.Write(&out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), b) {
		t.Error("writing the fixture again changed its bytes: the format changed")
	}
	if m.Kind != UserLevel || m.Rank != 4 || len(m.ItemIDs) < 100 {
		t.Errorf("fixture: kind %q, rank %d, %d items", m.Kind, m.Rank, len(m.ItemIDs))
	}
}

func TestWriteFixture(t *testing.T) {
	if os.Getenv("DPMC_UPDATE_FIXTURE") == "" {
		t.Skip("set DPMC_UPDATE_FIXTURE=1 to rewrite testdata/small.dpmc")
	}
	train, _ := split(t)
	res, o := userLevel(t, train)
	m, err := FromUserLevel(res, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save("testdata/small.dpmc", true); err != nil {
		t.Fatal(err)
	}
}
