package model

import (
	"bytes"
	"os"
	"testing"
)

// testdata/small.dpmc is a version-3 file and testdata/small-v2.dpmc the
// same model as version 2 wrote it when that format was fixed. Both must
// still load; writing either again must give small.dpmc's bytes, so the
// format cannot change by accident and a version-2 file converts to
// version 3 by Load and Save.
func TestFixture(t *testing.T) {
	b, err := os.ReadFile("testdata/small.dpmc")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path    string
		version int
	}{{"testdata/small.dpmc", 3}, {"testdata/small-v2.dpmc", 2}} {
		m, err := Load(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if m.FileVersion() != c.version {
			t.Errorf("%s: FileVersion %d, want %d", c.path, m.FileVersion(), c.version)
		}
		var out bytes.Buffer
		if err := m.Write(&out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), b) {
			t.Errorf("%s: writing it again did not give small.dpmc's bytes: the format changed", c.path)
		}
		if m.Kind != UserLevel || m.Rank != 4 || len(m.ItemIDs) < 100 {
			t.Errorf("%s: kind %q, rank %d, %d items", c.path, m.Kind, m.Rank, len(m.ItemIDs))
		}
	}
}

// TestWriteFixture writes testdata/small.dpmc from the version-2 fixture
// (the same model, in the current format).
func TestWriteFixture(t *testing.T) {
	if os.Getenv("DPMC_UPDATE_FIXTURE") == "" {
		t.Skip("set DPMC_UPDATE_FIXTURE=1 to rewrite testdata/small.dpmc")
	}
	m, err := Load("testdata/small-v2.dpmc")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save("testdata/small.dpmc", true); err != nil {
		t.Fatal(err)
	}
}
