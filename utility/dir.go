package utility

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dpmc/dpmc/internal/outdir"
)

// CheckDir makes sure dir can take dpmc utility's files (utilityN.json,
// .png, .svg, utility-rankingN.json and its plots, and ablation.md), before
// any long work: it is created if absent; if it exists and holds files, at
// least one must be a result JSON that dpmc utility wrote (a utility*.json
// that decodes as a Result or a RankingResult with no unknown field, a
// name and points), so that a folder of the
// user's own is never written into unless force is set. The error names
// the folder and says how to proceed.
func CheckDir(dir string, force bool) error {
	err := outdir.Check(dir, force, func(path string) bool {
		name := filepath.Base(path)
		return strings.HasPrefix(name, "utility") && strings.HasSuffix(name, ".json") && isResult(path)
	})
	if errors.Is(err, outdir.ErrForeign) {
		return fmt.Errorf("utility: --output-dir %s is not empty and holds no results of dpmc utility; choose another --output-dir or pass --force to write into it", dir)
	}
	if err != nil {
		return fmt.Errorf("utility: --output-dir: %w", err)
	}
	return nil
}

// isResult reports whether the file at path is a Result or a
// RankingResult as dpmc utility writes them.
func isResult(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	strict := func(v any) bool {
		d := json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		return d.Decode(v) == nil
	}
	var r Result
	if strict(&r) && r.Name != "" && len(r.Points) > 0 {
		return true
	}
	var k RankingResult
	return strict(&k) && k.Name != "" && len(k.Points) > 0
}
