package graph

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// moduleRoot walks up from the working directory (the package folder under
// go test) to the folder holding go.mod.
func moduleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// testDataDirs returns where the tests look for the real data sets: the
// entries of $GKBENCH_DATA, then <module root>/../shared/data. The default
// "../shared/data" of DataDirs is relative to the module root, but tests run
// one folder deeper, hence the walk up to go.mod.
func testDataDirs(t testing.TB) []string {
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv(DataEnv)) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	return append(dirs, filepath.Join(moduleRoot(t), "..", "shared", "data"))
}

// realDataSet returns the folder of a real data set, or skips the test when
// it cannot be found, saying where it looked.
func realDataSet(t testing.TB, name string) string {
	t.Helper()
	dirs := testDataDirs(t)
	for _, d := range dirs {
		if _, err := os.Stat(tuPath(filepath.Join(d, name), name, "A")); err == nil {
			return filepath.Join(d, name)
		}
	}
	t.Skipf("data set %s not found: looked for %s/%s_A.txt in %s (set %s to the data folder)",
		name, name, name, strings.Join(dirs, ", "), DataEnv)
	return ""
}

// realSets are the seven data sets of /work/shared/data.
var realSets = []string{"MUTAG", "ENZYMES", "PROTEINS", "SYNTHETICnew", "Synthie", "U251", "NCI1"}

