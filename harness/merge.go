package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MergeResult tells what Merge did.
type MergeResult struct {
	// Rows is the number of rows written, Duplicates the number of rows
	// dropped because another input had the identical row, and Conflicts
	// the number dropped because another input had a different row for the
	// same run (the first input wins).
	Rows, Duplicates, Conflicts int
	// Missing lists the shards "i/N" of the grid that no input covers.
	Missing []string
}

// Merge joins the results folders dirs, typically the shards of one run,
// into the folder out: cells.jsonl, cells.csv, summary.csv and meta.json,
// each written whole. It refuses folders of different spec files or
// profiles.
func Merge(out string, dirs []string) (*MergeResult, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("merge: no folders given")
	}
	var metas []*Meta
	for _, d := range dirs {
		m, err := ReadMeta(d)
		if err != nil {
			return nil, fmt.Errorf("merge: %s is not a results folder: %w", d, err)
		}
		if m.SchemaVersion != SchemaVersion {
			return nil, fmt.Errorf("merge: %s has schema version %d, this program writes %d", d, m.SchemaVersion, SchemaVersion)
		}
		if len(metas) > 0 {
			f := metas[0]
			switch {
			case m.SpecSHA256 != f.SpecSHA256:
				return nil, fmt.Errorf("merge: %s and %s come from different spec files (sha256 %.12s and %.12s)", dirs[0], d, f.SpecSHA256, m.SpecSHA256)
			case m.Profile != f.Profile:
				return nil, fmt.Errorf("merge: %s and %s come from different profiles (%s and %s)", dirs[0], d, f.Profile, m.Profile)
			}
		}
		metas = append(metas, m)
	}

	res := &MergeResult{}
	seen := make(map[rowKey][]byte)
	var rows []Row
	for i, d := range dirs {
		rs, _, err := ReadRows(d)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		metas[i].Rows = len(rs)
		for _, r := range rs {
			b, _ := json.Marshal(&r)
			if prev, ok := seen[r.key()]; ok {
				if string(prev) == string(b) {
					res.Duplicates++
				} else {
					res.Conflicts++
				}
				continue
			}
			seen[r.key()] = b
			rows = append(rows, r)
		}
	}
	morder := func(m string) int { return slices.Index(metas[0].Methods, m) }
	slices.SortStableFunc(rows, func(a, b Row) int {
		if a.CellIndex != b.CellIndex {
			return a.CellIndex - b.CellIndex
		}
		if a.Method != b.Method {
			return morder(a.Method) - morder(b.Method)
		}
		return a.Rep - b.Rep
	})
	res.Rows = len(rows)
	res.Missing = missingShards(metas)

	meta := *metas[0]
	meta.Shard = ""
	meta.Rows = len(rows)
	meta.Status = "complete"
	meta.Invocations = 0
	meta.MergedFrom = nil
	meta.Finished = time.Time{}
	for i, m := range metas {
		meta.Invocations += m.Invocations
		if m.Started.Before(meta.Started) {
			meta.Started = m.Started
		}
		if m.Finished.After(meta.Finished) {
			meta.Finished = m.Finished
		}
		if m.Status != "complete" {
			meta.Status = "incomplete"
		}
		meta.MergedFrom = append(meta.MergedFrom, MergedShard{
			Dir: dirs[i], Shard: m.Shard, Hostname: m.Hostname, CPUModel: m.CPUModel,
			GitCommit: m.GitCommit, Started: m.Started, Finished: m.Finished, Rows: m.Rows,
		})
	}
	if len(res.Missing) > 0 {
		meta.Status = "incomplete"
	}

	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	for _, w := range []struct {
		name  string
		write func() error
	}{
		{fileJSONL, func() error { return writeJSONL(filepath.Join(out, fileJSONL), rows) }},
		{fileCSV, func() error { return writeCSV(filepath.Join(out, fileCSV), meta.Axes, rows) }},
		{fileSummary, func() error { return writeSummary(filepath.Join(out, fileSummary), meta.Axes, meta.Methods, rows) }},
		{fileMeta, func() error { return writeMeta(out, &meta) }},
	} {
		if err := w.write(); err != nil {
			return nil, fmt.Errorf("merge: write %s: %w", filepath.Join(out, w.name), err)
		}
	}
	return res, nil
}

// missingShards lists the shards of the inputs' sharding that no input
// covers. An unsharded input covers everything.
func missingShards(metas []*Meta) []string {
	have := make(map[int]bool)
	count := 0
	for _, m := range metas {
		if m.Shard == "" {
			return nil
		}
		i, n, _ := strings.Cut(m.Shard, "/")
		ii, _ := strconv.Atoi(i)
		nn, _ := strconv.Atoi(n)
		have[ii] = true
		count = max(count, nn)
	}
	var missing []string
	for i := 0; i < count; i++ {
		if !have[i] {
			missing = append(missing, fmt.Sprintf("%d/%d", i, count))
		}
	}
	return missing
}
