package harness

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
	"github.com/gkbench/gkbench/kernels"
)

// fakeSpec is a TU spec on a data set that only fakeData knows: 2 sizes ×
// 3 walk lengths = 6 cells, 2 methods, 2 repetitions: 24 runs.
const fakeSpec = `name: fake
seed: 7
data:
  dataset: FAKE
kernels:
  - name: walk
methods: [explicit, implicit]
grid:
  size: [2, 3]
  length: [0, 1, 2]
measure: {repetitions: 2}
limits: {time: 10s}
profiles:
  quick:
    grid:
      size: [2]
`

// behaviour is what a fake Gram does for a method.
type behaviour func(ctx context.Context, m kernels.Method) error

// fakeKernels builds fake kernels that count their Gram calls per cell key
// and method and behave as told.
type fakeKernels struct {
	mu     sync.Mutex
	calls  map[string]int
	behave behaviour
}

func newFakeKernels(b behaviour) *fakeKernels {
	return &fakeKernels{calls: make(map[string]int), behave: b}
}

func (f *fakeKernels) New(name string, p kernels.Params) (kernels.Kernel, error) {
	return &fakeKernel{f: f, id: name + "(" + paramText(p) + ")"}, nil
}

func (f *fakeKernels) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		n += c
	}
	return n
}

type fakeKernel struct {
	f  *fakeKernels
	id string
}

func (k *fakeKernel) Name() string { return "fake" }
func (k *fakeKernel) Methods() []kernels.Method {
	return []kernels.Method{kernels.Explicit, kernels.Implicit}
}
func (k *fakeKernel) Gram(ctx context.Context, gs []*graph.Graph, m kernels.Method) (*mat.SymDense, *kernels.Report, error) {
	k.f.mu.Lock()
	k.f.calls[fmt.Sprintf("%s %d %s", k.id, len(gs), m)]++
	k.f.mu.Unlock()
	rep := &kernels.Report{Method: m, Pairs: int64(len(gs) * (len(gs) + 1) / 2), TPhi: time.Microsecond}
	if k.f.behave != nil {
		if err := k.f.behave(ctx, m); err != nil {
			return nil, rep, err
		}
	}
	return mat.NewSymDense(max(len(gs), 1), nil), rep, nil
}

// fakeData serves data sets of n one-vertex graphs, n from the size.
type fakeData struct {
	mu    sync.Mutex
	loads int
}

func (d *fakeData) Load(_ context.Context, c DataCoord) (*graph.Dataset, error) {
	d.mu.Lock()
	d.loads++
	d.mu.Unlock()
	full := &graph.Dataset{Name: c.Dataset}
	for range 5 {
		full.Graphs = append(full.Graphs, graph.MustBuild([]int32{0}, nil))
		full.Classes = append(full.Classes, 0)
	}
	return subset(full, c)
}