func TestReadTURealStats(t *testing.T) {
	// Expected values: "README" is /work/shared/data/README.md (its table
	// and the "Verified:" line of each data set); "verify" is the output of
	// `python3 verify_tu.py MUTAG ENZYMES PROTEINS SYNTHETICnew Synthie U251
	// NCI1`, the reference checker in the same folder, for the numbers the
	// README does not spell out (totals, isolated vertices, U251/NCI1 ranges).
	type want struct {
		stats            Stats
		minV, maxV       int
		minE, maxE       int
		totalV, totalE   int
		isolated         int
		classCounts      map[int64]int
		nodeDict, edgeOK bool // whether the files carry labels
	}
	cases := []struct {
		name string
		want want
	}{
		{"MUTAG", want{
			// README table; README "Verified:" line for ranges and classes.
			stats: Stats{Graphs: 188, Classes: 2, AvgV: 17.931, AvgE: 19.793, VertexLabels: 7, EdgeLabels: 4},
			minV:  10, maxV: 28, minE: 10, maxE: 33,
			classCounts: map[int64]int{1: 125, -1: 63},
			// verify: "vertices (total)", "undirected edges", "isolated vertices".
			totalV: 3371, totalE: 3721, isolated: 0,
			nodeDict: true, edgeOK: true,
		}},
		{"ENZYMES", want{
			// README table; README "Verified:" (2..126, 1..149, 6 classes
			// of 100 each, 106 isolated vertices).
			stats: Stats{Graphs: 600, Classes: 6, AvgV: 32.633, AvgE: 62.137, VertexLabels: 3, AttrDim: 18},
			minV:  2, maxV: 126, minE: 1, maxE: 149,
			classCounts: map[int64]int{1: 100, 2: 100, 3: 100, 4: 100, 5: 100, 6: 100},
			isolated:    106,
			// verify.
			totalV: 19580, totalE: 37282,
			nodeDict: true,
		}},
		{"PROTEINS", want{
			// README table; README "Verified:" (4..620, 5..1049, 1: 663, 2: 450).
			stats: Stats{Graphs: 1113, Classes: 2, AvgV: 39.058, AvgE: 72.816, VertexLabels: 3, AttrDim: 1},
			minV:  4, maxV: 620, minE: 5, maxE: 1049,
			classCounts: map[int64]int{1: 663, 2: 450},
			// verify.
			totalV: 43471, totalE: 81044, isolated: 5,
			nodeDict: true,
		}},
		{"SYNTHETICnew", want{
			// README table; README "Verified:" (100..100, 196..198, 150 each).
			stats: Stats{Graphs: 300, Classes: 2, AvgV: 100, AvgE: 196.25, AttrDim: 1},
			minV:  100, maxV: 100, minE: 196, maxE: 198,
			classCounts: map[int64]int{1: 150, -1: 150},
			// verify.
			totalV: 30000, totalE: 58875, isolated: 0,
		}},
		{"Synthie", want{
			// README table: 172.928 edges, not 202.2, because repeated
			// lines of A.txt are one edge; README "Verified:" (90..100,
			// 139..212, classes, 1361 isolated vertices).
			stats: Stats{Graphs: 400, Classes: 4, AvgV: 95, AvgE: 172.928, AttrDim: 15},
			minV:  90, maxV: 100, minE: 139, maxE: 212,
			classCounts: map[int64]int{0: 93, 1: 107, 2: 110, 3: 90},
			isolated:    1361,
			// verify.
			totalV: 38000, totalE: 69171,
		}},
		{"U251", want{
			// README table; README "Verified:" for the classes
			// (1 = "+": 2043, -1 = "-": 1710).
			stats:       Stats{Graphs: 3753, Classes: 2, AvgV: 23.005, AvgE: 24.8, VertexLabels: 49, EdgeLabels: 5},
			classCounts: map[int64]int{1: 2043, -1: 1710},
			// verify (the README gives no ranges for U251).
			minV: 3, maxV: 114, minE: 2, maxE: 123,
			totalV: 86339, totalE: 93075, isolated: 0,
			nodeDict: true, edgeOK: true,
		}},
		{"NCI1", want{
			// README table; README "Verified:" for the classes.
			stats:       Stats{Graphs: 4110, Classes: 2, AvgV: 29.865, AvgE: 32.3, VertexLabels: 37},
			classCounts: map[int64]int{0: 2053, 1: 2057},
			// verify (the README gives no ranges for NCI1).
			minV: 3, maxV: 111, minE: 2, maxE: 119,
			totalV: 122747, totalE: 132753, isolated: 428,
			nodeDict: true,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := realDataSet(t, c.name)
			d, err := ReadTU(dir, c.name)
			if err != nil {
				t.Fatal(err)
			}
			s := d.Stats()
			got3 := func(x float64) string { return fmt.Sprintf("%.3f", x) }
			if s.Graphs != c.want.stats.Graphs || s.Classes != c.want.stats.Classes ||
				got3(s.AvgV) != got3(c.want.stats.AvgV) || got3(s.AvgE) != got3(c.want.stats.AvgE) ||
				s.VertexLabels != c.want.stats.VertexLabels || s.EdgeLabels != c.want.stats.EdgeLabels ||
				s.AttrDim != c.want.stats.AttrDim {
				t.Errorf("stats = %+v, want %+v (averages to 3 decimals)", s, c.want.stats)
			}
			minV, maxV, minE, maxE := math.MaxInt, 0, math.MaxInt, 0
			totalV, totalE, isolated := 0, 0, 0
			for _, g := range d.Graphs {
				minV, maxV = min(minV, g.N()), max(maxV, g.N())
				minE, maxE = min(minE, g.M()), max(maxE, g.M())
				totalV += g.N()
				totalE += g.M()
				for v := 0; v < g.N(); v++ {
					if g.Degree(v) == 0 {
						isolated++
					}
				}
				if g.AttrDim != d.AttrDim || len(g.Attrs) != g.N()*d.AttrDim {
					t.Fatalf("graph attribute layout %d/%d for dim %d", len(g.Attrs), g.AttrDim, d.AttrDim)
				}
			}
			if minV != c.want.minV || maxV != c.want.maxV || minE != c.want.minE || maxE != c.want.maxE {
				t.Errorf("|V| in %d..%d, |E| in %d..%d; want %d..%d, %d..%d",
					minV, maxV, minE, maxE, c.want.minV, c.want.maxV, c.want.minE, c.want.maxE)
			}
			if totalV != c.want.totalV || totalE != c.want.totalE || isolated != c.want.isolated {
				t.Errorf("total |V| %d, |E| %d, isolated %d; want %d, %d, %d",
					totalV, totalE, isolated, c.want.totalV, c.want.totalE, c.want.isolated)
			}
			counts := make(map[int64]int)
			for _, cl := range d.Classes {
				counts[cl]++
			}
			if !reflect.DeepEqual(counts, c.want.classCounts) {
				t.Errorf("class counts %v, want %v", counts, c.want.classCounts)
			}
			if (d.NodeLabels != nil) != c.want.nodeDict || (d.EdgeLabels != nil) != c.want.edgeOK {
				t.Errorf("dictionaries present: node %v edge %v; want %v %v",
					d.NodeLabels != nil, d.EdgeLabels != nil, c.want.nodeDict, c.want.edgeOK)
			}
			if !slices.IsSorted(d.NodeLabels) || !slices.IsSorted(d.EdgeLabels) {
				t.Errorf("dictionaries not ascending: %v %v", d.NodeLabels, d.EdgeLabels)
			}
		})
	}
}

