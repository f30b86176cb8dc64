package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeCommands returns the dpmc command lines of the README's ```sh
// blocks, as argument lists, with their line numbers. "go run ./cmd/dpmc"
// counts as dpmc; other commands (go test, go install) are not dpmc's.
func readmeCommands(t *testing.T, path string) (cmds [][]string, lines []int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "```sh":
			in = true
			continue
		case strings.HasPrefix(line, "```"):
			in = false
			continue
		case !in:
			continue
		}
		if i := strings.Index(line, "#"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		fields := strings.Fields(line)
		switch {
		case len(fields) >= 3 && fields[0] == "go" && fields[1] == "run" && fields[2] == "./cmd/dpmc":
			fields = fields[3:]
		case len(fields) >= 1 && fields[0] == "dpmc":
			fields = fields[1:]
		default:
			continue
		}
		cmds, lines = append(cmds, fields), append(lines, n)
	}
	return cmds, lines
}

// TestREADMECommands runs every dpmc command the README shows, in a
// temporary folder, and checks that each exits 0. MovieLens paths
// (ml-100k/…) point at ../shared/data; commands that need them skip when
// the data are absent.
func TestREADMECommands(t *testing.T) {
	if raceEnabled {
		t.Skip("whole runs; the plain pass runs them")
	}
	readme, err := filepath.Abs(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "data", "movielens-100k"))
	_, statErr := os.Stat(data)
	cmds, lines := readmeCommands(t, readme)
	if len(cmds) < 8 {
		t.Fatalf("found %d dpmc commands in the README, want at least 8", len(cmds))
	}
	t.Chdir(t.TempDir())
	for k, args := range cmds {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			needsData := false
			for i, a := range args {
				if strings.HasPrefix(a, "ml-100k/") {
					needsData = true
					args[i] = filepath.Join(data, strings.TrimPrefix(a, "ml-100k/"))
				}
			}
			if needsData && statErr != nil {
				t.Skip("MovieLens 100k not present:", statErr)
			}
			if _, stderr, code := dpmc(t, args...); code != 0 {
				t.Errorf("README.md:%d: exit %d: %s", lines[k], code, stderr)
			}
		})
	}
}
