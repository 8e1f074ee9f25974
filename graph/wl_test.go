package graph

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// path builds the path 0-1-...-(n-1) with the given vertex labels and all
// edge labels 0.
func path(labels ...int32) *Graph {
	var es []Edge
	for v := 1; v < len(labels); v++ {
		es = append(es, Edge{U: int32(v - 1), V: int32(v)})
	}
	return MustBuild(labels, es)
}

func uniformLabels(n int) []int32 { return make([]int32, n) }

func TestRefineHandDerived(t *testing.T) {
	tests := []struct {
		name  string
		gs    []*Graph
		h     int
		start Start
		want  [][][]int32
	}{
		{
			// Iteration 1: a=(0;{0}) is new → 0, b=(0;{0,0}) new → 1,
			// c=(0;{0}) equals a → 0. Iteration 2: a=(0;{1}) → 0,
			// b=(1;{0,0}) → 1, c like a → 0: the partition {a,c},{b} is
			// stable.
			name:  "path a-b-c uniform",
			gs:    []*Graph{path(0, 0, 0)},
			h:     2,
			start: Uniform,
			want:  [][][]int32{{{0, 0, 0}}, {{0, 1, 0}}, {{0, 1, 0}}},
		},
		{
			// Centre 2, leaves 0, 1, 3. Iteration 1: leaf 0=(0;{0}) → 0,
			// leaf 1 the same → 0, centre=(0;{0,0,0}) → 1, leaf 3 → 0.
			// Iteration 2: leaves (0;{1}) → 0, centre (1;{0,0,0}) → 1.
			name: "star centre 2",
			gs: []*Graph{MustBuild(uniformLabels(4), []Edge{
				{U: 2, V: 0}, {U: 2, V: 1}, {U: 2, V: 3},
			})},
			h:     2,
			start: Uniform,
			want:  [][][]int32{{{0, 0, 0, 0}}, {{0, 0, 1, 0}}, {{0, 0, 1, 0}}},
		},
		{
			// One colour map for both graphs. Graph 1 is a-b-c, graph 2
			// the same path with the middle vertex numbered 0 (edges 0-1,
			// 0-2). Graph 1 as in "path a-b-c"; in graph 2 vertex 0 has
			// signature (0;{0,0}), already colour 1, and vertices 1, 2
			// have (0;{0}), already colour 0.
			name: "isomorphic graphs in different vertex orders",
			gs: []*Graph{
				path(0, 0, 0),
				MustBuild(uniformLabels(3), []Edge{{U: 0, V: 1}, {U: 0, V: 2}}),
			},
			h:     1,
			start: Uniform,
			want:  [][][]int32{{{0, 0, 0}, {0, 0, 0}}, {{0, 1, 0}, {1, 0, 0}}},
		},
		{
			// P4 and the star K_{1,3}: same numbers of vertices and
			// edges, different degrees. P4: ends (0;{0}) → 0, inner
			// (0;{0,0}) → 1. Star: centre (0;{0,0,0}) is new → 2, leaves
			// (0;{0}) → 0. Colour multisets {0,0,1,1} and {0,0,0,2} differ.
			name: "P4 versus star distinguished",
			gs: []*Graph{
				path(0, 0, 0, 0),
				MustBuild(uniformLabels(4), []Edge{{U: 0, V: 1}, {U: 0, V: 2}, {U: 0, V: 3}}),
			},
			h:     1,
			start: Uniform,
			want:  [][][]int32{{{0, 0, 0, 0}, {0, 0, 0, 0}}, {{0, 1, 1, 0}, {2, 0, 0, 0}}},
		},
		{
			// C6 and two disjoint triangles are both 2-regular: every
			// vertex has (0;{0,0}) in every iteration, so 1-WL cannot tell
			// them apart. This pins down that Refine is plain 1-WL.
			name: "C6 versus two triangles not distinguished",
			gs: []*Graph{
				MustBuild(uniformLabels(6), []Edge{{U: 0, V: 1}, {U: 1, V: 2}, {U: 2, V: 3}, {U: 3, V: 4}, {U: 4, V: 5}, {U: 5, V: 0}}),
				MustBuild(uniformLabels(6), []Edge{{U: 0, V: 1}, {U: 1, V: 2}, {U: 2, V: 0}, {U: 3, V: 4}, {U: 4, V: 5}, {U: 5, V: 3}}),
			},
			h:     2,
			start: Uniform,
			want: [][][]int32{
				{{0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}},
				{{0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}},
				{{0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}},
			},
		},
		{
			// Pairs are (edge label, neighbour colour). Graph 1 has edge
			// labels 0 (0-1) and 1 (1-2): v0=(0;{(0,0)}) → 0,
			// v1=(0;{(0,0),(1,0)}) → 1, v2=(0;{(1,0)}) → 2. Graph 2 has
			// both labels 0: v0=(0;{(0,0)}) → 0 (seen), v1=(0;{(0,0),(0,0)})
			// → 3, v2 → 0. Without edge labels both would be [0 1 0].
			name: "edge labels matter",
			gs: []*Graph{
				MustBuild(uniformLabels(3), []Edge{{U: 0, V: 1, Label: 0}, {U: 1, V: 2, Label: 1}}),
				path(0, 0, 0),
			},
			h:     1,
			start: Uniform,
			want:  [][][]int32{{{0, 0, 0}, {0, 0, 0}}, {{0, 1, 2}, {0, 3, 0}}},
		},
		{
			// Labels [0 0 1]: v0=(0;{0}) → 0, v1=(0;{0,1}) → 1,
			// v2=(1;{0}) → 2; the label splits the ends.
			name:  "FromLabels",
			gs:    []*Graph{path(0, 0, 1)},
			h:     1,
			start: FromLabels,
			want:  [][][]int32{{{0, 0, 1}}, {{0, 1, 2}}},
		},
		{
			// The same graph ignoring labels: as "path a-b-c".
			name:  "Uniform ignores labels",
			gs:    []*Graph{path(0, 0, 1)},
			h:     1,
			start: Uniform,
			want:  [][][]int32{{{0, 0, 0}}, {{0, 1, 0}}},
		},
		{
			// h=0 is the start labelling, label ids unchanged.
			name:  "h=0 FromLabels",
			gs:    []*Graph{path(2, 0, 1)},
			h:     0,
			start: FromLabels,
			want:  [][][]int32{{{2, 0, 1}}},
		},
		{
			name:  "h=0 Uniform",
			gs:    []*Graph{path(2, 0, 1)},
			h:     0,
			start: Uniform,
			want:  [][][]int32{{{0, 0, 0}}},
		},
		{
			// A vertexless graph contributes nothing and shifts nothing:
			// the path after it is numbered as in "path a-b-c".
			name:  "empty graph",
			gs:    []*Graph{MustBuild(nil, nil), path(0, 0, 0)},
			h:     1,
			start: Uniform,
			want:  [][][]int32{{{}, {0, 0, 0}}, {{}, {0, 1, 0}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Refine(tc.gs, tc.h, tc.start)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Refine = %v, want %v", got, tc.want)
			}
			if ref := refineRef(tc.gs, tc.h, tc.start); !reflect.DeepEqual(got, ref) {
				t.Errorf("Refine = %v, reference = %v", got, ref)
			}
		})
	}
}

