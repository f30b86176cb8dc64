package solver

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// CheckSize returns an error, before anything is allocated, if a model of
// the given rank cannot be trained on a rows × cols matrix: the rank must
// be in [1, min(rows, cols)] (a factorization of higher rank has no more
// information and only costs time and memory), and the memory the factors
// and the workers' r × r scratch need, EstimateBytes, must fit in the
// memory the system reports available (on Linux; elsewhere that part is
// skipped).
func CheckSize(rows, cols, rank, workers int) error {
	if rank < 1 || rank > min(rows, cols) {
		return fmt.Errorf("solver: rank %d, want in [1, min(users, items) = %d] for %d users × %d items", rank, min(rows, cols), rows, cols)
	}
	need := EstimateBytes(rows, cols, rank, workers)
	if avail, ok := availableMemory(); ok && need > avail {
		return fmt.Errorf("solver: rank %d on %d users × %d items needs about %.1f GiB, more than the %.1f GiB available", rank, rows, cols, float64(need)/(1<<30), float64(avail)/(1<<30))
	}
	return nil
}

// EstimateBytes estimates the memory, in bytes, of training at this
// size: U and V (8·r·(rows + cols) bytes, twice for the previous sweep's
// copy) and per worker a few r × r matrices and a block of gathered
// factor rows with their targets, weights and IRLS bookkeeping. The block
// has as many rows as the most ratings of any user or item, at most 4 096;
// not knowing that number, the estimate takes min(4 096, max(rows, cols)).
func EstimateBytes(rows, cols, rank, workers int) uint64 {
	r := uint64(rank)
	block := uint64(min(maxBlockRows, max(rows, cols)))
	perWorker := 8*8*r*r + block*(16*r+64)
	return 16*r*(uint64(rows)+uint64(cols)) + uint64(max(workers, 1))*perWorker
}

// availableMemory reads MemAvailable from /proc/meminfo.
func availableMemory() (uint64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024, err == nil
		}
	}
	return 0, false
}