func fakePlan(t *testing.T, src, profile string) *Plan {
	t.Helper()
	s, err := ParseSpec("fake.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Plan(profile, 0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func readRows(t *testing.T, dir string) []Row {
	t.Helper()
	rows, _, err := ReadRows(dir)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// checkRows checks that rows hold every run of p exactly once and that
// cells.csv agrees with cells.jsonl.
func checkRows(t *testing.T, p *Plan, dir string, rows []Row) {
	t.Helper()
	want := p.Runs()
	seen := map[rowKey]bool{}
	for _, r := range rows {
		if seen[r.key()] {
			t.Errorf("row %v twice", r.key())
		}
		seen[r.key()] = true
	}
	if len(seen) != want || len(rows) != want {
		t.Errorf("%d rows (%d distinct), want %d", len(rows), len(seen), want)
	}
	f, err := os.Open(filepath.Join(dir, fileCSV))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("cells.csv: %v", err)
	}
	if len(recs) != len(rows)+1 {
		t.Errorf("cells.csv has %d records, want header + %d", len(recs), len(rows))
	}
	for _, name := range []string{fileSummary, fileMeta} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestRunAndResume(t *testing.T) {
	p := fakePlan(t, fakeSpec, Full)
	out := t.TempDir()
	fk, fd := newFakeKernels(nil), &fakeData{}
	r := &Runner{Kernels: fk, Data: fd}
	res, err := r.Run(context.Background(), p, out)
	if err != nil {
		t.Fatal(err)
	}
	dir := res.Dir
	rows := readRows(t, dir)
	checkRows(t, p, dir, rows)
	for _, row := range rows {
		if row.Ran != row.Method || row.Switched {
			t.Errorf("row %v: ran %q, switched %t; want its method", row.key(), row.Ran, row.Switched)
		}
	}
	// 24 runs, each one Gram call; 2 data sets (the sizes), each loaded
	// once for its 3 cells.
	if fk.total() != 24 || fd.loads != 2 {
		t.Errorf("%d Gram calls, %d loads; want 24, 2", fk.total(), fd.loads)
	}
	if res.New != 24 || res.Kept != 0 {
		t.Errorf("result %+v, want 24 new", res)
	}

	// A rerun finds everything done and calls nothing.
	fk2 := newFakeKernels(nil)
	r.Kernels = fk2
	if res, err = r.Run(context.Background(), p, out); err != nil {
		t.Fatal(err)
	}
	if fk2.total() != 0 || res.Kept != 24 || res.New != 0 {
		t.Errorf("rerun: %d calls, result %+v; want 0 calls, 24 kept", fk2.total(), res)
	}

	// Simulate kill -9 while the last row was being written: cut
	// cells.jsonl in the middle of its last line, and cells.csv too.
	jpath := filepath.Join(dir, fileJSONL)
	b, _ := os.ReadFile(jpath)
	lastStart := strings.LastIndexByte(strings.TrimSuffix(string(b), "\n"), '\n') + 1
	if err := os.WriteFile(jpath, b[:lastStart+10], 0o644); err != nil {
		t.Fatal(err)
	}
	cpath := filepath.Join(dir, fileCSV)
	cb, _ := os.ReadFile(cpath)
	os.WriteFile(cpath, cb[:len(cb)-7], 0o644)

	fk3 := newFakeKernels(nil)
	r.Kernels = fk3
	if res, err = r.Run(context.Background(), p, out); err != nil {
		t.Fatal(err)
	}
	// Only the cut row is run again.
	if fk3.total() != 1 || res.New != 1 || res.Kept != 23 {
		t.Errorf("resume: %d calls, result %+v; want 1 call, 1 new, 23 kept", fk3.total(), res)
	}
	after := readRows(t, dir)
	checkRows(t, p, dir, after)
	// The 23 kept rows are unchanged, byte for byte.
	b2, _ := os.ReadFile(jpath)
	if !strings.HasPrefix(string(b2), string(b[:lastStart])) {
		t.Error("resume changed the rows it kept")
	}
	m, err := ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Three invocations so far, of the one spec; 24 rows.
	if m.Invocations != 3 || m.Status != "complete" || m.Rows != 24 || m.SpecSHA256 != p.Spec.Hash || m.SchemaVersion != SchemaVersion {
		t.Errorf("meta %+v", m)
	}
}

func TestResumeRefused(t *testing.T) {
	out := t.TempDir()
	r := &Runner{Kernels: newFakeKernels(nil), Data: &fakeData{}}
	if _, err := r.Run(context.Background(), fakePlan(t, fakeSpec, Quick), out); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		src   string
		prof  string
		force bool
		want  error
	}{
		// A changed spec file changes its hash.
		{"edited spec", fakeSpec + "# edited\n", Quick, false, ErrResumeRefused},
		{"other profile", fakeSpec, Full, false, ErrResumeRefused},
		{"edited spec, forced", fakeSpec + "# edited\n", Quick, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r.Force = tt.force
			_, err := r.Run(context.Background(), fakePlan(t, tt.src, tt.prof), out)
			if !errors.Is(err, tt.want) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
		})
	}
}

func TestReadRowsDamagedMiddle(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, fileJSONL), []byte("{\"cell\":\"a\"}\n{broken\n{\"cell\":\"b\"}\n"), 0o644)
	if _, _, err := ReadRows(dir); err == nil || !strings.Contains(err.Error(), "cells.jsonl:2: damaged row") {
		t.Errorf("error %v, want a damaged row at line 2", err)
	}
}

func TestLimits(t *testing.T) {
	// sleep blocks until the run is cancelled, like a kernel that would
	// take a day; alloc keeps allocating until cancelled.
	sleep := func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	}
	alloc := func(ctx context.Context) error {
		var keep [][]byte
		for {
			if err := ctx.Err(); err != nil {
				_ = keep
				return err
			}
			keep = append(keep, make([]byte, 1<<20))
			time.Sleep(100 * time.Microsecond)
		}
	}
	tests := []struct {
		name     string
		explicit func(context.Context) error
		want     string
		// capped puts the memory limit in the runner's MemoryCap, under
		// a spec limit of 1 TiB, as on a machine smaller than the spec's.
		capped bool
	}{
		{"timeout", sleep, StatusTimeout, false},
		{"oom", alloc, StatusOOM, false},
		{"oom-capped", alloc, StatusOOM, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fakePlan(t, fakeSpec, Quick) // 3 cells × 2 methods × 2 repetitions
			p.Cells = p.Cells[:1]
			p.Measure.Repetitions = 3
			memory := int64(heapBytes()) + 64<<20
			p.Limits = Limits{Time: 300 * time.Millisecond, Memory: memory}
			fk := newFakeKernels(func(ctx context.Context, m kernels.Method) error {
				if m == kernels.Explicit {
					return tt.explicit(ctx)
				}
				return nil
			})
			r := &Runner{Kernels: fk, Data: &fakeData{}}
			if tt.capped {
				p.Limits.Memory, r.MemoryCap = 1<<40, memory
			}
			res, err := r.Run(context.Background(), p, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			meta, err := ReadMeta(res.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int64{true: memory}[tt.capped]; meta.MemoryCap != want {
				t.Errorf("meta's memory cap %d, want %d", meta.MemoryCap, want)
			}
			rows := readRows(t, res.Dir)
			checkRows(t, p, res.Dir, rows)
			// Explicit: the first repetition hits the limit, the other two
			// are recorded without running; implicit runs all three.
			if got := fk.total(); got != 1+3 {
				t.Errorf("%d Gram calls, want 4", got)
			}
			for _, r := range rows {
				want := StatusOK
				if r.Method == "explicit" {
					want = tt.want
				}
				if r.Status != want {
					t.Errorf("%s rep %d: status %q, want %q", r.Method, r.Rep, r.Status, want)
				}
				if r.Method == "explicit" && r.Rep > 1 && !strings.HasPrefix(r.Note, "not run") {
					t.Errorf("explicit rep %d: note %q, want not run", r.Rep, r.Note)
				}
				if tt.want == StatusOOM && r.Method == "explicit" && r.Rep == 1 && r.PeakHeap <= uint64(memory) {
					t.Errorf("oom row peak heap %d not above the limit %d", r.PeakHeap, memory)
				}
				if tt.want == StatusTimeout && r.Method == "explicit" && r.Rep == 1 && r.Wall < 0.3 {
					t.Errorf("timeout row wall time %gs below the 300ms limit", r.Wall)
				}
			}
		})
	}
}

