package harness

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// SchemaVersion is the version of the results files' layout, recorded in
// meta.json. Bump it whenever a column changes meaning, is renamed or
// removed; see doc.go for the columns.
const SchemaVersion = 1

// Row is one run: one cell, method and repetition. It is one line of
// cells.jsonl and one row of cells.csv; doc.go documents every field.
type Row struct {
	CellIndex int               `json:"cell_index"`
	Cell      string            `json:"cell"`
	Coords    map[string]string `json:"coords"`
	Data      string            `json:"data"`
	Graphs    int               `json:"graphs"`
	Kernel    string            `json:"kernel"`
	Params    string            `json:"params"`
	Method    string            `json:"method"`
	Rep       int               `json:"rep"`
	Threads   int               `json:"threads"`
	Status    string            `json:"status"`
	Note      string            `json:"note"`

	Total float64 `json:"t_total"`
	Wall  float64 `json:"t_wall"`
	Prep  float64 `json:"t_prep"`
	Phi   float64 `json:"t_phi"`
	Dot   float64 `json:"t_dot"`
	WDPG  float64 `json:"t_wdpg"`
	Walks float64 `json:"t_walks"`

	FeatureNNZ      int64 `json:"feature_nnz"`
	MaxFeatureNNZ   int64 `json:"max_feature_nnz"`
	Features        int64 `json:"features"`
	ProductVertices int64 `json:"product_vertices"`
	ProductEdges    int64 `json:"product_edges"`
	Pairs           int64 `json:"pairs"`
	Comparisons     int64 `json:"comparisons"`

	HeapBase uint64 `json:"heap_base_bytes"`
	PeakHeap uint64 `json:"peak_heap_bytes"`

	Started time.Time `json:"started"`
	Host    string    `json:"host"`

	// Ran and Switched say which method computed the matrix: method,
	// or for auto the one it ran, implicit where it switched from the
	// explicit one. They are the last columns, so that those before keep
	// their places.
	Ran      string `json:"ran"`
	Switched bool   `json:"switched"`
	// Probe is the time of auto's probes, part of Total (0 for the
	// other methods and in rows written before it).
	Probe float64 `json:"t_probe"`
	// CPU is the process's CPU time during the run (0 where it is not
	// known, and in rows written before it).
	CPU float64 `json:"t_cpu"`
	// C2C is the round trip of a cache line between two threads, in
	// seconds, measured just before the run (see kernels.CoreLatency);
	// 0 where it is not known (a process with one core), and in rows
	// written before it, or before it was measured for runs on one
	// thread too.
	C2C float64 `json:"t_c2c"`
}

// The statuses of a row, besides "error: ..." for failures.
const (
	StatusOK      = "ok"
	StatusTimeout = "timeout"
	StatusOOM     = "oom"
	statusError   = "error: "
)

// rowKey identifies a run within a results folder.
type rowKey struct {
	cell   string
	method string
	rep    int
}

func (r *Row) key() rowKey { return rowKey{r.Cell, r.Method, r.Rep} }

// cores returns t_cpu/t_wall, the cores the run had, and whether its CPU
// time is known.
func (r *Row) cores() (float64, bool) {
	if r.CPU > 0 && r.Wall > 0 {
		return r.CPU / r.Wall, true
	}
	return 0, false
}

// c2c returns t_c2c, the round trip between the cores before the run, and
// whether it is known.
func (r *Row) c2c() (float64, bool) { return r.C2C, r.C2C > 0 }

// fixedColumns returns the columns of cells.csv other than the grid
// coordinates, which follow cell.
func fixedColumns() []string {
	return []string{"cell_index", "cell", "data", "graphs", "kernel", "params", "method", "rep", "threads",
		"status", "note", "t_total", "t_wall", "t_prep", "t_phi", "t_dot", "t_wdpg", "t_walks",
		"feature_nnz", "max_feature_nnz", "features", "product_vertices", "product_edges", "pairs", "comparisons",
		"heap_base_bytes", "peak_heap_bytes", "started", "host", "ran", "switched", "t_probe", "t_cpu", "t_c2c"}
}

