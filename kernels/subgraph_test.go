package kernels

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
)

// tinyC4 is a 4-cycle with uniform labels: its connected induced
// three-vertex subgraphs are four paths (one per centre) and no triangle.
var tinyC4 = graph.MustBuild([]int32{0, 0, 0, 0}, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}, {U: 2, V: 3}, {U: 3, V: 0}})

// The patterns of the tiny graphs (vertex labels; all edge labels 0):
//
//	path     one path 0–1–0, symmetric under reversal: |Aut| = 2
//	triangle one triangle 0,0,1: swapping the two 0-vertices, |Aut| = 2
//	star     three paths 0–1–0 (one per pair of leaves), |Aut| = 2
//	K3       one uniform triangle, |Aut| = 3! = 6
//	C4       four uniform paths, |Aut| = 2
//
// GL is Σ c_G(P)c_H(P); CSM is Σ |Aut(P)| c_G(P) c_H(P).
func TestGraphletAndCSMHandComputed(t *testing.T) {
	tests := []struct {
		name    string
		g, h    *graph.Graph
		gl, csm float64
	}{
		{"path-star", tinyPath, tinyStar, 1 * 3, 2 * 1 * 3},
		{"star-star", tinyStar, tinyStar, 9, 2 * 9},
		{"path-path", tinyPath, tinyPath, 1, 2},
		{"triangle-triangle", tinyTriangle, tinyTriangle, 1, 2},
		{"path-triangle", tinyPath, tinyTriangle, 0, 0},
		{"K3-K3", tinyK3, tinyK3, 1, 6},
		{"C4-C4", tinyC4, tinyC4, 16, 32},
		{"C4-K3", tinyC4, tinyK3, 0, 0},
		// Edge labels 5 and 7 differ, so reversal is no automorphism.
		{"pathE-pathE", tinyPathE, tinyPathE, 1, 1},
	}
	for _, tc := range tests {
		if got := pairValue(t, &Graphlet{}, tc.g, tc.h, Explicit); got != tc.gl {
			t.Errorf("%s: GL = %v, want %v", tc.name, got, tc.gl)
		}
		for _, m := range []Method{Explicit, Implicit} {
			if got := pairValue(t, &SubgraphMatching{}, tc.g, tc.h, m); got != tc.csm {
				t.Errorf("%s: CSM (%s) = %v, want %v", tc.name, m, got, tc.csm)
			}
		}
	}
}

// bruteTriples counts the connected induced three-vertex subgraphs of g by
// visiting every vertex triple; the canonical string is the smallest over
// all six orderings (a,b,c) of (l(a), e(ab), l(b), e(bc), l(c), e(ca)) with
// −1 for a missing edge — a different but equally canonical encoding from
// the kernel's, so counts are compared through kernel values.
func bruteTriples(g *graph.Graph) map[string]float64 {
	n := g.N()
	e := func(a, b int) int32 {
		if l, ok := edgeLabel(g, int32(a), int32(b)); ok {
			return l
		}
		return -1
	}
	counts := map[string]float64{}
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			for c := b + 1; c < n; c++ {
				edges := 0
				for _, x := range [][2]int{{a, b}, {b, c}, {a, c}} {
					if e(x[0], x[1]) >= 0 {
						edges++
					}
				}
				if edges < 2 {
					continue // not connected
				}
				best := ""
				for _, o := range [][3]int{{a, b, c}, {a, c, b}, {b, a, c}, {b, c, a}, {c, a, b}, {c, b, a}} {
					s := fmt.Sprint(g.Labels[o[0]], e(o[0], o[1]), g.Labels[o[1]], e(o[1], o[2]), g.Labels[o[2]], e(o[2], o[0]))
					if best == "" || s < best {
						best = s
					}
				}
				counts[best]++
			}
		}
	}
	return counts
}