// TestReadTUMUTAGFirstGraph pins the mapping of file ids to graph contents
// on the first MUTAG graph, whose lines can be checked by hand.
func TestReadTUMUTAGFirstGraph(t *testing.T) {
	dir := realDataSet(t, "MUTAG")
	d, err := ReadTU(dir, "MUTAG")
	if err != nil {
		t.Fatal(err)
	}
	// MUTAG/README.txt: node labels 0 C .. 6 Br, edge labels 0 aromatic ..
	// 3 triple; the values are already 0..k-1, so ids equal values.
	if want := []int64{0, 1, 2, 3, 4, 5, 6}; !slices.Equal(d.NodeLabels, want) {
		t.Errorf("node dictionary %v, want %v", d.NodeLabels, want)
	}
	if want := []int64{0, 1, 2, 3}; !slices.Equal(d.EdgeLabels, want) {
		t.Errorf("edge dictionary %v, want %v", d.EdgeLabels, want)
	}
	g := d.Graphs[0]
	// MUTAG_graph_indicator.txt: graph 1 is nodes 1..17; MUTAG_A.txt line 1
	// is "2, 1" with MUTAG_edge_labels.txt line 1 = 0 (aromatic).
	if g.N() != 17 || d.Classes[0] != 1 {
		t.Fatalf("graph 1: %d vertices, class %d; want 17, 1", g.N(), d.Classes[0])
	}
	if nb := g.Neighbors(0); len(nb) == 0 || nb[0] != 1 || g.NeighborEdgeLabels(0)[0] != 0 {
		t.Errorf("vertex 0: neighbours %v labels %v, want first neighbour 1 with label 0", nb, g.NeighborEdgeLabels(0))
	}
}

// tuFixture is a small valid data set "T" as file contents, keyed by the
// file suffix; tests edit it to break one thing at a time.
func tuFixture() map[string]string {
	return map[string]string{
		"A":               "1, 2\n2, 1\n2, 3\n3, 2\n4, 5\n5, 4\n",
		"graph_indicator": "1\n1\n1\n2\n2\n",
		"graph_labels":    "1\n-1\n",
		"node_labels":     "3\n7\n3\n5\n7\n",
		"edge_labels":     "0\n0\n1\n1\n2\n2\n",
		"node_attributes": "1.5, 2\n0, -1\n3, 3\n4, 4e3\n5, 5\n",
	}
}

// tuFixtureDataset is what ReadTU must return for tuFixture.
func tuFixtureDataset(t testing.TB) *Dataset {
	g1, err := Build([]int32{0, 2, 0}, []Edge{{0, 1, 0}, {1, 2, 1}}, []float64{1.5, 2, 0, -1, 3, 3}, 2)
	if err != nil {
		t.Fatal(err)
	}
	g2, err := Build([]int32{1, 2}, []Edge{{0, 1, 2}}, []float64{4, 4000, 5, 5}, 2)
	if err != nil {
		t.Fatal(err)
	}
	return &Dataset{
		Name: "T", Graphs: []*Graph{g1, g2}, Classes: []int64{1, -1},
		NodeLabels: []int64{3, 5, 7}, EdgeLabels: []int64{0, 1, 2}, AttrDim: 2,
	}
}