// csvHeader returns the header of cells.csv for the given axes.
func csvHeader(axes []string) []string {
	f := fixedColumns()
	h := append([]string{}, f[:2]...)
	h = append(h, axes...)
	return append(h, f[2:]...)
}

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func (r *Row) csvRecord(axes []string) []string {
	rec := []string{strconv.Itoa(r.CellIndex), r.Cell}
	for _, a := range axes {
		rec = append(rec, r.Coords[a])
	}
	i64 := func(x int64) string { return strconv.FormatInt(x, 10) }
	return append(rec, r.Data, strconv.Itoa(r.Graphs), r.Kernel, r.Params, r.Method,
		strconv.Itoa(r.Rep), strconv.Itoa(r.Threads), r.Status, r.Note,
		fmtFloat(r.Total), fmtFloat(r.Wall), fmtFloat(r.Prep), fmtFloat(r.Phi), fmtFloat(r.Dot),
		fmtFloat(r.WDPG), fmtFloat(r.Walks),
		i64(r.FeatureNNZ), i64(r.MaxFeatureNNZ), i64(r.Features), i64(r.ProductVertices),
		i64(r.ProductEdges), i64(r.Pairs), i64(r.Comparisons),
		strconv.FormatUint(r.HeapBase, 10), strconv.FormatUint(r.PeakHeap, 10),
		r.Started.UTC().Format(time.RFC3339Nano), r.Host, r.Ran, strconv.FormatBool(r.Switched), fmtFloat(r.Probe),
		fmtFloat(r.CPU), fmtFloat(r.C2C))
}