// bruteCSM counts the isomorphisms between connected induced three-vertex
// subgraphs of g and h: ordered triples of distinct vertices that agree on
// all vertex labels, edges and edge labels, divided by the 3! orderings of
// each bijection.
func bruteCSM(g, h *graph.Graph) float64 {
	eg := func(a, b int) int32 {
		if l, ok := edgeLabel(g, int32(a), int32(b)); ok {
			return l
		}
		return -1
	}
	eh := func(a, b int) int32 {
		if l, ok := edgeLabel(h, int32(a), int32(b)); ok {
			return l
		}
		return -1
	}
	var count float64
	for a := 0; a < g.N(); a++ {
		for b := 0; b < g.N(); b++ {
			for c := 0; c < g.N(); c++ {
				if a == b || b == c || a == c {
					continue
				}
				if n := btoi(eg(a, b) >= 0) + btoi(eg(b, c) >= 0) + btoi(eg(a, c) >= 0); n < 2 {
					continue
				}
				for x := 0; x < h.N(); x++ {
					for y := 0; y < h.N(); y++ {
						for z := 0; z < h.N(); z++ {
							if x == y || y == z || x == z {
								continue
							}
							if g.Labels[a] != h.Labels[x] || g.Labels[b] != h.Labels[y] || g.Labels[c] != h.Labels[z] {
								continue
							}
							if eg(a, b) == eh(x, y) && eg(b, c) == eh(y, z) && eg(a, c) == eh(x, z) {
								count++
							}
						}
					}
				}
			}
		}
	}
	return count / 6
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestGraphletAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var gs []*graph.Graph
	for i := 0; i < 25; i++ {
		gs = append(gs, graphtest.Random(r, 1+r.IntN(8), 0.2+0.6*r.Float64(), 1+r.IntN(3), 1+r.IntN(3)))
	}
	K, _, err := (&Graphlet{}).Gram(context.Background(), gs, Explicit)
	if err != nil {
		t.Fatal(err)
	}
	C, _, err := (&SubgraphMatching{}).Gram(context.Background(), gs, Implicit)
	if err != nil {
		t.Fatal(err)
	}
	vecs, aut, err := (&Graphlet{}).FeatureVectors(context.Background(), gs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range gs {
		bi := bruteTriples(gs[i])
		for j := i; j < len(gs); j++ {
			bj := bruteTriples(gs[j])
			var want float64
			for s, c := range bi {
				want += c * bj[s]
			}
			if got := K.At(i, j); got != want {
				t.Errorf("GL K[%d,%d] = %v, brute force %v", i, j, got, want)
			}
			// The CSM identity: Σ_P |Aut(P)| c_G(P) c_H(P).
			var ident float64
			a, b := vecs[i], vecs[j]
			for x, y := 0, 0; x < a.Len() && y < b.Len(); {
				switch {
				case a.IDs[x] < b.IDs[y]:
					x++
				case a.IDs[x] > b.IDs[y]:
					y++
				default:
					ident += float64(aut[a.IDs[x]]) * a.Vals[x] * b.Vals[y]
					x++
					y++
				}
			}
			if got := C.At(i, j); got != ident {
				t.Errorf("CSM K[%d,%d] = %v, Σ|Aut|·c·c = %v", i, j, got, ident)
			}
			if j < i+4 { // the brute force is O(n⁶); a sample suffices
				if got, want := C.At(i, j), bruteCSM(gs[i], gs[j]); got != want {
					t.Errorf("CSM K[%d,%d] = %v, brute force %v", i, j, got, want)
				}
			}
		}
	}
}

// csmBothWays computes the CSM Gram matrix of gs by both methods and
// reports every entry where they differ: the counts are integers, so they
// must agree exactly.
func csmBothWays(t *testing.T, name string, gs []*graph.Graph) {
	t.Helper()
	k := &SubgraphMatching{}
	E, rep, err := k.Gram(context.Background(), gs, Explicit)
	if err != nil {
		t.Fatalf("%s: explicit: %v", name, err)
	}
	I, _, err := k.Gram(context.Background(), gs, Implicit)
	if err != nil {
		t.Fatalf("%s: implicit: %v", name, err)
	}
	bad := 0
	for i := range gs {
		for j := i; j < len(gs); j++ {
			if e, m := E.At(i, j), I.At(i, j); e != m {
				if bad++; bad <= 5 {
					t.Errorf("%s: K[%d,%d] explicit %v, implicit %v", name, i, j, e, m)
				}
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d entries differ in all", name, bad)
	}
	if rep.Method != Explicit {
		t.Errorf("%s: explicit report %v", name, rep)
	}
}

func TestCSMExplicitEqualsImplicitTiny(t *testing.T) {
	empty := graph.MustBuild(nil, nil)
	single := graph.MustBuild([]int32{3}, nil)
	edge := graph.MustBuild([]int32{0, 0}, []graph.Edge{{U: 0, V: 1, Label: 2}})
	csmBothWays(t, "tiny", []*graph.Graph{tinyPath, tinyStar, tinyTriangle, tinyK3, tinyC4, tinyPathE, empty, single, edge})
	csmBothWays(t, "one graph", []*graph.Graph{tinyStar})
}

func TestCSMExplicitEqualsImplicitRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct {
		n      int
		p      float64
		vl, el int
		graphs int
	}{
		{12, 0.5, 1, 1, 12}, // uniform labels: patterns with many automorphisms
		{15, 0.3, 2, 2, 20},
		{20, 0.6, 3, 1, 15},
		{25, 0.2, 4, 3, 20},
		{30, 0.9, 2, 2, 8}, // near-cliques: triangles dominate
	} {
		var gs []*graph.Graph
		for i := 0; i < tc.graphs; i++ {
			gs = append(gs, graphtest.Random(r, 1+r.IntN(tc.n), tc.p, tc.vl, tc.el))
		}
		csmBothWays(t, fmt.Sprintf("n≤%d p=%v labels %d/%d", tc.n, tc.p, tc.vl, tc.el), gs)
	}
}

func TestCSMExplicitEqualsImplicitMUTAG(t *testing.T) {
	ds := graphtest.Dataset(t, "MUTAG")
	csmBothWays(t, "MUTAG", ds.Graphs)
}

func TestCSMMethods(t *testing.T) {
	k, err := New("csm", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Method{Explicit, Implicit, Auto} {
		if !Supports(k, m) {
			t.Errorf("csm does not support %s", m)
		}
	}
	if _, _, err := k.Gram(context.Background(), []*graph.Graph{tinyPath}, Auto); err == nil {
		t.Error("Gram by auto: no error (auto is resolved by the caller)")
	}
	doc, _, err := Describe("csm")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"explicit", "implicit"} {
		if !strings.Contains(doc, want) {
			t.Errorf("csm doc %q does not mention %s", doc, want)
		}
	}
}