// writeFixture writes files (suffix -> content) for data set "T" into dir.
func writeFixture(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for suffix, content := range files {
		if err := os.WriteFile(tuPath(dir, "T", suffix), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadTUFixture(t *testing.T) {
	dir := t.TempDir()
	writeFixture(t, dir, tuFixture())
	d, err := ReadTU(dir, "T")
	if err != nil {
		t.Fatal(err)
	}
	if want := tuFixtureDataset(t); !reflect.DeepEqual(d, want) {
		t.Errorf("ReadTU = %+v\nwant %+v", d, want)
	}
}

// TestReadTUTolerated covers the deviations from the canonical layout that
// real files have and that must not change the result.
func TestReadTUTolerated(t *testing.T) {
	crlf := func(files map[string]string) map[string]string {
		for k, v := range files {
			files[k] = strings.ReplaceAll(v, "\n", "\r\n")
		}
		return files
	}
	cases := []struct {
		name  string
		edit  func(map[string]string) map[string]string
		check func(t *testing.T, d *Dataset)
	}{
		{"CRLF", crlf, nil},
		{"trailing blanks and empty lines", func(f map[string]string) map[string]string {
			for k, v := range f {
				f[k] = strings.ReplaceAll(v, "\n", " \t\n") + "\n\n"
			}
			return f
		}, nil},
		{"CRLF and trailing CRLF line", func(f map[string]string) map[string]string {
			f = crlf(f)
			f["A"] += "\r\n"
			return f
		}, nil},
		{"no final newline", func(f map[string]string) map[string]string {
			for k, v := range f {
				f[k] = strings.TrimSuffix(v, "\n")
			}
			return f
		}, nil},
		{"spacing inside fields as in ENZYMES and NCI1", func(f map[string]string) map[string]string {
			f["A"] = "1,2\n 2 ,1\n2,  3\n3,\t2\n4,5\n5,4\n"
			f["node_attributes"] = " 1.5,2\n0,  -1\n 3.000000, 3\n4, 4000.0\n 5,5\n"
			return f
		}, nil},
		{"one direction only and repeats collapse", func(f map[string]string) map[string]string {
			// Like Synthie: repeats; like hand-made files: one direction.
			f["A"] = "1, 2\n1, 2\n2, 1\n3, 2\n5, 4\n4, 5\n4, 5\n"
			f["edge_labels"] = "0\n0\n0\n1\n2\n2\n2\n"
			return f
		}, nil},
		{"interleaved graph indicator", func(f map[string]string) map[string]string {
			// Graph 1 is nodes 1, 3, 5 (local 0, 1, 2), graph 2 nodes 2, 4.
			f["graph_indicator"] = "1\n2\n1\n2\n1\n"
			f["A"] = "1, 3\n3, 1\n3, 5\n5, 3\n2, 4\n4, 2\n"
			f["node_labels"] = "3\n5\n7\n7\n3\n"
			f["node_attributes"] = "1.5, 2\n4, 4e3\n0, -1\n5, 5\n3, 3\n"
			return f
		}, nil},
		{"no optional files", func(f map[string]string) map[string]string {
			delete(f, "node_labels")
			delete(f, "edge_labels")
			delete(f, "node_attributes")
			return f
		}, func(t *testing.T, d *Dataset) {
			if d.NodeLabels != nil || d.EdgeLabels != nil || d.AttrDim != 0 {
				t.Errorf("dictionaries %v %v, dim %d; want nil, nil, 0", d.NodeLabels, d.EdgeLabels, d.AttrDim)
			}
			for _, g := range d.Graphs {
				if g.Attrs != nil || slices.ContainsFunc(g.Labels, func(l int32) bool { return l != 0 }) ||
					slices.ContainsFunc(g.EdgeLabels, func(l int32) bool { return l != 0 }) {
					t.Errorf("graph has labels %v / %v, attrs %v; want uniform 0 and nil", g.Labels, g.EdgeLabels, g.Attrs)
				}
			}
			if d.Graphs[0].M() != 2 || d.Graphs[1].M() != 1 {
				t.Errorf("edges %d, %d; want 2, 1", d.Graphs[0].M(), d.Graphs[1].M())
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFixture(t, dir, c.edit(tuFixture()))
			d, err := ReadTU(dir, "T")
			if err != nil {
				t.Fatal(err)
			}
			if c.check != nil {
				c.check(t, d)
				return
			}
			if want := tuFixtureDataset(t); !reflect.DeepEqual(d, want) {
				t.Errorf("ReadTU = %+v\nwant %+v", d, want)
			}
		})
	}
}

// TestReadTUMalformed breaks the fixture in one way per case and checks that
// the error names the file and line and says what is wrong.
func TestReadTUMalformed(t *testing.T) {
	const missing = "\x00missing" // marks a file to delete
	set := func(suffix, content string) func(map[string]string) {
		return func(f map[string]string) { f[suffix] = content }
	}
	cases := []struct {
		name string
		edit func(map[string]string)
		file string // suffix of the file the error must name
		line int    // line the error must name; 0 = none (missing file)
		msg  string // part of the message
	}{
		// A.txt
		{"A non-numeric", set("A", "1, 2\n2, 1\n2, x\n3, 2\n4, 5\n5, 4\n"), "A", 3, `node id "x" is not an integer`},
		{"A missing field", set("A", "1, 2\n2, 1\n2,\n3, 2\n4, 5\n5, 4\n"), "A", 3, `node id "" is not an integer`},
		{"A one field", set("A", "1, 2\n2\n"), "A", 2, "want 2 comma-separated node ids, got 1 fields"},
		{"A three fields", set("A", "1, 2, 3\n"), "A", 1, "got 3 fields"},
		{"A id too large", set("A", "1, 2\n2, 9\n"), "A", 2, "node id 9 out of range [1,5]"},
		{"A id zero", set("A", "0, 1\n"), "A", 1, "node id 0 out of range [1,5]"},
		{"A id negative", set("A", "1, 2\n-2, 1\n"), "A", 2, "node id -2 out of range"},
		{"A id overflows int64", set("A", "1, 99999999999999999999\n"), "A", 1, "is not an integer"},
		{"A float id", set("A", "1.0, 2\n"), "A", 1, `node id "1.0" is not an integer`},
		{"A byte order mark", set("A", "\ufeff1, 2\n"), "A", 1, "is not an integer"},
		{"A self-loop", set("A", "1, 2\n2, 1\n2, 2\n"), "A", 3, "self-loop at node 2"},
		{"A edge between graphs", set("A", "1, 2\n2, 1\n3, 4\n"), "A", 3, "edge joins node 3 of graph 1 and node 4 of graph 2"},
		{"A empty line inside", set("A", "1, 2\n\n2, 1\n"), "A", 2, "empty line"},
		{"A line too long", set("A", strings.Repeat("1", maxTULine+10)+"\n"), "A", 1, "line longer than"},
		// graph_indicator
		{"indicator non-numeric", set("graph_indicator", "1\none\n1\n2\n2\n"), "graph_indicator", 2, `graph id "one" is not an integer`},
		{"indicator graph id out of range", set("graph_indicator", "1\n1\n1\n2\n3\n"), "graph_indicator", 5, "graph id 3 out of range [1,2]"},
		{"indicator graph id zero", set("graph_indicator", "0\n1\n1\n2\n2\n"), "graph_indicator", 1, "graph id 0 out of range [1,2]"},
		{"indicator two fields", set("graph_indicator", "1\n1, 1\n1\n2\n2\n"), "graph_indicator", 2, "want one graph id, got 2"},
		{"indicator empty line inside", set("graph_indicator", "1\n1\n\n1\n2\n2\n"), "graph_indicator", 3, "empty line"},
		// graph_labels
		{"graph without nodes", set("graph_labels", "1\n-1\n1\n"), "graph_labels", 3, "graph 3 has no nodes in T_graph_indicator.txt"},
		{"graph labels non-numeric", set("graph_labels", "1\nactive\n"), "graph_labels", 2, `graph class "active" is not an integer`},
		{"graph labels float", set("graph_labels", "1.0\n-1\n"), "graph_labels", 1, "is not an integer"},
		{"graph labels two fields", set("graph_labels", "1\n-1, 2\n"), "graph_labels", 2, "want one graph class, got 2"},
		{"graph labels empty", set("graph_labels", ""), "graph_labels", 1, "file is empty"},
		// node_labels
		{"node labels too few", set("node_labels", "3\n7\n3\n5\n"), "node_labels", 5, "file ends after 4 lines but T_graph_indicator.txt has 5 nodes"},
		{"node labels too many", set("node_labels", "3\n7\n3\n5\n7\n1\n"), "node_labels", 6, "extra line: T_graph_indicator.txt has only 5 nodes"},
		{"node labels non-numeric", set("node_labels", "3\nC\n3\n5\n7\n"), "node_labels", 2, `node label "C" is not an integer`},
		{"node labels two columns", set("node_labels", "3\n7\n3, 1\n5\n7\n"), "node_labels", 3, "want one node label, got 2"},
		// edge_labels
		{"edge labels too few", set("edge_labels", "0\n0\n1\n1\n2\n"), "edge_labels", 6, "file ends after 5 lines but T_A.txt has 6 lines"},
		{"edge labels too many", set("edge_labels", "0\n0\n1\n1\n2\n2\n2\n"), "edge_labels", 7, "extra line: T_A.txt has only 6 lines"},
		{"edge labels non-numeric", set("edge_labels", "0\n0\n1\n1\n2\nx\n"), "edge_labels", 6, `edge label "x" is not an integer`},
		{"edge label differs between directions", set("edge_labels", "0\n9\n1\n1\n2\n2\n"), "edge_labels", 2, "edge 2-1 has label 9, but line 1 gives edge 1-2 label 0"},
		{"edge label differs between repeats", func(f map[string]string) {
			f["A"] += "4, 5\n"
			f["edge_labels"] += "1\n"
		}, "edge_labels", 7, "edge 4-5 has label 1, but line 5 gives edge 4-5 label 2"},
		// node_attributes
		{"attributes ragged", set("node_attributes", "1.5, 2\n0, -1\n3\n4, 4e3\n5, 5\n"), "node_attributes", 3, "1 attributes, but line 1 has 2"},
		{"attributes NaN", set("node_attributes", "1.5, 2\nNaN, -1\n3, 3\n4, 4e3\n5, 5\n"), "node_attributes", 2, `attribute 1 is "NaN"; only finite values`},
		{"attributes Inf", set("node_attributes", "1.5, 2\n0, -1\n3, 3\n4, -Inf\n5, 5\n"), "node_attributes", 4, `attribute 2 is "-Inf"`},
		{"attributes overflow", set("node_attributes", "1.5, 2\n0, -1\n3, 3\n4, 1e999\n5, 5\n"), "node_attributes", 4, "outside the float64 range"},
		{"attributes non-numeric", set("node_attributes", "1.5, 2\n0, -1\n3, 3\n4, abc\n5, 5\n"), "node_attributes", 4, `attribute 2 "abc" is not a number`},
		{"attributes empty field", set("node_attributes", "1.5, 2\n0, \n3, 3\n4, 4\n5, 5\n"), "node_attributes", 2, `attribute 2 "" is not a number`},
		{"attributes too few", set("node_attributes", "1.5, 2\n0, -1\n3, 3\n4, 4e3\n"), "node_attributes", 5, "file ends after 4 lines"},
		{"attributes too many", set("node_attributes", "1.5, 2\n0, -1\n3, 3\n4, 4e3\n5, 5\n6, 6\n"), "node_attributes", 6, "extra line"},
		// missing files
		{"missing A", set("A", missing), "A", 0, "required file of data set T is missing"},
		{"missing graph indicator", set("graph_indicator", missing), "graph_indicator", 0, "required file of data set T is missing"},
		{"missing graph labels", set("graph_labels", missing), "graph_labels", 0, "required file of data set T is missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files := tuFixture()
			c.edit(files)
			for k, v := range files {
				if v == missing {
					delete(files, k)
				}
			}
			writeFixture(t, dir, files)
			d, err := ReadTU(dir, "T")
			if err == nil {
				t.Fatalf("ReadTU succeeded with %d graphs, want an error", d.Len())
			}
			msg := err.Error()
			loc := tuPath(dir, "T", c.file)
			if c.line > 0 {
				loc = fmt.Sprintf("%s:%d:", loc, c.line)
			}
			if !strings.Contains(msg, loc) || !strings.Contains(msg, c.msg) {
				t.Errorf("error %q\nwant it to contain %q and %q", msg, loc, c.msg)
			}
			if c.line == 0 && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("error %v does not wrap fs.ErrNotExist", err)
			}
		})
	}
	t.Run("optional file is a folder", func(t *testing.T) {
		dir := t.TempDir()
		files := tuFixture()
		delete(files, "node_labels")
		writeFixture(t, dir, files)
		if err := os.Mkdir(tuPath(dir, "T", "node_labels"), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadTU(dir, "T"); err == nil || !strings.Contains(err.Error(), "T_node_labels.txt") {
			t.Errorf("error %v, want one naming T_node_labels.txt", err)
		}
	})
	t.Run("invalid name", func(t *testing.T) {
		for _, name := range []string{"", ".", "..", "a/b"} {
			if _, err := ReadTU(t.TempDir(), name); err == nil {
				t.Errorf("ReadTU(%q) succeeded", name)
			}
		}
	})
}

func TestReadTUDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "T")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFixture(t, dir, tuFixture())
	d, err := ReadTUDir(dir + string(filepath.Separator))
	if err != nil {
		t.Fatal(err)
	}
	if want := tuFixtureDataset(t); !reflect.DeepEqual(d, want) {
		t.Errorf("ReadTUDir = %+v, want %+v", d, want)
	}
}

// readDir returns the contents of every file in dir by name.
func readDir(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string][]byte)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func TestWriteTURoundTripReal(t *testing.T) {
	for _, name := range realSets {
		t.Run(name, func(t *testing.T) {
			src := realDataSet(t, name)
			d, err := ReadTU(src, name)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := WriteTU(dir, d); err != nil {
				t.Fatal(err)
			}
			back, err := ReadTU(dir, name)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d, back) {
				t.Fatal("data set read back differs from the one written")
			}
			// The per-node and per-graph files list plain integers in file
			// order in every source, so they come out byte-identical; A.txt
			// and edge_labels are reordered (and Synthie's repeats dropped).
			for _, suffix := range []string{"graph_labels", "graph_indicator", "node_labels"} {
				orig, err := os.ReadFile(tuPath(src, name, suffix))
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				written, err := os.ReadFile(tuPath(dir, name, suffix))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(orig, written) {
					t.Errorf("%s_%s.txt differs from the source", name, suffix)
				}
			}
		})
	}
}