// Meta is meta.json: what produced a results folder.
type Meta struct {
	SchemaVersion int    `json:"schema_version"`
	Spec          string `json:"spec"`
	SpecFile      string `json:"spec_file"`
	SpecSHA256    string `json:"spec_sha256"`
	Profile       string `json:"profile"`
	Seed          uint64 `json:"seed"`
	// Axes and Methods give the coordinate columns and the method order
	// without the spec, for merge and plots.
	Axes        []string `json:"axes"`
	Methods     []string `json:"methods"`
	Cells       int      `json:"cells"`
	Repetitions int      `json:"repetitions"`
	Warmup      int      `json:"warmup"`
	Threads     int      `json:"threads"`
	// Reuse is the spec's measure.reuse: each method kept its buffers
	// from one run of a cell to the next.
	Reuse       bool   `json:"reuse,omitempty"`
	TimeLimit   string `json:"time_limit"`
	MemoryLimit int64  `json:"memory_limit_bytes"`
	// MemoryCap, if set, is the machine's cap that lowered the memory
	// limit of the runs (see Runner.MemoryCap).
	MemoryCap int64 `json:"memory_cap_bytes,omitempty"`
	// Shard is "i/N" for a shard's folder, "" for a whole run.
	Shard string `json:"shard"`

	GoVersion  string `json:"go_version"`
	CPUModel   string `json:"cpu_model"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Hostname   string `json:"hostname"`
	GitCommit  string `json:"git_commit"`

	// Started is when the first invocation began, Finished when the last
	// ended (zero while running); Invocations counts runs and resumes.
	Started     time.Time `json:"started"`
	Finished    time.Time `json:"finished"`
	Invocations int       `json:"invocations"`
	// Status is running, complete, interrupted or failed.
	Status string `json:"status"`
	Rows   int    `json:"rows"`

	// MergedFrom lists the folders a merged result came from.
	MergedFrom []MergedShard `json:"merged_from,omitempty"`
}

// MergedShard records one input of a merge.
type MergedShard struct {
	Dir       string    `json:"dir"`
	Shard     string    `json:"shard"`
	Hostname  string    `json:"hostname"`
	CPUModel  string    `json:"cpu_model"`
	GitCommit string    `json:"git_commit"`
	Started   time.Time `json:"started"`
	Finished  time.Time `json:"finished"`
	Rows      int       `json:"rows"`
}

// The files of a results folder.
const (
	fileJSONL   = "cells.jsonl"
	fileCSV     = "cells.csv"
	fileSummary = "summary.csv"
	fileMeta    = "meta.json"
)

// ReadMeta reads dir/meta.json.
func ReadMeta(dir string) (*Meta, error) {
	b, err := os.ReadFile(filepath.Join(dir, fileMeta))
	if err != nil {
		return nil, err
	}
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, fileMeta), err)
	}
	return &m, nil
}

// writeAtomic writes path through a temporary file in the same folder and
// a rename, so that a reader or a crash never sees half a file.
func writeAtomic(path string, write func(w io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

func writeMeta(dir string, m *Meta) error {
	return writeAtomic(filepath.Join(dir, fileMeta), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	})
}

// ReadRows reads dir/cells.jsonl. A last line cut short by a crash is
// dropped and its start offset returned as good, so that the caller can
// truncate it; a damaged line before the last one is an error, since no
// crash of an append-only writer produces it.
func ReadRows(dir string) (rows []Row, good int64, err error) {
	return readJSONL[Row](filepath.Join(dir, fileJSONL))
}

// readJSONL reads an append-only file of JSON lines, the form of both
// cells.jsonl and accuracy.jsonl. A missing file holds no rows; a last line
// without its newline, or that does not decode, is the one a crash cut
// short and is dropped, good being the length of the intact part.
func readJSONL[T any](path string) (rows []T, good int64, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	line := 0
	for off := 0; off < len(b); {
		line++
		end := bytes.IndexByte(b[off:], '\n')
		if end < 0 {
			// No newline: the write of this line did not finish.
			return rows, int64(off), nil
		}
		var r T
		if err := json.Unmarshal(b[off:off+end], &r); err != nil {
			if off+end+1 == len(b) {
				return rows, int64(off), nil
			}
			return nil, 0, fmt.Errorf("%s:%d: damaged row in the middle of the file: %v", path, line, err)
		}
		rows = append(rows, r)
		off += end + 1
	}
	return rows, int64(len(b)), nil
}

// writeCSV writes rows as a complete cells.csv.
func writeCSV(path string, axes []string, rows []Row) error {
	return writeAtomic(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.Write(csvHeader(axes)); err != nil {
			return err
		}
		for i := range rows {
			if err := cw.Write(rows[i].csvRecord(axes)); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	})
}

// writeJSONL writes rows as a complete cells.jsonl.
func writeJSONL(path string, rows []Row) error {
	return writeAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for i := range rows {
			if err := enc.Encode(&rows[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// store is an open results folder: the rows so far and the two row files
// opened for appending.
type store struct {
	dir   string
	axes  []string
	rows  []Row
	done  map[rowKey]int // index into rows
	jsonl *os.File
	csv   *os.File
}

// openStore opens dir for appending rows, reading what a previous run left.
// cells.jsonl is the record; cells.csv is rebuilt from it, since a crash
// may leave it one row short or cut mid-line.
func openStore(dir string, axes []string) (*store, error) {
	rows, good, err := ReadRows(dir)
	if err != nil {
		return nil, err
	}
	jpath := filepath.Join(dir, fileJSONL)
	if st, err := os.Stat(jpath); err == nil && st.Size() != good {
		if err := os.Truncate(jpath, good); err != nil {
			return nil, fmt.Errorf("drop the unfinished last row of %s: %w", jpath, err)
		}
	}
	s := &store{dir: dir, axes: axes, done: make(map[rowKey]int)}
	for _, r := range rows {
		if _, dup := s.done[r.key()]; dup {
			continue
		}
		s.done[r.key()] = len(s.rows)
		s.rows = append(s.rows, r)
	}
	cpath := filepath.Join(dir, fileCSV)
	if err := writeCSV(cpath, axes, s.rows); err != nil {
		return nil, fmt.Errorf("rebuild %s: %w", cpath, err)
	}
	if s.jsonl, err = os.OpenFile(jpath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
		return nil, err
	}
	if s.csv, err = os.OpenFile(cpath, os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		s.jsonl.Close()
		return nil, err
	}
	return s, nil
}

// append records a finished row in both files and syncs them, so that a
// crash right after loses nothing.
func (s *store) append(r Row) error {
	b, err := json.Marshal(&r)
	if err != nil {
		return err
	}
	if _, err := s.jsonl.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("append to %s: %w", s.jsonl.Name(), err)
	}
	if err := s.jsonl.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", s.jsonl.Name(), err)
	}
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	if err := cw.Write(r.csvRecord(s.axes)); err != nil {
		return err
	}
	cw.Flush()
	if _, err := s.csv.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("append to %s: %w", s.csv.Name(), err)
	}
	if err := s.csv.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", s.csv.Name(), err)
	}
	s.done[r.key()] = len(s.rows)
	s.rows = append(s.rows, r)
	return nil
}

func (s *store) close() error {
	return errors.Join(s.jsonl.Close(), s.csv.Close())
}