func TestErrorsAndPanics(t *testing.T) {
	p := fakePlan(t, fakeSpec, Quick)
	p.Cells = p.Cells[:1]
	fk := newFakeKernels(func(_ context.Context, m kernels.Method) error {
		if m == kernels.Explicit {
			panic("index out of range")
		}
		return errors.New("bad graph\nsecond line")
	})
	r := &Runner{Kernels: fk, Data: &fakeData{}}
	res, err := r.Run(context.Background(), p, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// The messages come from safeGram and oneLine.
	want := map[string]string{
		"explicit": "error: kernel fake panicked: index out of range",
		"implicit": "error: bad graph second line",
	}
	for _, r := range readRows(t, res.Dir) {
		if r.Status != want[r.Method] {
			t.Errorf("%s: status %q, want %q", r.Method, r.Status, want[r.Method])
		}
	}
}

func TestInterrupt(t *testing.T) {
	p := fakePlan(t, fakeSpec, Full)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	// The 6th Gram call gets Ctrl-C while in flight.
	fk := newFakeKernels(func(c context.Context, _ kernels.Method) error {
		n++
		if n == 6 {
			cancel()
			<-c.Done()
			return c.Err()
		}
		return nil
	})
	r := &Runner{Kernels: fk, Data: &fakeData{}}
	res, err := r.Run(ctx, p, out)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("error %v, want ErrInterrupted", err)
	}
	rows := readRows(t, res.Dir)
	// The 5 finished runs are kept; the one in flight is not recorded.
	if len(rows) != 5 || res.Rows != 5 {
		t.Errorf("%d rows (result %d), want 5", len(rows), res.Rows)
	}
	m, err := ReadMeta(res.Dir)
	if err != nil || m.Status != "interrupted" {
		t.Errorf("meta %+v, %v; want status interrupted", m, err)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, fileSummary)); err != nil {
		t.Errorf("no summary after interrupt: %v", err)
	}

	fk2 := newFakeKernels(nil)
	r.Kernels = fk2
	if _, err := r.Run(context.Background(), p, out); err != nil {
		t.Fatal(err)
	}
	// 24 runs in all, 5 done before.
	if fk2.total() != 19 {
		t.Errorf("resume ran %d, want 19", fk2.total())
	}
	checkRows(t, p, res.Dir, readRows(t, res.Dir))
}

// comparable drops what differs between two runs of the same cell.
func comparable(rows []Row) []string {
	var out []string
	for _, r := range rows {
		b, _ := json.Marshal(r.Coords)
		out = append(out, fmt.Sprintf("%d %s %s %s %d %s %d %d", r.CellIndex, r.Cell, b, r.Method, r.Rep, r.Status, r.Graphs, r.Pairs))
	}
	slices.Sort(out)
	return out
}