// TestRefineMatchesReference compares with a slow, obviously injective
// implementation on random labelled graphs. The numbering by first
// appearance depends only on the partition and the scan order, not on how
// signatures are encoded, so the two must agree exactly. h=6 also covers the
// shortcut taken once the partition is stable.
func TestRefineMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ graphs, n, extra, vl, el int }{
		{graphs: 30, n: 12, extra: 2, vl: 1, el: 1},
		{graphs: 30, n: 20, extra: 6, vl: 3, el: 1},
		{graphs: 30, n: 20, extra: 6, vl: 3, el: 4},
		{graphs: 5, n: 60, extra: 60, vl: 2, el: 2},
	} {
		gs := randomGraphs(rng, c.graphs, c.n, c.extra, c.vl, c.el)
		for _, start := range []Start{FromLabels, Uniform} {
			got := Refine(gs, 6, start)
			want := refineRef(gs, 6, start)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%+v start %d: Refine differs from reference", c, start)
			}
		}
	}
}

// TestRefineNumbersAhead checks Refine and Stream against the reference
// on graphs with more distinct signatures in an iteration than
// numberAheadFrom, where wlWorker.number loads the slots of a graph's
// signatures ahead of its look-ups; the test fails if no iteration gets
// there.
func TestRefineNumbersAhead(t *testing.T) {
	gs := randomGraphs(rand.New(rand.NewPCG(5, 6)), 300, 30, 10, 3, 4)
	for _, start := range []Start{FromLabels, Uniform} {
		want := refineRef(gs, 4, start)
		most := 0
		for _, cols := range want {
			n := 0
			for _, c := range cols {
				for _, x := range c {
					n = max(n, int(x)+1)
				}
			}
			most = max(most, n)
		}
		if most <= 2*numberAheadFrom {
			t.Fatalf("start %d: at most %d colours an iteration, want more than %d", start, most, 2*numberAheadFrom)
		}
		if got := Refine(gs, 4, start); !reflect.DeepEqual(got, want) {
			t.Fatalf("start %d: Refine differs from reference", start)
		}
		s := NewStream(gs, 4, start)
		for s.Next() >= 0 {
		}
		if !reflect.DeepEqual(s.Colours(), want) {
			t.Fatalf("start %d: Stream differs from reference", start)
		}
	}
}

// TestRefineTablesGrow checks Refine and Stream in tables kept from one
// refinement to the next, sized by what the last one of as many graphs and
// vertices counted (see refinementCounts), against the reference: tables
// sized for paths, whose iterations have a few signatures, grow for random
// graphs of the same sizes, whose second iteration has 645 (the test fails
// unless that iteration's table has grown to the 2048 slots that hold
// them at most half full, where one sized for every vertex has 16,384),
// and then serve the paths again.
func TestRefineTablesGrow(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	random := randomGraphs(rng, 200, 30, 10, 1, 1)
	paths := make([]*Graph, len(random))
	for i := range paths {
		var es []Edge
		for v := 1; v < 30; v++ {
			es = append(es, Edge{U: int32(v - 1), V: int32(v)})
		}
		paths[i] = MustBuild(uniformLabels(30), es)
	}
	for _, start := range []Start{FromLabels, Uniform} {
		refined, streamed := new(StreamTables), new(StreamTables)
		for run, gs := range [][]*Graph{paths, random, paths} {
			// Refine by two iterations, so that its one table is the
			// second's when it returns.
			want := refineRef(gs, 3, start)
			got, err := RefineOnWith(refined, gs, 2, start, Parallel{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want[:3]) {
				t.Fatalf("start %d, run %d: Refine in kept tables differs from reference", start, run)
			}
			s := NewStreamWith(streamed, gs, 3, start)
			for s.Next() >= 0 {
			}
			if !reflect.DeepEqual(s.Colours(), want) {
				t.Fatalf("start %d, run %d: Stream in kept tables differs from reference", start, run)
			}
			streamed = s.Tables()
			if run != 1 {
				continue
			}
			for by, tables := range map[string]*StreamTables{"Refine": refined, "Stream": streamed} {
				if n := tables.counts.expect(2); n != 645 {
					t.Fatalf("start %d: %s counted %d signatures in the second iteration, want 645", start, by, n)
				}
			}
			for by, m := range map[string]int{"Refine": len(refined.iters[0].index.slots), "Stream": len(streamed.iters[1].index.slots)} {
				if m != 2048 {
					t.Errorf("start %d: %s's table of the second iteration has %d slots, want 2048", start, by, m)
				}
			}
		}
	}
}

// TestRefineEdgeCases covers a graph whose EdgeLabels were left nil (read as
// all 0, so it must refine like its built twin) and vertices of degree above
// the insertion-sort cutoff, against the reference.
func TestRefineEdgeCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	g := randomGraphs(rng, 1, 40, 60, 3, 1)[0]
	bare := *g
	bare.EdgeLabels = nil
	if got, want := Refine([]*Graph{&bare}, 3, FromLabels), Refine([]*Graph{g}, 3, FromLabels); !reflect.DeepEqual(got, want) {
		t.Errorf("nil edge labels: %v, want %v", got, want)
	}
	var es []Edge
	for v := 1; v <= 40; v++ {
		es = append(es, Edge{U: 0, V: int32(v), Label: int32(v % 3)})
	}
	gs := []*Graph{g, MustBuild(uniformLabels(41), es)}
	for _, start := range []Start{FromLabels, Uniform} {
		if got, want := Refine(gs, 3, start), refineRef(gs, 3, start); !reflect.DeepEqual(got, want) {
			t.Errorf("start %d: high degrees: %v, want %v", start, got, want)
		}
	}
}

