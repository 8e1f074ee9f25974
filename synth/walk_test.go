package synth

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gkbench/gkbench/graph"
)

func mustWalk(t *testing.T, cfg WalkConfig, d int, seed uint64) *graph.Dataset {
	t.Helper()
	ds, err := Walk(cfg, d, seed)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// tuFiles writes ds with graph.WriteTU and returns its files by name.
func tuFiles(t *testing.T, ds *graph.Dataset) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	if err := graph.WriteTU(dir, ds); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// digestFiles hashes files in name order, each as name, NUL, length, content,
// so that moving bytes between files changes the digest.
func digestFiles(files map[string][]byte) string {
	h := sha256.New()
	var n [8]byte
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	}) {
		h.Write([]byte(name))
		h.Write([]byte{0})
		binary.LittleEndian.PutUint64(n[:], uint64(len(files[name])))
		h.Write(n[:])
		h.Write(files[name])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// digestGraphs hashes the graphs themselves, independent of the TU writer,
// so that a change of the golden TU digest can be blamed on either the
// generator or the writer.
func digestGraphs(ds *graph.Dataset) string {
	h := sha256.New()
	put := func(x int32) { binary.Write(h, binary.LittleEndian, x) }
	for _, g := range ds.Graphs {
		put(int32(g.N()))
		for _, l := range g.Labels {
			put(l)
		}
		for _, o := range g.Offsets {
			put(o)
		}
		for _, u := range g.Adj {
			put(u)
		}
		for _, l := range g.EdgeLabels {
			put(l)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestWalkDeterministicTU(t *testing.T) {
	cfg := WalkConfig{PV: 0.3}
	a := tuFiles(t, mustWalk(t, cfg, 40, 42))
	b := tuFiles(t, mustWalk(t, cfg, 40, 42))
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("runs wrote %d and %d files", len(a), len(b))
	}
	for name, content := range a {
		if !bytes.Equal(content, b[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}

// TestWalkGolden pins the stream order: any change to the order or number of
// draws, the stream constant or the Poisson sampler changes these digests.
// The values were computed once from this implementation. If only the TU
// digest changes, graph.WriteTU changed its output, not the generator.
func TestWalkGolden(t *testing.T) {
	const (
		wantGraphs = "2802263320419ed00ea03f3707bd328d1eb692eb5f6007fb3e1baca0fdddec56"
		wantTU     = "cdc19511ac5b304c26c52f88367cd310c074a09161b5b4bb2ca1144cbba8e923"
	)
	ds := mustWalk(t, WalkConfig{PV: 0.3}, 5, 1)
	// Logged so that a failure shows what the generator produces now.
	for i, g := range ds.Graphs {
		t.Logf("graph %d: n=%d m=%d labels=%v", i, g.N(), g.M(), g.Labels)
	}
	if got := digestGraphs(ds); got != wantGraphs {
		t.Errorf("graph digest %s, want %s", got, wantGraphs)
	}
	if got := digestFiles(tuFiles(t, ds)); got != wantTU {
		t.Errorf("TU digest %s, want %s", got, wantTU)
	}
}

func TestWalkDataset(t *testing.T) {
	for _, tc := range []struct {
		cfg  WalkConfig
		d    int
		seed uint64
		name string
	}{
		{WalkConfig{PV: 0.3}, 100, 1, "walk-pv0.3-d100-seed1"},
		// MeanVertices 20 and EdgeProb 0.1 are the defaults spelled out,
		// hence the same data set and the same name.
		{WalkConfig{PV: 0, MeanVertices: 20, EdgeProb: 0.1}, 3, 9, "walk-pv0-d3-seed9"},
		{WalkConfig{PV: 1, MeanVertices: 30, EdgeProb: 0.25}, 2, 0, "walk-pv1-d2-seed0-n30-ep0.25"},
		{WalkConfig{PV: 0.5}, 0, 5, "walk-pv0.5-d0-seed5"},
	} {
		ds := mustWalk(t, tc.cfg, tc.d, tc.seed)
		if ds.Name != tc.name {
			t.Errorf("name %q, want %q", ds.Name, tc.name)
		}
		if ds.Len() != tc.d || len(ds.Classes) != tc.d {
			t.Errorf("%s: %d graphs and %d classes, want %d", tc.name, ds.Len(), len(ds.Classes), tc.d)
		}
		for i, c := range ds.Classes {
			if c != 0 {
				t.Errorf("%s: graph %d has class %d, want 0", tc.name, i, c)
			}
		}
		if !slices.Equal(ds.NodeLabels, []int64{0, 1, 2}) || !slices.Equal(ds.EdgeLabels, []int64{0}) || ds.AttrDim != 0 {
			t.Errorf("%s: dictionaries %v %v, attr dim %d", tc.name, ds.NodeLabels, ds.EdgeLabels, ds.AttrDim)
		}
		for i, g := range ds.Graphs {
			for _, l := range g.EdgeLabels {
				if l != 0 {
					t.Fatalf("%s: graph %d has edge label %d", tc.name, i, l)
				}
			}
		}
	}
}

// walkCounts sums the quantities the statistical tests need.
type walkCounts struct {
	vertices, pairs, edges int
	label                  [3]int
}

func count(ds *graph.Dataset) walkCounts {
	var c walkCounts
	for _, g := range ds.Graphs {
		n := g.N()
		c.vertices += n
		c.pairs += n * (n - 1) / 2
		c.edges += g.M()
		for _, l := range g.Labels {
			c.label[l]++
		}
	}
	return c
}

// within fails unless got is within k standard errors of want. The data are
// fixed by the seed, so this cannot flake; k = 4 leaves room for other seeds
// while still catching a wrong parameter.
func within(t *testing.T, what string, got, want, se float64) {
	t.Helper()
	const k = 4
	if math.Abs(got-want) > k*se {
		t.Errorf("%s = %.5f, want %.5f ± %d·%.5f", what, got, want, k, se)
	}
}

func TestWalkVerticesAndEdges(t *testing.T) {
	const d = 2000
	c := count(mustWalk(t, WalkConfig{PV: 0.3}, d, 7))
	// |V| ~ Poisson(20) has variance 20, so the mean of d draws has standard
	// error sqrt(20/d) = 0.1.
	within(t, "mean |V|", float64(c.vertices)/d, 20, math.Sqrt(20.0/d))
	// Given the vertex counts, the edges are Binomial(pairs, 0.1), so the
	// density has standard error sqrt(0.1·0.9/pairs) (≈ 0.0005 for the
	// ≈ 4·10⁵ pairs).
	within(t, "edge density", float64(c.edges)/float64(c.pairs), 0.1, math.Sqrt(0.1*0.9/float64(c.pairs)))

	// The non-default parameters are honoured the same way.
	c = count(mustWalk(t, WalkConfig{MeanVertices: 8, EdgeProb: 0.5}, d, 8))
	within(t, "mean |V| (mean 8)", float64(c.vertices)/d, 8, math.Sqrt(8.0/d))
	within(t, "edge density (0.5)", float64(c.edges)/float64(c.pairs), 0.5, math.Sqrt(0.5*0.5/float64(c.pairs)))
}

func TestWalkLabels(t *testing.T) {
	const d = 2000
	for _, pv := range []float64{0, 0.3, 1} {
		c := count(mustWalk(t, WalkConfig{PV: pv}, d, 11))
		n := float64(c.vertices)
		nonzero := c.label[1] + c.label[2]
		switch pv {
		case 0:
			// x < 0 never holds: every vertex has label 0.
			if nonzero != 0 {
				t.Errorf("PV=0: %d vertices with a non-zero label", nonzero)
			}
		case 1:
			// x < 1 always holds: no vertex has label 0.
			if c.label[0] != 0 {
				t.Errorf("PV=1: %d vertices with label 0", c.label[0])
			}
		default:
			// Each vertex has label 0 independently with probability
			// 1-PV: binomial standard error sqrt(PV(1-PV)/n) ≈ 0.0023.
			within(t, "fraction of label 0", float64(c.label[0])/n, 1-pv, math.Sqrt(pv*(1-pv)/n))
		}
		if nonzero > 0 {
			// Given a non-zero label, 1 and 2 are equally likely: the
			// share of 1 has standard error sqrt(0.25/nonzero).
			within(t, "share of label 1 among non-zero", float64(c.label[1])/float64(nonzero), 0.5, math.Sqrt(0.25/float64(nonzero)))
		}
	}
}

// TestWalkNested checks the paper's growing data sets: d=50 is a prefix of
// d=80 because graphs are drawn one after another from the same stream.
func TestWalkNested(t *testing.T) {
	cfg := WalkConfig{PV: 0.4}
	small, large := mustWalk(t, cfg, 50, 3), mustWalk(t, cfg, 80, 3)
	for i, g := range small.Graphs {
		if !reflect.DeepEqual(g, large.Graphs[i]) {
			t.Fatalf("graph %d differs between d=50 and d=80", i)
		}
	}
	other := mustWalk(t, cfg, 50, 4)
	if reflect.DeepEqual(small.Graphs, other.Graphs) {
		t.Error("seeds 3 and 4 gave the same graphs")
	}
}

// TestWalkStructureIndependentOfPV checks the documented coupling: one label
// variate per vertex whatever PV is, so the structure depends on the seed
// only, and a non-zero label at PV=0.3 stays non-zero at PV=0.7.
func TestWalkStructureIndependentOfPV(t *testing.T) {
	lo, hi := mustWalk(t, WalkConfig{PV: 0.3}, 100, 5), mustWalk(t, WalkConfig{PV: 0.7}, 100, 5)
	for i, g := range lo.Graphs {
		h := hi.Graphs[i]
		if !slices.Equal(g.Offsets, h.Offsets) || !slices.Equal(g.Adj, h.Adj) {
			t.Fatalf("graph %d: structure depends on PV", i)
		}
		for v, l := range g.Labels {
			if l != 0 && h.Labels[v] == 0 {
				t.Fatalf("graph %d vertex %d: label %d at PV=0.3 but 0 at PV=0.7", i, v, l)
			}
		}
	}
}

func TestWalkConfigErrors(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		cfg   WalkConfig
		d     int
		field string
	}{
		{WalkConfig{PV: -0.1}, 1, "PV"},
		{WalkConfig{PV: 1.5}, 1, "PV"},
		{WalkConfig{PV: nan}, 1, "PV"},
		{WalkConfig{MeanVertices: -1}, 1, "MeanVertices"},
		{WalkConfig{MeanVertices: nan}, 1, "MeanVertices"},
		{WalkConfig{MeanVertices: math.Inf(1)}, 1, "MeanVertices"},
		{WalkConfig{EdgeProb: -0.5}, 1, "EdgeProb"},
		{WalkConfig{EdgeProb: 1.01}, 1, "EdgeProb"},
		{WalkConfig{EdgeProb: nan}, 1, "EdgeProb"},
		{WalkConfig{}, -1, "d ="},
	} {
		_, err := Walk(tc.cfg, tc.d, 1)
		if err == nil {
			t.Errorf("%+v d=%d: no error", tc.cfg, tc.d)
			continue
		}
		if !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%+v d=%d: error %q does not name %s", tc.cfg, tc.d, err, tc.field)
		}
	}
}

func BenchmarkWalk(b *testing.B) {
	for b.Loop() {
		if _, err := Walk(WalkConfig{PV: 0.3}, 300, 1); err != nil {
			b.Fatal(err)
		}
	}
}