// handBuilt is a data set with every feature the format has: negative and
// sparse label values, edge labels, attributes that need all 17 digits, an
// isolated vertex, and a graph without edges.
func handBuilt(t testing.TB) *Dataset {
	mk := func(labels []int32, edges []Edge, attrs []float64) *Graph {
		g, err := Build(labels, edges, attrs, 3)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	return &Dataset{
		Name: "hand",
		Graphs: []*Graph{
			mk([]int32{0, 1, 2, 2}, []Edge{{0, 1, 1}, {1, 2, 0}, {2, 0, 2}},
				[]float64{0.1, 1.0 / 3, -2.5e-300, math.MaxFloat64, math.Copysign(0, -1), 1e21, math.SmallestNonzeroFloat64, 7, 8, 0, 0, 0}),
			mk([]int32{2}, nil, []float64{1, 2, 3}),
			mk([]int32{1, 0}, []Edge{{1, 0, 2}}, []float64{math.Pi, math.E, -1, 4, 5, 6}),
		},
		Classes:    []int64{-7, 3, math.MaxInt64},
		NodeLabels: []int64{-12, 0, 1 << 40},
		EdgeLabels: []int64{-1, 2, 99},
		AttrDim:    3,
	}
}

// unlabelled returns g's structure built anew, every label 0 and no
// attributes, as ReadTU builds a graph whose files have no labels, so that
// the two compare equal (Build keeps their label ranges).
func unlabelled(t testing.TB, g *Graph) *Graph {
	var edges []Edge
	for u := range g.N() {
		for _, v := range g.Neighbors(u) {
			if int32(u) < v {
				edges = append(edges, Edge{U: int32(u), V: v})
			}
		}
	}
	h, err := Build(make([]int32, g.N()), edges, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestWriteTURoundTripHandBuilt(t *testing.T) {
	plain := func(t testing.TB) *Dataset {
		d := handBuilt(t)
		d.NodeLabels, d.EdgeLabels, d.AttrDim = nil, nil, 0
		for i, g := range d.Graphs {
			d.Graphs[i] = unlabelled(t, g)
		}
		return d
	}
	cases := []struct {
		name  string
		d     func(testing.TB) *Dataset
		files []string // the files WriteTU must produce
	}{
		{"everything", handBuilt, []string{"A", "edge_labels", "graph_indicator", "graph_labels", "node_attributes", "node_labels"}},
		{"structure only", plain, []string{"A", "graph_indicator", "graph_labels"}},
		{"no edges at all", func(t testing.TB) *Dataset {
			d := plain(t)
			d.Graphs = d.Graphs[1:2]
			d.Classes = d.Classes[1:2]
			d.EdgeLabels = []int64{} // declared but unused: the file is empty
			return d
		}, []string{"A", "edge_labels", "graph_indicator", "graph_labels"}},
		{"fixture", tuFixtureDataset, []string{"A", "edge_labels", "graph_indicator", "graph_labels", "node_attributes", "node_labels"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := c.d(t)
			dir1, dir2 := t.TempDir(), t.TempDir()
			if err := WriteTU(dir1, d); err != nil {
				t.Fatal(err)
			}
			back, err := ReadTU(dir1, d.Name)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d, back) {
				t.Errorf("read back %+v\nwant %+v", back, d)
			}
			files1 := readDir(t, dir1)
			var names []string
			for _, s := range c.files {
				names = append(names, d.Name+"_"+s+".txt")
			}
			if got := slices.Sorted(maps.Keys(files1)); !slices.Equal(got, names) {
				t.Errorf("files %v, want %v (no temporary files left behind)", got, names)
			}
			// Determinism: a second write, fresh or over the first, gives
			// the same bytes.
			if err := WriteTU(dir2, back); err != nil {
				t.Fatal(err)
			}
			if err := WriteTU(dir1, d); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(files1, readDir(t, dir2)) || !reflect.DeepEqual(files1, readDir(t, dir1)) {
				t.Error("writing twice gives different bytes")
			}
		})
	}
}

func TestWriteTUFormat(t *testing.T) {
	dir := t.TempDir()
	if err := WriteTU(dir, handBuilt(t)); err != nil {
		t.Fatal(err)
	}
	// Expected text derived by hand from handBuilt: graph 1 is nodes 1..4
	// (triangle 1-2-3, node 4 isolated), graph 2 node 5, graph 3 nodes 6, 7.
	want := map[string]string{
		"A":               "1, 2\n1, 3\n2, 1\n2, 3\n3, 1\n3, 2\n6, 7\n7, 6\n",
		"edge_labels":     "2\n99\n2\n-1\n99\n-1\n99\n99\n",
		"graph_indicator": "1\n1\n1\n1\n2\n3\n3\n",
		"graph_labels":    "-7\n3\n9223372036854775807\n",
		"node_labels":     "-12\n0\n1099511627776\n1099511627776\n1099511627776\n0\n-12\n",
		"node_attributes": "0.1, 0.3333333333333333, -2.5e-300\n1.7976931348623157e+308, -0, 1e+21\n5e-324, 7, 8\n0, 0, 0\n1, 2, 3\n3.141592653589793, 2.718281828459045, -1\n4, 5, 6\n",
	}
	for suffix, w := range want {
		b, err := os.ReadFile(tuPath(dir, "hand", suffix))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != w {
			t.Errorf("hand_%s.txt =\n%s\nwant\n%s", suffix, b, w)
		}
	}
}

// TestWriteTUStaleFiles checks that optional files from an earlier write of
// the same data set do not survive into the new one.
func TestWriteTUStaleFiles(t *testing.T) {
	dir := t.TempDir()
	d := handBuilt(t)
	if err := WriteTU(dir, d); err != nil {
		t.Fatal(err)
	}
	u := handBuilt(t)
	u.NodeLabels, u.EdgeLabels, u.AttrDim = nil, nil, 0
	for i, g := range u.Graphs {
		u.Graphs[i] = unlabelled(t, g)
	}
	if err := WriteTU(dir, u); err != nil {
		t.Fatal(err)
	}
	back, err := ReadTU(dir, "hand")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(u, back) {
		t.Errorf("read back %+v, want %+v", back, u)
	}
}

func TestWriteTURejects(t *testing.T) {
	cases := []struct {
		name string
		edit func(d *Dataset)
		msg  string
	}{
		{"no graphs", func(d *Dataset) { d.Graphs, d.Classes = nil, nil }, "no graphs"},
		{"bad name", func(d *Dataset) { d.Name = "a/b" }, "invalid data set name"},
		{"classes count", func(d *Dataset) { d.Classes = d.Classes[:2] }, "2 classes for 3 graphs"},
		{"empty graph", func(d *Dataset) { d.Graphs[1] = &Graph{Offsets: []int32{0}, AttrDim: 3} }, "graph 2: no vertices"},
		{"nil graph", func(d *Dataset) { d.Graphs[0] = nil }, "graph 1: nil graph"},
		{"NaN attribute", func(d *Dataset) { d.Graphs[1].Attrs[2] = math.NaN() }, "graph 2: vertex 0: attribute 3 is NaN"},
		{"attribute dimension", func(d *Dataset) { d.AttrDim = 2 }, "dimension"},
		{"node label id outside dictionary", func(d *Dataset) { d.NodeLabels = d.NodeLabels[:2] }, "graph 1: vertex 2: label id 2 outside"},
		{"node labels without dictionary", func(d *Dataset) { d.NodeLabels = nil }, "outside the dictionary of 0 labels"},
		{"edge labels without dictionary", func(d *Dataset) { d.EdgeLabels = nil }, "graph 1: edge 0-1: label id 1 outside"},
		{"asymmetric edge label", func(d *Dataset) { d.Graphs[2].EdgeLabels[0] = 1 }, "graph 3: edge 0-1 is not stored in both directions"},
		{"broken offsets", func(d *Dataset) { d.Graphs[0].Offsets[2] = 99 }, "inconsistent CSR"},
		{"self-loop", func(d *Dataset) { d.Graphs[2].Adj[0] = 0 }, "graph 3: vertex 0: bad neighbour 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := handBuilt(t)
			c.edit(d)
			dir := filepath.Join(t.TempDir(), "out")
			err := WriteTU(dir, d)
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("WriteTU error %v, want one containing %q", err, c.msg)
			}
			if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("WriteTU created %s although it failed validation", dir)
			}
		})
	}
	if err := WriteTU(t.TempDir(), nil); err == nil {
		t.Error("WriteTU(nil) succeeded")
	}
}