// TestRefineComparableAcrossGraphs checks that a graph and a randomly
// renumbered copy get the same multiset of colours in every iteration: the
// colour map is shared and the signature does not depend on vertex order.
func TestRefineComparableAcrossGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		g := randomGraphs(rng, 1, 25, 10, 3, 3)[0]
		p := permute(g, rng.Perm(g.N()))
		for _, start := range []Start{FromLabels, Uniform} {
			cols := Refine([]*Graph{g, p}, 4, start)
			for i, c := range cols {
				a, b := slices.Sorted(slices.Values(c[0])), slices.Sorted(slices.Values(c[1]))
				if !slices.Equal(a, b) {
					t.Fatalf("trial %d start %d iteration %d: colour multisets %v and %v differ", trial, start, i, a, b)
				}
			}
		}
	}
}

// TestRefineStable checks on random graphs that the partition never
// coarsens (the own colour is part of the signature, so colour i determines
// colour i-1 across all graphs) and that the colours of every iteration i ≥ 1
// are dense and numbered by first appearance.
func TestRefineStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	gs := randomGraphs(rng, 50, 20, 8, 3, 2)
	for _, start := range []Start{FromLabels, Uniform} {
		cols := Refine(gs, 5, start)
		for i := 1; i < len(cols); i++ {
			parent := map[int32]int32{}
			next := int32(0)
			for g := range gs {
				for v, c := range cols[i][g] {
					if c > next {
						t.Fatalf("start %d iteration %d: colour %d appears before %d", start, i, c, next)
					}
					if c == next {
						next++
					}
					old := cols[i-1][g][v]
					if p, ok := parent[c]; ok && p != old {
						t.Fatalf("start %d iteration %d: colour %d has parents %d and %d", start, i, c, p, old)
					}
					parent[c] = old
				}
			}
		}
	}
}

func TestRefineDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	gs := randomGraphs(rng, 40, 30, 10, 4, 2)
	a := Refine(gs, 3, FromLabels)
	b := Refine(gs, 3, FromLabels)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs of Refine differ")
	}
}

func TestRefineGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	gs := randomGraphs(rng, 20, 15, 5, 3, 2)
	orig := make([][]int32, len(gs))
	for i, g := range gs {
		orig[i] = slices.Clone(g.Labels)
	}
	for _, start := range []Start{FromLabels, Uniform} {
		for h := range 5 {
			cols := Refine(gs, h, start)
			rg := RefineGraphs(gs, h, start)
			for i, g := range rg {
				if !slices.Equal(g.Labels, cols[h][i]) {
					t.Fatalf("start %d h %d graph %d: labels %v, want %v", start, h, i, g.Labels, cols[h][i])
				}
				if &g.Adj[0] != &gs[i].Adj[0] || &g.Offsets[0] != &gs[i].Offsets[0] {
					t.Fatalf("graph %d does not share its structure", i)
				}
			}
		}
	}
	for i, g := range gs {
		if !slices.Equal(g.Labels, orig[i]) {
			t.Fatalf("graph %d: input labels modified", i)
		}
	}
}

func TestRefinePanics(t *testing.T) {
	for _, tc := range []struct {
		name  string
		h     int
		start Start
	}{
		{"negative h", -1, Uniform},
		{"unknown start", 1, Start(7)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			Refine([]*Graph{path(0, 0)}, tc.h, tc.start)
		})
	}
}

// refineRef is WL refinement written for clarity, with string signatures.
func refineRef(gs []*Graph, h int, start Start) [][][]int32 {
	cols := make([][][]int32, h+1)
	cols[0] = make([][]int32, len(gs))
	for i, g := range gs {
		cols[0][i] = make([]int32, g.N())
		if start == FromLabels {
			copy(cols[0][i], g.Labels)
		}
	}
	for it := 1; it <= h; it++ {
		ids := map[string]int32{}
		cols[it] = make([][]int32, len(gs))
		for i, g := range gs {
			prev := cols[it-1][i]
			cols[it][i] = make([]int32, g.N())
			for v := range g.N() {
				var nb []string
				for k, u := range g.Neighbors(v) {
					nb = append(nb, fmt.Sprintf("%d/%d", g.NeighborEdgeLabels(v)[k], prev[u]))
				}
				slices.Sort(nb)
				key := fmt.Sprintf("%d|%s", prev[v], strings.Join(nb, ","))
				id, ok := ids[key]
				if !ok {
					id = int32(len(ids))
					ids[key] = id
				}
				cols[it][i][v] = id
			}
		}
	}
	return cols
}