func TestShardMerge(t *testing.T) {
	p := fakePlan(t, fakeSpec, Full)
	out := t.TempDir()
	whole, err := (&Runner{Kernels: newFakeKernels(nil), Data: &fakeData{}}).Run(context.Background(), p, filepath.Join(out, "whole"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	total := 0
	for i := range 4 {
		sh := Shard{Index: i, Count: 4}
		fk := newFakeKernels(nil)
		res, err := (&Runner{Kernels: fk, Data: &fakeData{}, Shard: sh}).Run(context.Background(), p, out)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range readRows(t, res.Dir) {
			if !sh.Has(r.CellIndex) {
				t.Errorf("shard %v ran cell %d", sh, r.CellIndex)
			}
		}
		total += fk.total()
		dirs = append(dirs, res.Dir)
	}
	// Every run is done once over the shards.
	if total != p.Runs() {
		t.Errorf("shards ran %d, want %d", total, p.Runs())
	}
	merged := filepath.Join(out, "merged")
	// Shard 0 twice: its rows are identical duplicates.
	mr, err := Merge(merged, append(dirs, dirs[0]))
	if err != nil {
		t.Fatal(err)
	}
	wantDup := len(readRows(t, dirs[0]))
	if mr.Rows != p.Runs() || mr.Duplicates != wantDup || mr.Conflicts != 0 || len(mr.Missing) != 0 {
		t.Errorf("merge %+v, want %d rows, %d duplicates", mr, p.Runs(), wantDup)
	}
	got, want := comparable(readRows(t, merged)), comparable(readRows(t, whole.Dir))
	if !slices.Equal(got, want) {
		t.Errorf("merged rows differ from the unsharded run:\n got %q\nwant %q", got, want)
	}
	checkRows(t, p, merged, readRows(t, merged))

	// Missing shards are reported.
	mr, err = Merge(filepath.Join(out, "partial"), dirs[:2])
	if err != nil || !slices.Equal(mr.Missing, []string{"2/4", "3/4"}) {
		t.Errorf("partial merge: %+v, %v; want shards 2/4, 3/4 missing", mr, err)
	}

	// Shards of another profile or spec are refused.
	other, err := (&Runner{Kernels: newFakeKernels(nil), Data: &fakeData{}}).Run(context.Background(), fakePlan(t, fakeSpec, Quick), filepath.Join(out, "q"))
	if err != nil {
		t.Fatal(err)
	}
	edited, err := (&Runner{Kernels: newFakeKernels(nil), Data: &fakeData{}}).Run(context.Background(), fakePlan(t, fakeSpec+"#\n", Full), filepath.Join(out, "e"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		dir, want string
	}{
		{other.Dir, "different profiles"},
		{edited.Dir, "different spec files"},
	} {
		if _, err := Merge(filepath.Join(out, "bad"), []string{dirs[0], tt.dir}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("merge with %s: error %v, want %q", tt.dir, err, tt.want)
		}
	}
}

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"0/4", Shard{0, 4}, true},
		{"3/4", Shard{3, 4}, true},
		{"4/4", Shard{}, false},
		{"-1/4", Shard{}, false},
		{"1/0", Shard{}, false},
		{"1", Shard{}, false},
		{"a/b", Shard{}, false},
	}
	for _, tt := range tests {
		got, err := ParseShard(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestStats(t *testing.T) {
	tests := []struct {
		xs                []float64
		mean, median, low float64
	}{
		// Worked by hand.
		{[]float64{3, 1, 2}, 2, 2, 1},
		{[]float64{4, 1, 2, 3}, 2.5, 2.5, 1},
		{[]float64{5}, 5, 5, 5},
	}
	for _, tt := range tests {
		mean, median, low := stats(tt.xs)
		if mean != tt.mean || median != tt.median || low != tt.low {
			t.Errorf("stats(%v) = %v %v %v, want %v %v %v", tt.xs, mean, median, low, tt.mean, tt.median, tt.low)
		}
	}
}

// estimatingKernel predicts more memory than any test limit allows.
type estimatingKernel struct{ fakeKernel }

func (k *estimatingKernel) EstimateBytes([]*graph.Graph, kernels.Method, int64) int64 { return 1 << 40 }

// TestMemoryEstimateRefused checks that a kernel whose own estimate exceeds
// the memory limit is recorded as oom without being run.
func TestMemoryEstimateRefused(t *testing.T) {
	f := newFakeKernels(nil)
	k := &estimatingKernel{fakeKernel{f: f, id: "big"}}
	out := runOnce(context.Background(), k, nil, kernels.Explicit, Limits{Memory: 1 << 30}, 1, heapSampling{}, nil, runBufs{})
	if out.status != StatusOOM || out.estimate != 1<<40 {
		t.Errorf("status %q, estimate %d; want oom and 1 TiB", out.status, out.estimate)
	}
	if len(f.calls) != 0 {
		t.Errorf("the kernel ran: %v", f.calls)
	}
}

// TestRanColumn checks the ran and switched columns: the method itself
// for explicit and implicit runs, and for auto the method the advice ran,
// which on the walk kernel at length 1 on small random graphs is one of
// the two, without a switch: the guard waits for max(8, n/10) maps, more
// than the 6 graphs have.
func TestRanColumn(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gs := make([]*graph.Graph, 6)
	for i := range gs {
		gs[i] = graphtest.Random(r, 8, 0.3, 2, 1)
	}
	k, err := kernels.New("walk", kernels.Params{"length": "1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []kernels.Method{kernels.Explicit, kernels.Implicit, kernels.Auto} {
		out := runOnce(context.Background(), k, gs, m, Limits{}, 1, heapSampling{}, nil, runBufs{})
		if out.status != StatusOK {
			t.Fatalf("%s: status %q", m, out.status)
		}
		want := m
		if m == kernels.Auto {
			if !strings.HasPrefix(out.note, "auto chose "+string(out.ran)+" ") {
				t.Errorf("auto ran %q, note %q", out.ran, out.note)
			}
			want = out.ran
			if want != kernels.Explicit && want != kernels.Implicit {
				t.Errorf("auto ran %q", out.ran)
			}
		}
		if out.ran != want || out.switched {
			t.Errorf("%s: ran %q, switched %t; want %s, false", m, out.ran, out.switched, want)
		}
	}
}

// TestMethodsInterleaved checks that a cell's repetitions run round by
// round, a run of each method a round, the first as the warm-up runs
// order it, and that a method that hits its time limit drops out of the
// rounds with its remaining repetitions recorded, while the others go on.
func TestMethodsInterleaved(t *testing.T) {
	src := strings.Replace(fakeSpec, "measure: {repetitions: 2}", "measure: {repetitions: 3, warmup: 1}", 1)
	p := fakePlan(t, src, Full)
	// The explicit method is the slow one, so that its warm-up run puts
	// it last in the first round, against the spec's order. By 20 ms: by
	// 2, a preempted warm-up run of the other method took longer now and
	// then in a run of the whole suite beside a busy loop, which turned
	// the order.
	slowExplicit := func(ctx context.Context, m kernels.Method) error {
		if m == kernels.Explicit {
			time.Sleep(20 * time.Millisecond)
		}
		return nil
	}
	fk := newFakeKernels(slowExplicit)
	r := &Runner{Kernels: fk, Data: &fakeData{}}
	res, err := r.Run(context.Background(), p, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// 6 cells, each explicit and implicit in rounds 1, 2, 3, in the
	// order nextRound gives after the warm-up round and each round.
	want := []string{"implicit/1", "explicit/1", "explicit/2", "implicit/2", "explicit/3", "implicit/3"}
	order := map[string][]string{}
	var cells []string
	for _, row := range readRows(t, res.Dir) {
		if order[row.Cell] == nil {
			cells = append(cells, row.Cell)
		}
		order[row.Cell] = append(order[row.Cell], fmt.Sprintf("%s/%d", row.Method, row.Rep))
	}
	if len(cells) != 6 {
		t.Fatalf("%d cells, want 6", len(cells))
	}
	for _, c := range cells {
		got := order[c]
		if len(got) != len(want) || !slices.Equal(got[:2], want[:2]) {
			t.Errorf("cell %s ran %v, want the rounds of %v", c, got, want)
			continue
		}
		for r := 2; r < len(got); r += 2 {
			if round := slices.Sorted(slices.Values(got[r : r+2])); !slices.Equal(round, want[r:r+2]) {
				t.Errorf("cell %s ran %v in round %d, want %v", c, got[r:r+2], r/2+1, want[r:r+2])
			}
		}
	}
	// A warm-up run and three repetitions of each method in each cell.
	if fk.total() != 6*2*4 {
		t.Errorf("%d Gram calls, want %d", fk.total(), 6*2*4)
	}

	// The implicit method times out in its first repetition: its
	// other two are recorded as not run, after it, and the explicit
	// method runs its three.
	slow := func(ctx context.Context, m kernels.Method) error {
		if m == kernels.Implicit {
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	}
	src = strings.Replace(src, "limits: {time: 10s}", "limits: {time: 50ms}", 1)
	src = strings.Replace(src, "warmup: 1", "warmup: 0", 1)
	p = fakePlan(t, src, Quick)
	r = &Runner{Kernels: newFakeKernels(slow), Data: &fakeData{}}
	if res, err = r.Run(context.Background(), p, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	order, cells = map[string][]string{}, nil
	for _, row := range readRows(t, res.Dir) {
		if order[row.Cell] == nil {
			cells = append(cells, row.Cell)
		}
		order[row.Cell] = append(order[row.Cell], fmt.Sprintf("%s/%d/%s", row.Method, row.Rep, row.Status))
	}
	want = []string{"explicit/1/ok", "implicit/1/timeout", "implicit/2/timeout", "implicit/3/timeout", "explicit/2/ok", "explicit/3/ok"}
	for _, c := range cells {
		if !slices.Equal(order[c], want) {
			t.Errorf("cell %s ran %v, want %v", c, order[c], want)
		}
	}
}

// TestNextRound checks the order of a round's methods: the one whose run
// took longest goes last, and the others move up a place, so that the
// place after it falls to each in turn. Three methods as in the walk
// grid, whose implicit runs are the long ones: explicit, implicit, auto
// (the spec's order), then auto, explicit, implicit, then explicit, auto,
// implicit.
func TestNextRound(t *testing.T) {
	ms := func(runs []*methodRun) []kernels.Method {
		var out []kernels.Method
		for _, mr := range runs {
			out = append(out, mr.m)
		}
		return out
	}
	e := &methodRun{m: kernels.Explicit, last: time.Millisecond}
	i := &methodRun{m: kernels.Implicit, last: 250 * time.Millisecond}
	a := &methodRun{m: kernels.Auto, last: 2 * time.Millisecond}
	for _, tt := range []struct {
		in, want []*methodRun
	}{
		{[]*methodRun{e, i, a}, []*methodRun{a, e, i}},
		{[]*methodRun{a, e, i}, []*methodRun{e, a, i}},
		{[]*methodRun{i, e}, []*methodRun{e, i}},
		{[]*methodRun{e, i}, []*methodRun{e, i}},
		{[]*methodRun{e}, []*methodRun{e}},
		{nil, nil},
	} {
		if got := nextRound(slices.Clone(tt.in)); !slices.Equal(got, tt.want) {
			t.Errorf("nextRound(%v) = %v, want %v", ms(tt.in), ms(got), ms(tt.want))
		}
	}
}

// TestMemTotal checks the parse of /proc/meminfo's MemTotal.
func TestMemTotal(t *testing.T) {
	tests := []struct {
		text string
		want int64
	}{
		{"MemTotal:       24576000 kB\nMemFree:        20000000 kB\n", 24576000 << 10},
		{"MemFree:        20000000 kB\nMemTotal: 1024 kB\n", 1 << 20},
		{"MemFree:        20000000 kB\n", 0},
		{"MemTotal:       many kB\n", 0},
		{"MemTotal:       1024 MB\n", 0},
		{"", 0},
	}
	for _, tt := range tests {
		if got := memTotal(strings.NewReader(tt.text)); got != tt.want {
			t.Errorf("memTotal(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

// TestRefusedEstimate checks that the estimate is read back from the note
// the runner writes for a run it refused, and only from such a note.
func TestRefusedEstimate(t *testing.T) {
	tests := []struct {
		note, want string
		ok         bool
	}{
		{refusedNote + "5.2 GiB, over the memory limit", "5.2 GiB", true},
		{"warm-up 1; " + refusedNote + "118 GiB, over the memory limit", "118 GiB", true},
		{"not run: repetition 1 hit the oom limit", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got, ok := RefusedEstimate(tt.note); got != tt.want || ok != tt.ok {
			t.Errorf("RefusedEstimate(%q) = %q, %t; want %q, %t", tt.note, got, ok, tt.want, tt.ok)
		}
	}
}

// TestRunWorkspaces checks what a run does with the Workspaces of its
// cell: the explicit run keeps its buffers in its own; a run of another
// method leaves them out of its heap base, and keeps them under a limit
// that dwarfs them, but drops them under one less than keptShare times
// their size.
func TestRunWorkspaces(t *testing.T) {
	gs := graphtest.Dataset(t, "MUTAG").Graphs
	k, err := kernels.New("walk", kernels.Params{"length": "7"})
	if err != nil {
		t.Fatal(err)
	}
	ex, im := kernels.NewWorkspace(), kernels.NewWorkspace()
	ctx := context.Background()
	out := runOnce(ctx, k, gs, kernels.Explicit, Limits{Memory: 1 << 34}, 1, heapSampling{}, nil, runBufs{own: ex, others: []*kernels.Workspace{im}})
	held := ex.Bytes()
	if out.status != StatusOK || held == 0 {
		t.Fatalf("explicit run: status %q, its Workspace holds %d bytes", out.status, held)
	}
	runtime.GC()
	heap := heapBytes()
	out = runOnce(ctx, k, gs, kernels.Implicit, Limits{Memory: 1 << 34}, 1, heapSampling{}, nil, runBufs{own: im, others: []*kernels.Workspace{ex}})
	if out.status != StatusOK {
		t.Fatalf("implicit run: status %q", out.status)
	}
	if got := ex.Bytes(); got != held {
		t.Errorf("under a limit of 16 GiB the implicit run left the explicit buffers at %d bytes, want %d", got, held)
	}
	// The heap before the run held the buffers; its base leaves them out.
	if out.heapBase+uint64(held)/2 > heap {
		t.Errorf("implicit run's heap base %d, the heap with the explicit buffers %d: the %d bytes are not left out", out.heapBase, heap, held)
	}
	out = runOnce(ctx, k, gs, kernels.Implicit, Limits{Memory: keptShare*held - 1}, 1, heapSampling{}, nil, runBufs{own: im, others: []*kernels.Workspace{ex}})
	if got := ex.Bytes(); got != 0 {
		t.Errorf("under a limit of %d bytes the explicit buffers kept %d bytes (run %q)", keptShare*held-1, got, out.status)
	}
}

// garbageEstimator is a kernel whose memory estimate leaves garbage.
type garbageEstimator struct {
	fakeKernel
	garbage int
	sink    []byte
}

func (k *garbageEstimator) EstimateBytes([]*graph.Graph, kernels.Method, int64) int64 {
	k.sink = make([]byte, k.garbage)
	for i := 0; i < len(k.sink); i += 4096 {
		k.sink[i] = 1
	}
	k.sink = nil
	return 1 << 20
}

// TestEstimateGarbageLeftOut checks that the garbage a kernel's memory
// estimate leaves is collected before the run, so that its peak does not
// count it: the fake kernel's run allocates nothing of note, and its
// estimate 256 MiB.
func TestEstimateGarbageLeftOut(t *testing.T) {
	f := newFakeKernels(nil)
	k := &garbageEstimator{fakeKernel: fakeKernel{f: f, id: "small"}, garbage: 256 << 20}
	out := runOnce(context.Background(), k, nil, kernels.Explicit, Limits{Memory: 8 << 30}, 1, heapSampling{}, nil, runBufs{})
	if out.status != StatusOK {
		t.Fatalf("status %q", out.status)
	}
	if out.peak > out.heapBase+64<<20 {
		t.Errorf("peak %d MiB over a base of %d MiB: the estimate's 256 MiB of garbage counted", out.peak>>20, out.heapBase>>20)
	}
}

// TestRunReuse runs the walk kernel's explicit method on MUTAG at length 7
// with and without measure.reuse, and checks that only with it does a run
// start with the last run's buffers in its heap base (a few MiB), and that
// the results folder says which.
func TestRunReuse(t *testing.T) {
	dir := graphtest.DataDir()
	if _, err := os.Stat(filepath.Join(dir, "MUTAG")); err != nil {
		t.Skipf("MUTAG not found: %v", err)
	}
	// The runner looks for the data from the working directory, the
	// package's in a test; graphtest looks from the module's root.
	t.Setenv("GKBENCH_DATA", dir)
	const spec = `name: reuse
seed: 1
data:
  dataset: MUTAG
kernels:
  - name: walk
    params: {length: 7}
methods: [explicit]
measure: {repetitions: 3, reuse: %t}
limits: {time: 60s, memory: 4GiB}
`
	for _, reuse := range []bool{false, true} {
		t.Run(fmt.Sprintf("reuse=%t", reuse), func(t *testing.T) {
			p := fakePlan(t, fmt.Sprintf(spec, reuse), Full)
			r := &Runner{Kernels: Registry{}, Data: &StdData{}}
			res, err := r.Run(context.Background(), p, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			rows := readRows(t, res.Dir)
			if len(rows) != 3 {
				t.Fatalf("%d rows, want 3", len(rows))
			}
			for _, row := range rows {
				if row.Status != StatusOK {
					t.Fatalf("run %d: status %q", row.Rep, row.Status)
				}
			}
			// The buffers of MUTAG at length 7 take 2.5–3 MiB; the
			// heap base otherwise moves by a few KiB.
			grew := int64(rows[2].HeapBase) - int64(rows[0].HeapBase)
			if reuse && grew < 1<<20 || !reuse && grew > 1<<19 {
				t.Errorf("heap base of the third run %d bytes over the first's, reuse %t", grew, reuse)
			}
			meta, err := os.ReadFile(filepath.Join(res.Dir, "meta.json"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(meta), `"reuse": true`); got != reuse {
				t.Errorf("meta.json says reuse %t, want %t", got, reuse)
			}
		})
	}
}

// TestGCFloor checks that the runner's ballast spares a run that leaves
// less garbage than the floor every collection, and that the heap it
// records leaves the ballast out. Without a floor, or with one capped at a
// sixteenth of a small memory limit, the 128 MiB of garbage of each run
// take the collector past its goal, twice a live heap of a few MiB, several
// times, and half the floor stays below the goal with it: with 32 MiB,
// the one collection started near a run's end had not completed by then
// in 4 of 100 runs beside two busy loops, which failed the test in CI,
// and with 64 MiB now and then in a run of the whole suite beside one.
func TestGCFloor(t *testing.T) {
	const garbage = 128 << 20
	tests := []struct {
		name   string
		floor  int64
		memory int64
		want   bool // runs without a collection
	}{
		{"no floor", 0, 0, false},
		{"floor", 256 << 20, 0, true},
		{"floor capped by the limit", 256 << 20, 128 << 20, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fakePlan(t, fakeSpec, Quick)
			p.Cells = p.Cells[:1]
			p.Limits = Limits{Time: time.Minute, Memory: tt.memory}
			var mu sync.Mutex
			var cycles []uint64
			fk := newFakeKernels(func(ctx context.Context, m kernels.Method) error {
				before := gcCycles()
				var sink []byte
				for range garbage / (64 << 10) {
					sink = make([]byte, 64<<10)
				}
				runtime.KeepAlive(sink)
				mu.Lock()
				cycles = append(cycles, gcCycles()-before)
				mu.Unlock()
				return nil
			})
			r := &Runner{Kernels: fk, Data: &fakeData{}, GCFloor: tt.floor}
			res, err := r.Run(context.Background(), p, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if len(cycles) == 0 {
				t.Fatal("no run")
			}
			for i, c := range cycles {
				if (c == 0) != tt.want {
					t.Errorf("run %d: %d collections", i, c)
				}
			}
			for _, row := range readRows(t, res.Dir) {
				// The fake kernel keeps nothing: the heap before a run is
				// the test's, a few MiB, and its peak the garbage's.
				if row.HeapBase >= 16<<20 || row.PeakHeap >= 192<<20 {
					t.Errorf("%s rep %d: heap base %d, peak %d: the ballast counted?", row.Method, row.Rep, row.HeapBase, row.PeakHeap)
				}
			}
		})
	}
}

// gcCycles returns the number of completed collections.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestCPUColumn checks that a run records the process's CPU time, not its
// wall time: a kernel that sleeps 50 ms uses next to none, and one that
// burns 10 ms of CPU, as kernels.ProcessCPU counts it, records at least
// that much.
func TestCPUColumn(t *testing.T) {
	if _, ok := kernels.ProcessCPU(); !ok {
		t.Skip("no CPU time on this platform")
	}
	tests := []struct {
		name  string
		burn  bool
		check func(cpu, wall time.Duration) bool
	}{
		{"sleeps", false, func(cpu, wall time.Duration) bool { return wall >= 50*time.Millisecond && cpu < 25*time.Millisecond }},
		{"burns", true, func(cpu, wall time.Duration) bool {
			return cpu >= 10*time.Millisecond && cpu <= wall*time.Duration(runtime.NumCPU()+1)
		}},
	}
	gs := []*graph.Graph{graphtest.Random(rand.New(rand.NewPCG(1, 2)), 3, 0.5, 1, 1)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newFakeKernels(func(ctx context.Context, _ kernels.Method) error {
				if !tt.burn {
					time.Sleep(50 * time.Millisecond)
					return nil
				}
				c0, _ := kernels.ProcessCPU()
				for {
					if c, _ := kernels.ProcessCPU(); c-c0 >= 10*time.Millisecond {
						return nil
					}
				}
			})
			kern, _ := k.New("fake", nil)
			out := runOnce(context.Background(), kern, gs, kernels.Explicit, Limits{}, 1, heapSampling{}, nil, runBufs{})
			if out.status != StatusOK {
				t.Fatalf("status %q", out.status)
			}
			if !tt.check(out.cpu, out.wall) {
				t.Errorf("cpu %v, wall %v", out.cpu, out.wall)
			}
		})
	}
}

// TestC2CColumn checks that a run records the round trip between cores
// measured before it, on one thread as on two, where the process has
// two cores (runexp speedup pairs the runs by it).
func TestC2CColumn(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one thread at a time")
	}
	gs := []*graph.Graph{graphtest.Random(rand.New(rand.NewPCG(1, 2)), 3, 0.5, 1, 1)}
	k := newFakeKernels(func(context.Context, kernels.Method) error { return nil })
	kern, _ := k.New("fake", nil)
	for _, threads := range []int{1, 2} {
		// The probe gives up where the second thread finds no core of
		// its own, as where go test runs another package's tests beside
		// this one: one run in 10 s must measure.
		var out outcome
		for start := time.Now(); ; {
			out = runOnce(context.Background(), kern, gs, kernels.Explicit, Limits{}, threads, heapSampling{}, nil, runBufs{})
			if out.c2c > 0 || time.Since(start) > 10*time.Second {
				break
			}
		}
		if out.status != StatusOK {
			t.Fatalf("%d threads: status %q", threads, out.status)
		}
		// A round trip takes tens to hundreds of nanoseconds: more
		// than 10 ns, under 100 µs even on a loaded machine.
		if out.c2c < 10*time.Nanosecond || out.c2c > 100*time.Microsecond {
			t.Errorf("%d threads: c2c %v", threads, out.c2c)
		}
	}
}

// TestCoresMedian checks summary.csv's cores_median, the median of
// t_cpu/t_wall over the rows that know their CPU time, and c2c_median_ns,
// the median of t_c2c in nanoseconds over the rows that know it, worked
// out by hand.
func TestCoresMedian(t *testing.T) {
	tests := []struct {
		name   string
		median func([]*Row) string
		rows   []Row
		want   string
	}{
		{"cores/none", coresMedian, nil, ""},
		{"cores/unknown", coresMedian, []Row{{Wall: 1}, {Wall: 2}}, ""},
		{"cores/odd", coresMedian, []Row{{Wall: 1, CPU: 2}, {Wall: 2, CPU: 2}, {Wall: 4, CPU: 7}}, "1.75"},
		// (1.9 + 1.1)/2; the row without CPU time is left out.
		{"cores/even", coresMedian, []Row{{Wall: 1, CPU: 1.9}, {Wall: 1, CPU: 1.1}, {Wall: 3}}, "1.50"},
		{"c2c/none", c2cMedian, nil, ""},
		{"c2c/unknown", c2cMedian, []Row{{Wall: 1}, {Wall: 2}}, ""},
		{"c2c/odd", c2cMedian, []Row{{C2C: 80e-9}, {C2C: 400e-9}, {C2C: 90e-9}}, "90"},
		// (80 + 104)/2; the row without it is left out.
		{"c2c/even", c2cMedian, []Row{{C2C: 80e-9}, {C2C: 104e-9}, {Wall: 1}}, "92"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rs []*Row
			for i := range tt.rows {
				rs = append(rs, &tt.rows[i])
			}
			if got := tt.median(rs); got != tt.want {
				t.Errorf("median = %q, want %q", got, tt.want)
			}
		})
	}
}