// TestReadTULoadTime logs how long the largest sets take to load; the
// budget is well under a second each.
func TestReadTULoadTime(t *testing.T) {
	for _, name := range []string{"U251", "NCI1", "Synthie"} {
		dir := realDataSet(t, name)
		start := time.Now()
		if _, err := ReadTU(dir, name); err != nil {
			t.Fatal(err)
		}
		el := time.Since(start)
		t.Logf("ReadTU %s: %v", name, el)
		if el > 5*time.Second { // generous: catches accidental quadratic work, not noise
			t.Errorf("ReadTU %s took %v", name, el)
		}
	}
}

func BenchmarkReadTU(b *testing.B) {
	for _, name := range realSets {
		b.Run(name, func(b *testing.B) {
			dir := realDataSet(b, name)
			for b.Loop() {
				if _, err := ReadTU(dir, name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzReadTU feeds arbitrary file contents to ReadTU: it must never panic,
// and whatever it accepts must survive a WriteTU/ReadTU round trip. An empty
// string for an optional file means the file is absent.
func FuzzReadTU(f *testing.F) {
	fx := tuFixture()
	f.Add(fx["A"], fx["graph_indicator"], fx["graph_labels"], fx["node_labels"], fx["edge_labels"], fx["node_attributes"])
	f.Add("1, 2\n2, 1\n1, 2\n", "1\n1\n2\n", "0\n1\n", "", "5\n5\n5\n", "")
	f.Add("", "1\n", "1\n", "-3\n", "", "1e-5\n")
	f.Add("1,3\n", "1\n2\n1\n", "1\n2\n", "1\n2\n3\n", "1\n", "1,2\n3,4\n5,6\n")
	f.Add("2, 1\r\n", "1\r\n1\r\n", "1\r\n\r\n", "", "", "")
	f.Fuzz(func(t *testing.T, a, ind, gl, nl, el, at string) {
		dir := t.TempDir()
		files := map[string]string{"A": a, "graph_indicator": ind, "graph_labels": gl}
		for suffix, s := range map[string]string{"node_labels": nl, "edge_labels": el, "node_attributes": at} {
			if s != "" {
				files[suffix] = s
			}
		}
		writeFixture(t, dir, files)
		d, err := ReadTU(dir, "T")
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Errorf("error %q does not name a file", err)
			}
			return
		}
		out := t.TempDir()
		if err := WriteTU(out, d); err != nil {
			t.Fatalf("WriteTU of a data set ReadTU accepted: %v", err)
		}
		back, err := ReadTU(out, "T")
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		if !reflect.DeepEqual(d, back) {
			t.Fatalf("round trip differs:\n%+v\n%+v", d, back)
		}
	})
}