// randomGraphs returns connected sparse graphs shaped like molecules: a
// random tree on n vertices plus up to extra random edges, with vertex labels
// in [0,vl) and edge labels in [0,el).
func randomGraphs(rng *rand.Rand, count, n, extra, vl, el int) []*Graph {
	gs := make([]*Graph, count)
	for i := range gs {
		labels := make([]int32, n)
		for v := range labels {
			labels[v] = int32(rng.IntN(vl))
		}
		type pair struct{ u, v int32 }
		elab := map[pair]int32{}
		add := func(u, v int32) {
			if u == v {
				return
			}
			if u > v {
				u, v = v, u
			}
			if _, ok := elab[pair{u, v}]; !ok {
				elab[pair{u, v}] = int32(rng.IntN(el))
			}
		}
		for v := 1; v < n; v++ {
			add(int32(rng.IntN(v)), int32(v))
		}
		for range extra {
			add(int32(rng.IntN(n)), int32(rng.IntN(n)))
		}
		es := make([]Edge, 0, len(elab))
		for p, l := range elab {
			es = append(es, Edge{U: p.u, V: p.v, Label: l})
		}
		gs[i] = MustBuild(labels, es)
	}
	return gs
}

// permute returns g with vertex v renamed perm[v].
func permute(g *Graph, perm []int) *Graph {
	labels := make([]int32, g.N())
	var es []Edge
	for v := range g.N() {
		labels[perm[v]] = g.Labels[v]
		for k, u := range g.Neighbors(v) {
			if int(u) > v {
				es = append(es, Edge{U: int32(perm[v]), V: int32(perm[u]), Label: g.NeighborEdgeLabels(v)[k]})
			}
		}
	}
	return MustBuild(labels, es)
}

// BenchmarkRefine times h=3 refinement on synthetic data sets shaped like
// ENZYMES (600 graphs, ~33 vertices, ~62 edges, 3 labels) and NCI1 (4110
// graphs, ~30 vertices, ~32 edges, 37 labels).
func BenchmarkRefine(b *testing.B) {
	for _, c := range []struct {
		name                     string
		graphs, n, extra, vl, el int
	}{
		{name: "enzymes-like", graphs: 600, n: 33, extra: 30, vl: 3, el: 1},
		{name: "nci1-like", graphs: 4110, n: 30, extra: 3, vl: 37, el: 1},
	} {
		gs := randomGraphs(rand.New(rand.NewPCG(11, 12)), c.graphs, c.n, c.extra, c.vl, c.el)
		for _, start := range []Start{FromLabels, Uniform} {
			b.Run(fmt.Sprintf("%s/start=%d", c.name, start), func(b *testing.B) {
				for b.Loop() {
					Refine(gs, 3, start)
				}
			})
		}
	}
}

