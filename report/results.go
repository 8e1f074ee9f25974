package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gkbench/gkbench/harness"
)

// readRows reads the rows of dir/cells.jsonl. A truncated last line, which
// a run killed mid-write leaves, is skipped: the runner redoes that cell.
func readRows(dir string) ([]harness.Row, error) {
	path := filepath.Join(dir, "cells.jsonl")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	var rows []harness.Row
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	line := 0
	var bad error
	for sc.Scan() {
		line++
		if bad != nil {
			return nil, bad // a bad line followed by more lines is corruption
		}
		var r harness.Row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			bad = fmt.Errorf("read %s:%d: %w", path, line, err)
			continue
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return rows, nil
}