// BenchmarkRefineTU times h=3 refinement on the real MUTAG, ENZYMES,
// PROTEINS and NCI1 when LoadDataset finds them (set GKBENCH_DATA), since
// the synthetic shapes above only approximate their label and degree
// distributions: on one goroutine, spread over two (goroutines spawned for
// each loop, where the kernels keep theirs awake between loops), split or
// in the shared table, and streamed graph by graph on one; from the
// labels, and from uniform colours, as the GI kernel refines.
func BenchmarkRefineTU(b *testing.B) {
	for _, name := range []string{"MUTAG", "ENZYMES", "PROTEINS", "NCI1"} {
		for _, start := range []struct {
			name string
			s    Start
		}{{"labels", FromLabels}, {"uniform", Uniform}} {
			b.Run(name+"/"+start.name+"/stream", func(b *testing.B) {
				ds, err := LoadDataset(name)
				if err != nil {
					b.Skip(err)
				}
				for b.Loop() {
					s := NewStream(ds.Graphs, 3, start.s)
					for s.Next() >= 0 {
					}
				}
			})
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/%s/workers=%d", name, start.name, workers), func(b *testing.B) {
					ds, err := LoadDataset(name)
					if err != nil {
						b.Skip(err)
					}
					for b.Loop() {
						if _, err := RefineOn(ds.Graphs, 3, start.s, goParallel(workers)); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
			// Two workers split and in the shared table, whatever
			// Splits says, each in tables kept from one refinement to
			// the next, as the kernels keep them.
			for _, split := range []bool{false, true} {
				b.Run(fmt.Sprintf("%s/%s/workers=2/split=%t", name, start.name, split), func(b *testing.B) {
					ds, err := LoadDataset(name)
					if err != nil {
						b.Skip(err)
					}
					tables := new(StreamTables)
					for b.Loop() {
						if _, err := refineOn(tables, ds.Graphs, 3, start.s, goParallel(2), split); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// TestRefineTUMatchesReference checks Refine against refineRef on real data
// with edge labels (MUTAG) and without (ENZYMES) when LoadDataset finds them
// (set GKBENCH_DATA).
func TestRefineTUMatchesReference(t *testing.T) {
	for _, name := range []string{"MUTAG", "ENZYMES"} {
		t.Run(name, func(t *testing.T) {
			ds, err := LoadDataset(name)
			if err != nil {
				t.Skip(err)
			}
			for _, start := range []Start{FromLabels, Uniform} {
				got := Refine(ds.Graphs, 4, start)
				if !reflect.DeepEqual(got, refineRef(ds.Graphs, 4, start)) {
					t.Fatalf("start %d: Refine differs from reference", start)
				}
				for i := 1; i < len(got); i++ {
					k := int32(0)
					for _, c := range got[i] {
						for _, x := range c {
							k = max(k, x+1)
						}
					}
					t.Logf("start %d: %d colours after %d iterations", start, k, i)
				}
			}
		})
	}
}

// goParallel is a Parallel of workers goroutines that take the rows in
// turn, as a caller's pool would.
func goParallel(workers int) Parallel {
	return Parallel{Workers: workers, Run: func(n int, body func(w, i int)) error {
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
					body(w, i)
				}
			})
		}
		wg.Wait()
		return nil
	}}
}

// reversed is a Parallel of workers that runs the rows last first, on the
// calling goroutine, naming the workers in turn: the colours must not
// depend on the order the chunks are numbered in.
func reversed(workers int) Parallel {
	return Parallel{Workers: workers, Run: func(n int, body func(w, i int)) error {
		for i := n - 1; i >= 0; i-- {
			body(i%workers, i)
		}
		return nil
	}}
}

// TestRefineOn checks that spreading the work gives Refine's colours, and
// RefineGraphs's labels, for several workers and orders of the chunks, on
// random graphs big enough for several chunks and on MUTAG and ENZYMES
// when LoadDataset finds them (set GKBENCH_DATA).
func TestRefineOn(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	sets := map[string][]*Graph{
		// 8000 vertices: 2 to 16 chunks of 250 to 1000 vertices.
		"random uniform edges":  randomGraphs(rng, 400, 20, 6, 3, 1),
		"random labelled edges": randomGraphs(rng, 200, 40, 10, 2, 3),
		// One chunk: fewer vertices than two chunks' worth.
		"small": randomGraphs(rng, 10, 20, 6, 3, 1),
		// Empty graphs first, among the others and last, where a
		// split's parts may begin, end or hold nothing but them.
		"empty graphs": slices.Concat([]*Graph{MustBuild(nil, nil), MustBuild(nil, nil)}, randomGraphs(rng, 60, 20, 6, 3, 1),
			[]*Graph{MustBuild(nil, nil), MustBuild([]int32{2}, nil)}, randomGraphs(rng, 60, 20, 6, 3, 1), []*Graph{MustBuild(nil, nil), MustBuild(nil, nil)}),
		// A signature of 3001 words, longer than half of the shared
		// table's default block of 4096.
		"star among paths": append(randomGraphs(rng, 100, 20, 6, 3, 1), star(3000), star(3000), path(1, 2, 3)),
	}
	for _, name := range []string{"MUTAG", "ENZYMES"} {
		if ds, err := LoadDataset(name); err == nil {
			sets[name] = ds.Graphs
		}
	}
	pars := map[string]Parallel{
		"2 goroutines": goParallel(2),
		"3 goroutines": goParallel(3),
		"reversed 2":   reversed(2),
		"reversed 4":   reversed(4),
	}
	// One set of tables for every refinement, so that each works in
	// tables an earlier one, of other graphs and iterations, left.
	tables := new(StreamTables)
	for name, gs := range sets {
		for _, start := range []Start{FromLabels, Uniform} {
			for _, h := range []int{0, 1, 3, 8} {
				want := Refine(gs, h, start)
				for pn, par := range pars {
					// Split and not, whatever Splits says, where
					// splitRefiner can (h from 1 to splitMaxH).
					for _, split := range []bool{false, true} {
						if split && (h < 1 || h > splitMaxH) {
							continue
						}
						got, err := refineOn(tables, gs, h, start, par, split)
						if err != nil {
							t.Fatalf("%s start %d h %d %s split %v: %v", name, start, h, pn, split, err)
						}
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("%s start %d h %d %s split %v: colours differ from Refine", name, start, h, pn, split)
						}
						rg, err := refineGraphsOn(tables, gs, h, start, par, split)
						if err != nil {
							t.Fatalf("%s start %d h %d %s split %v: %v", name, start, h, pn, split, err)
						}
						for i, g := range rg {
							if !slices.Equal(g.Labels, want[h][i]) {
								t.Fatalf("%s start %d h %d %s split %v: graph %d labels %v, want %v", name, start, h, pn, split, i, g.Labels, want[h][i])
							}
						}
					}
				}
			}
		}
	}
}

// TestRefinerUnnumbered checks the number of colours a step returns where
// it leaves the shared table's ids (as RefineGraphsOn's steps do, which
// stop once it repeats): the distinct colours of Refine's iteration.
func TestRefinerUnnumbered(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	gs := randomGraphs(rng, 200, 40, 10, 2, 3)
	const h = 4
	want := Refine(gs, h, FromLabels)
	for _, workers := range []int{2, 3} {
		r := newRefiner(gs, h, FromLabels, goParallel(workers))
		if r.shared == nil {
			t.Fatalf("%d workers: no shared table", workers)
		}
		cur, next := r.startColours(), r.alloc()
		for i := 1; i <= h; i++ {
			k, err := r.step(cur, next, false)
			if err != nil {
				t.Fatal(err)
			}
			distinct := map[int32]bool{}
			for _, cs := range want[i] {
				for _, c := range cs {
					distinct[c] = true
				}
			}
			if k != len(distinct) {
				t.Errorf("%d workers, iteration %d: %d colours, want %d", workers, i, k, len(distinct))
			}
			cur, next = next, cur
		}
	}
}

// star returns a star of leaves leaves, all vertices labelled 0, with
// edges of labels 0 and 1 in turn.
func star(leaves int) *Graph {
	edges := make([]Edge, leaves)
	for i := range edges {
		edges[i] = Edge{U: 0, V: int32(i + 1), Label: int32(i % 2)}
	}
	return MustBuild(make([]int32, leaves+1), edges)
}

// TestSharedSigs has goroutines number overlapping signatures in one
// sharedSigs at once, many of them on one hash so that they probe the same
// slots and race for them, and checks that every signature has one id,
// distinct signatures distinct ids below the bound, and that the entries
// left are exactly the distinct signatures: a worker that lost a slot to
// the same signature dropped its copy.
func TestSharedSigs(t *testing.T) {
	const workers, distinct = 3, 500
	sig := func(j int) []uint64 {
		if j%5 == 0 {
			// One length, one first word and one hash: only the
			// last word tells these apart.
			return []uint64{7, uint64(j)}
		}
		s := make([]uint64, 1+j%7)
		for i := range s {
			s[i] = uint64(j*31 + i)
		}
		return s
	}
	hash := func(j int) uint64 {
		if j%5 == 0 {
			return 0xdead_beef_0000_0007 // shared by a fifth of them
		}
		return hashUint64s(sig(j))
	}
	// One table for every round, as a refinement keeps it for every
	// iteration: the slots of earlier rounds must read as empty.
	s := newSharedSigs(workers, distinct, distinct*8, 7)
	for round := range 20 {
		s.reset()
		ids := make([][]int32, workers)
		var ready, wg sync.WaitGroup
		ready.Add(workers)
		for w := range workers {
			wg.Go(func() {
				ready.Done()
				ready.Wait()
				ids[w] = make([]int32, distinct)
				// Each worker meets every signature: in even rounds
				// in one order, so that they race to add the same
				// one, and in odd rounds each from its own start.
				for k := range distinct {
					j := (k + round%2*w*distinct/workers) % distinct
					ids[w][j] = s.intern(w, sig(j), hash(j))
				}
			})
		}
		wg.Wait()
		seen := map[int32]int{}
		for j := range distinct {
			id := ids[0][j]
			for w := 1; w < workers; w++ {
				if ids[w][j] != id {
					t.Fatalf("round %d: signature %d has ids %d and %d", round, j, id, ids[w][j])
				}
			}
			if other, ok := seen[id]; ok {
				t.Fatalf("round %d: signatures %d and %d share id %d", round, other, j, id)
			}
			seen[id] = j
			if int(id) >= s.ids() {
				t.Fatalf("round %d: id %d not below the bound %d", round, id, s.ids())
			}
		}
		if count := s.len(); count != distinct {
			t.Fatalf("round %d: %d entries stored, want %d", round, count, distinct)
		}
		for i := range s.slots {
			x := s.slots[i].Load()
			if x>>48 != s.gen {
				continue // empty: of another generation
			}
			e, id := s.entry(uint32(x) - 1)
			if j, ok := seen[id]; !ok || !slices.Equal(e, sig(j)) {
				t.Fatalf("round %d: slot %d holds %v as id %d", round, i, e, id)
			}
		}
	}
	// Ids of 2^31 and more do not fit: the refiner numbers alone then.
	if newSharedSigs(2, 1<<30, 1<<31, 8) != nil {
		t.Error("newSharedSigs accepted 2^30 vertices on 2 workers")
	}
}

// TestSharedSigsWrap checks that the table's generations wrap around
// with the slots emptied: signatures numbered 2^16 generations before
// must be new again, not found in slots that only seem current.
func TestSharedSigsWrap(t *testing.T) {
	sigs := [][]uint64{{1}, {2, 3}, {4, 5, 6}, {7}}
	s := newSharedSigs(1, 8, 32, 3)
	intern := func() int32 {
		s.reset()
		for _, sig := range sigs {
			s.intern(0, sig, hashUint64s(sig))
		}
		return s.arena[0].count
	}
	first := s.gen + 1
	intern()
	for s.gen = 1<<16 - 2; s.gen != first-1; {
		s.reset()
	}
	if got := intern(); got != int32(len(sigs)) {
		t.Errorf("generation %d again: %d signatures stored, want %d", first, got, len(sigs))
	}
}

// TestRefineOnStops checks that an error of Run's is returned.
func TestRefineOnStops(t *testing.T) {
	gs := randomGraphs(rand.New(rand.NewPCG(17, 18)), 200, 20, 6, 3, 1)
	stop := errors.New("stopped")
	par := Parallel{Workers: 2, Run: func(n int, body func(w, i int)) error {
		body(0, 0)
		return stop
	}}
	if _, err := RefineOn(gs, 3, FromLabels, par); !errors.Is(err, stop) {
		t.Errorf("RefineOn: error %v, want %v", err, stop)
	}
	if _, err := RefineGraphsOn(gs, 3, FromLabels, par); !errors.Is(err, stop) {
		t.Errorf("RefineGraphsOn: error %v, want %v", err, stop)
	}
}

// TestStream checks that refining graph by graph gives Refine's colours,
// on the sets of TestRefineOn, and that each graph's colours are final as
// soon as Next has refined it: they are compared then, before the graphs
// after it are refined, and again at the end.
func TestStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	sets := map[string][]*Graph{
		"random uniform edges":  randomGraphs(rng, 100, 20, 6, 3, 1),
		"random labelled edges": randomGraphs(rng, 50, 40, 10, 2, 3),
		"none":                  nil,
	}
	for _, name := range []string{"MUTAG", "ENZYMES"} {
		if ds, err := LoadDataset(name); err == nil {
			sets[name] = ds.Graphs
		}
	}
	for name, gs := range sets {
		for _, start := range []Start{FromLabels, Uniform} {
			for _, h := range []int{0, 1, 3, 8} {
				want := Refine(gs, h, start)
				s := NewStream(gs, h, start)
				for i := range gs {
					if g := s.Next(); g != i {
						t.Fatalf("%s start %d h %d: Next = %d, want %d", name, start, h, g, i)
					}
					for it := range want {
						if !slices.Equal(s.Colours()[it][i], want[it][i]) {
							t.Fatalf("%s start %d h %d: graph %d iteration %d: colours %v, want %v", name, start, h, i, it, s.Colours()[it][i], want[it][i])
						}
					}
				}
				if g := s.Next(); g != -1 {
					t.Fatalf("%s start %d h %d: Next after the last graph = %d, want -1", name, start, h, g)
				}
				if !reflect.DeepEqual(s.Colours(), want) {
					t.Fatalf("%s start %d h %d: colours differ from Refine", name, start, h)
				}
			}
		}
	}
}

// TestStreamTables checks that a Stream that takes over the tables of
// earlier ones (NewStreamWith), of more and fewer graphs, vertices and
// iterations, some stopped halfway, refines as Refine does, and that the
// tables it hands on hold their arrays.
func TestStreamTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	big := randomGraphs(rng, 120, 30, 8, 3, 2)
	small := randomGraphs(rng, 20, 10, 3, 2, 1)
	runs := []struct {
		gs    []*Graph
		h     int
		start Start
		stop  int // graphs refined before the tables are handed on, -1 for all
	}{
		{small, 2, FromLabels, -1},
		{big, 3, FromLabels, -1},
		{small, 1, Uniform, -1},
		{big, 4, Uniform, 7},
		{big, 4, FromLabels, -1},
		{small, 3, Uniform, -1},
		{nil, 2, Uniform, -1},
	}
	var tables *StreamTables
	for r, run := range runs {
		want := Refine(run.gs, run.h, run.start)
		s := NewStreamWith(tables, run.gs, run.h, run.start)
		for i := 0; run.stop < 0 || i < run.stop; i++ {
			if s.Next() < 0 {
				break
			}
		}
		if run.stop < 0 {
			if !reflect.DeepEqual(s.Colours(), want) {
				t.Fatalf("run %d: colours differ from Refine", r)
			}
			for i := 1; i <= run.h; i++ {
				if wantK := countColours(want[i]); s.Count(i) != wantK {
					t.Errorf("run %d: iteration %d has %d colours, want %d", r, i, s.Count(i), wantK)
				}
			}
		}
		tables = s.Tables()
		if r == 1 && tables.Bytes() == 0 {
			t.Errorf("run %d: the tables handed on hold no arrays", r)
		}
	}
}

// countColours returns the number of distinct colours of cols.
func countColours(cols [][]int32) int {
	seen := map[int32]bool{}
	for _, c := range cols {
		for _, x := range c {
			seen[x] = true
		}
	}
	return len(seen)
}

// TestStreamStep checks that the iterations of a Stream, stepped as the
// stages of a pipeline, one goroutine an iteration, each waiting for the
// one before, give Refine's colours and counts, from labels and from
// uniform colours on graphs of one edge label (whose first iteration
// numbers degrees, see degreeColours), and that a step out of order
// panics.
func TestStreamStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	gs := randomGraphs(rng, 200, 20, 6, 3, 2)
	sets := []struct {
		gs    []*Graph
		start Start
	}{{gs, FromLabels}, {randomGraphs(rng, 200, 20, 6, 3, 1), Uniform}}
	for _, set := range sets {
		for _, h := range []int{1, 3, 8} {
			stepPipelined(t, set.gs, h, set.start)
		}
	}
	s := NewStream(gs, 2, Uniform)
	s.Step(1, 0)
	for _, tc := range []struct {
		name string
		i, g int
	}{
		{"graph skipped", 1, 2},
		{"graph again", 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			s.Step(tc.i, tc.g)
		})
	}
}

// stepPipelined steps a Stream of gs from start through h iterations on
// one goroutine an iteration and compares it with Refine.
func stepPipelined(t *testing.T, gs []*Graph, h int, start Start) {
	t.Helper()
	want := Refine(gs, h, start)
	s := NewStream(gs, h, start)
	done := make([]atomic.Int64, h+1)
	done[0].Store(int64(len(gs)))
	var wg sync.WaitGroup
	for i := 1; i <= h; i++ {
		wg.Go(func() {
			for g := range len(gs) {
				for done[i-1].Load() <= int64(g) {
					runtime.Gosched()
				}
				s.Step(i, g)
				done[i].Store(int64(g + 1))
			}
		})
	}
	wg.Wait()
	if !reflect.DeepEqual(s.Colours(), want) {
		t.Errorf("start %d h %d: pipelined colours differ from Refine", start, h)
	}
	for i := 1; i <= h; i++ {
		if got, wantK := s.Count(i), slices.Max(slices.Concat(want[i]...))+1; got != int(wantK) {
			t.Errorf("start %d h %d: Count(%d) = %d, want %d", start, h, i, got, wantK)
		}
	}
}

// TestSortUint64s checks the sort of a signature's neighbours against
// slices.Sort at every length the sorting networks cover and around them:
// by the 0-1 principle, a network of compare-exchanges that sorts every
// sequence of zeros and ones sorts every sequence, so those are tried
// exhaustively up to 10 words; random words with repeats beyond.
func TestSortUint64s(t *testing.T) {
	for n := range 11 {
		for bitsSet := range 1 << n {
			s := make([]uint64, n)
			for i := range s {
				s[i] = uint64(bitsSet >> i & 1)
			}
			want := slices.Clone(s)
			slices.Sort(want)
			if sortUint64s(s); !slices.Equal(s, want) {
				t.Fatalf("n %d: sorted %v, want %v", n, s, want)
			}
		}
	}
	rng := rand.New(rand.NewPCG(19, 20))
	for n := range 40 {
		for range 200 {
			s := make([]uint64, n)
			for i := range s {
				// Few distinct values, so that repeats are common, in
				// both halves of the word, as edge labels put them.
				s[i] = rng.Uint64N(4)<<32 | rng.Uint64N(6)
			}
			want := slices.Clone(s)
			slices.Sort(want)
			if sortUint64s(s); !slices.Equal(s, want) {
				t.Fatalf("n %d: sorted %v, want %v", n, s, want)
			}
		}
	}
}

// TestRefineWithTables checks that RefineOnWith and RefineGraphsOnWith
// work in the tables they are given, split or not: a second refinement in
// tables a first one grew allocates fewer bytes than the tables hold
// (the colours and graphs it returns are new), where it allocates more
// than they hold in tables of its own.
func TestRefineWithTables(t *testing.T) {
	gs := randomGraphs(rand.New(rand.NewPCG(25, 26)), 300, 20, 6, 3, 1)
	const h = 3
	for _, tc := range []struct {
		name string
		par  Parallel
	}{
		{"RefineOnWith, 2 goroutines", goParallel(2)},
		{"RefineGraphsOnWith, 2 goroutines", goParallel(2)},
		{"RefineOnWith, 1 goroutine", Parallel{}},
	} {
		graphs := strings.HasPrefix(tc.name, "RefineGraphsOnWith")
		refine := func(tables *StreamTables) {
			var err error
			if graphs {
				_, err = RefineGraphsOnWith(tables, gs, h, FromLabels, tc.par)
			} else {
				_, err = RefineOnWith(tables, gs, h, FromLabels, tc.par)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		allocated := func(tables *StreamTables) uint64 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			refine(tables)
			runtime.ReadMemStats(&after)
			return after.TotalAlloc - before.TotalAlloc
		}
		tables := new(StreamTables)
		refine(tables)
		held := uint64(tables.Bytes())
		if own := allocated(nil); own < held {
			t.Errorf("%s: %d bytes allocated in tables of its own, fewer than the %d its tables hold", tc.name, own, held)
		}
		if lent := allocated(tables); lent >= held {
			t.Errorf("%s: %d bytes allocated in lent tables, want fewer than the %d they hold", tc.name, lent, held)
		}
	}
}

// TestSplitBalance checks the merger's share of the next split refinement
// that balance sets from the times of the last: x·T + M = (1−x)·T/(w−1)
// for the merger's fraction x of the vertices, the parts' work T and the
// merges' M (worked by hand below), and at least a quarter of an equal
// fraction.
func TestSplitBalance(t *testing.T) {
	us := time.Microsecond
	for _, tc := range []struct {
		took    []time.Duration
		merging time.Duration
		want    float64
	}{
		{[]time.Duration{100 * us, 100 * us}, 0, 1},                       // x = 1/2
		{[]time.Duration{80 * us, 120 * us}, 50 * us, 0.6},                // x = 150/400
		{[]time.Duration{100 * us, 100 * us}, 200 * us, 1. / 7},           // x = 1/8, the floor
		{[]time.Duration{100 * us, 100 * us, 100 * us}, 30 * us, 8. / 11}, // x = 240/900 = 4/15, share 2x/(1−x)
	} {
		s := &splitRefiner{parts: make([]splitPart, len(tc.took)), tables: new(StreamTables), merging: tc.merging}
		for i, d := range tc.took {
			s.parts[i].took = d
		}
		s.balance()
		if got := s.tables.share; math.Abs(got-tc.want) > 1e-3 {
			t.Errorf("took %v, merging %v: share %.4f, want %.4f", tc.took, tc.merging, got, tc.want)
		}
	}
}

// TestRelabelled checks that Relabelled gives each graph its own labels
// and keeps its structure, and leaves the graphs it was given as they were.
func TestRelabelled(t *testing.T) {
	gs := []*Graph{path(1, 2, 3), path(), path(4)}
	labels := [][]int32{{7, 8, 9}, {}, {5}}
	out := Relabelled(gs, labels)
	if len(out) != len(gs) {
		t.Fatalf("got %d graphs, want %d", len(out), len(gs))
	}
	for i, g := range out {
		if !slices.Equal(g.Labels, labels[i]) {
			t.Errorf("graph %d: labels %v, want %v", i, g.Labels, labels[i])
		}
		if !slices.Equal(g.Adj, gs[i].Adj) || !slices.Equal(g.Offsets, gs[i].Offsets) {
			t.Errorf("graph %d: structure changed", i)
		}
	}
	// The inputs keep their labels (path's, by hand).
	if !slices.Equal(gs[0].Labels, []int32{1, 2, 3}) || !slices.Equal(gs[2].Labels, []int32{4}) {
		t.Errorf("inputs relabelled: %v, %v", gs[0].Labels, gs[2].Labels)
	}
}

// TestDegreeColours checks when the first iteration from uniform colours
// numbers degrees: where every arc of every graph carries one label, nil
// edge labels counting as 0. A copy of a built graph given other edge
// labels must be read by them, not by the range Build kept.
func TestDegreeColours(t *testing.T) {
	path := func(l ...int32) *Graph {
		es := make([]Edge, len(l))
		for i, x := range l {
			es[i] = Edge{int32(i), int32(i + 1), x}
		}
		return MustBuild(make([]int32, len(l)+1), es)
	}
	bare := *path(0, 0)
	bare.EdgeLabels = nil
	mixed := *path(2, 2, 2)
	mixed.EdgeLabels = []int32{2, 2, 2, 1, 1, 2}
	tests := []struct {
		name  string
		gs    []*Graph
		start Start
		want  bool
	}{
		{"label 0 and nil", []*Graph{path(0, 0), &bare}, Uniform, true},
		{"label 2 everywhere", []*Graph{path(2), path(2, 2, 2)}, Uniform, true},
		{"from labels", []*Graph{path(0)}, FromLabels, false},
		{"two labels in a graph", []*Graph{path(1, 2)}, Uniform, false},
		{"a label a graph", []*Graph{path(1), path(2)}, Uniform, false},
		{"nil beside label 2", []*Graph{&bare, path(2)}, Uniform, false},
		{"edgeless graphs", []*Graph{MustBuild([]int32{0}, nil), path(3)}, Uniform, true},
		{"labels changed on a copy", []*Graph{path(2, 2, 2), &mixed}, Uniform, false},
	}
	for _, tc := range tests {
		if got := degreeColours(tc.gs, tc.start); got != tc.want {
			t.Errorf("%s: degreeColours = %v, want %v", tc.name, got, tc.want)
		}
	}
}
