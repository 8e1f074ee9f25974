package kernels

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
	"gonum.org/v1/gonum/mat"
)

// tinyK3 is a triangle with one vertex label: K3 × K3 is 4-regular on 9
// vertices, so its spectral radius is 4 and 1 is an eigenvector, giving
// K(K3,K3) = 1ᵀ(I − γA)⁻¹1 = 9/(1 − 4γ) for γ < 1/4.
var tinyK3 = graph.MustBuild([]int32{0, 0, 0}, []graph.Edge{{U: 0, V: 1}, {U: 0, V: 2}, {U: 1, V: 2}})

func TestGRWClosedForm(t *testing.T) {
	tests := []struct {
		gamma float64
		want  float64
	}{
		{0.2, 9 / (1 - 0.8)}, // 45
		{0.1, 9 / (1 - 0.4)}, // 15
		{1e-3, 9 / (1 - 4e-3)},
	}
	for _, tc := range tests {
		got := pairValue(t, &GeometricWalk{Gamma: tc.gamma}, tinyK3, tinyK3, Implicit)
		if math.Abs(got-tc.want) > 1e-10*tc.want {
			t.Errorf("γ=%g: K = %.15g, want %.15g", tc.gamma, got, tc.want)
		}
	}
}

// TestGRWDiverges checks that γ ≥ 1/ρ(K3×K3) = 1/4 is refused with the
// spectral radius bound, never answered with a non-finite number.
func TestGRWDiverges(t *testing.T) {
	for _, gamma := range []float64{0.25, 0.3, 0.9} {
		_, _, err := (&GeometricWalk{Gamma: gamma}).Gram(context.Background(), []*graph.Graph{tinyK3}, Implicit)
		var de *DivergenceError
		if !errors.As(err, &de) {
			t.Errorf("γ=%g: err = %v, want a DivergenceError", gamma, err)
			continue
		}
		// ρ = 4 exactly; the ratio of walk sums is 4 from the first step.
		if math.Abs(de.RhoLower-4) > 1e-9 {
			t.Errorf("γ=%g: ρ lower bound %g, want 4", gamma, de.RhoLower)
		}
	}
}

// TestGRWAgainstInverse compares the converged series with a dense solve of
// (I − γA×)x = 1 on random graphs' product graphs.
func TestGRWAgainstInverse(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 20; trial++ {
		g := graphtest.Random(r, 2+r.IntN(6), 0.5, 2, 2)
		h := graphtest.Random(r, 2+r.IntN(6), 0.5, 2, 2)
		A, n := productAdjacency(g, h)
		if n == 0 {
			continue
		}
		// pairValue computes the 2×2 Gram matrix, so γ must make the
		// series converge on g×g and h×h too; a row sum bounds ρ.
		Agg, ng := productAdjacency(g, g)
		Ahh, nh := productAdjacency(h, h)
		gamma := 0.5 / max(1, maxRowSum(A, n), maxRowSum(Agg, ng), maxRowSum(Ahh, nh))
		M := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				d := 0.0
				if i == j {
					d = 1
				}
				M.Set(i, j, d-gamma*A[i*n+j])
			}
		}
		ones := mat.NewVecDense(n, nil)
		for i := 0; i < n; i++ {
			ones.SetVec(i, 1)
		}
		var x mat.VecDense
		if err := x.SolveVec(M, ones); err != nil {
			t.Fatal(err)
		}
		want := mat.Sum(&x)
		got := pairValue(t, &GeometricWalk{Gamma: gamma}, g, h, Implicit)
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("trial %d: K = %.15g, (I−γA)⁻¹ gives %.15g", trial, got, want)
		}
	}
}

// productAdjacency builds the dense adjacency matrix of the Dirac product
// graph by definition, independently of the kernels' code.
func productAdjacency(g, h *graph.Graph) ([]float64, int) {
	type pv struct{ u, v int }
	var vs []pv
	id := map[pv]int{}
	for u := 0; u < g.N(); u++ {
		for v := 0; v < h.N(); v++ {
			if g.Labels[u] == h.Labels[v] {
				id[pv{u, v}] = len(vs)
				vs = append(vs, pv{u, v})
			}
		}
	}
	n := len(vs)
	A := make([]float64, n*n)
	for i, a := range vs {
		for x := g.Offsets[a.u]; x < g.Offsets[a.u+1]; x++ {
			for y := h.Offsets[a.v]; y < h.Offsets[a.v+1]; y++ {
				if g.EdgeLabels[x] != h.EdgeLabels[y] {
					continue
				}
				if j, ok := id[pv{int(g.Adj[x]), int(h.Adj[y])}]; ok {
					A[i*n+j] = 1
				}
			}
		}
	}
	return A, n
}

func maxRowSum(A []float64, n int) float64 {
	m := 0.0
	for i := 0; i < n; i++ {
		s := 0.0
		for j := 0; j < n; j++ {
			s += A[i*n+j]
		}
		m = max(m, s)
	}
	return m
}

// TestGRWTruncatedEqualsWalkSum checks the truncated series against the
// Max-l-walk kernel with λ_i = γ^i, Σ_{l≤L} γ^l K=_l, on MUTAG.
func TestGRWTruncatedEqualsWalkSum(t *testing.T) {
	ds := graphtest.Dataset(t, "MUTAG")
	gs := ds.Graphs[:60]
	for _, gamma := range []float64{1e-2, 1e-3} {
		for _, L := range []int{0, 3, 8} {
			lambda := make([]float64, L+1)
			for i := range lambda {
				lambda[i] = math.Pow(gamma, float64(i))
			}
			kw, _, err := (&Walk{Length: L, Max: true, Lambda: lambda}).Gram(context.Background(), gs, Explicit)
			if err != nil {
				t.Fatal(err)
			}
			kg, _, err := (&GeometricWalk{Gamma: gamma, Terms: L + 1}).Gram(context.Background(), gs, Implicit)
			if err != nil {
				t.Fatal(err)
			}
			for i := range gs {
				for j := i; j < len(gs); j++ {
					a, b := kw.At(i, j), kg.At(i, j)
					if math.Abs(a-b) > 1e-9*math.Abs(a) {
						t.Fatalf("γ=%g L=%d K[%d,%d]: walk sum %.15g, truncated GRW %.15g", gamma, L, i, j, a, b)
					}
				}
			}
		}
	}
}

// TestGRWConvergesToWalkSeries checks the full series against a long
// truncation on MUTAG, where γ = 10^-2 converges quickly.
func TestGRWConvergesToWalkSeries(t *testing.T) {
	ds := graphtest.Dataset(t, "MUTAG")
	gs := ds.Graphs[:30]
	full, _, err := (&GeometricWalk{Gamma: 1e-2}).Gram(context.Background(), gs, Implicit)
	if err != nil {
		t.Fatal(err)
	}
	trunc, _, err := (&GeometricWalk{Gamma: 1e-2, Terms: 40}).Gram(context.Background(), gs, Implicit)
	if err != nil {
		t.Fatal(err)
	}
	for i := range gs {
		for j := i; j < len(gs); j++ {
			a, b := full.At(i, j), trunc.At(i, j)
			if math.IsNaN(a) || math.IsInf(a, 0) || math.Abs(a-b) > 1e-11*b {
				t.Fatalf("K[%d,%d]: converged %.15g, 40 terms %.15g", i, j, a, b)
			}
		}
	}
}

func TestGRWParams(t *testing.T) {
	tests := []struct {
		p       Params
		wantErr bool
	}{
		{Params{"gamma": "0.001"}, false},
		{Params{"gamma": "0.01", "terms": "5"}, false},
		{Params{}, true},
		{Params{"gamma": "0"}, true},
		{Params{"gamma": "1"}, true},
		{Params{"gamma": "0.1", "terms": "-1"}, true},
		{Params{"gamma": "0.1", "length": "2"}, true},
		{Params{"gamma": "0.1", "threads": "2"}, false},
		{Params{"gamma": "0.1", "threads": "0"}, true},
	}
	for _, tc := range tests {
		_, err := New("grw", tc.p)
		if (err != nil) != tc.wantErr {
			t.Errorf("%v: err = %v, want error %v", tc.p, err, tc.wantErr)
		}
	}
	if _, _, err := (&GeometricWalk{Gamma: 0.1}).Gram(context.Background(), nil, Explicit); err == nil {
		t.Error("explicit GRW: no error")
	}
}

// TestGRWThreads checks that the Gram matrix and the Report's counters on
// 2 and 3 threads equal, bit for bit, those on one: each pair's series is
// summed by one worker, with the same arithmetic. It covers the Dirac
// product graphs, the generic ones of a vertex kernel that is not Dirac
// by type (slowDirac), and a truncated series. A diverging series is a
// DivergenceError on any number of threads.
func TestGRWThreads(t *testing.T) {
	gs := graphtest.Dataset(t, "MUTAG").Graphs[:50]
	for _, tc := range []struct {
		name string
		k    GeometricWalk
	}{
		{"dirac", GeometricWalk{Gamma: 0.05}},
		{"generic", GeometricWalk{Gamma: 0.05, Vertex: slowDirac{}}},
		{"truncated", GeometricWalk{Gamma: 0.2, Terms: 6}},
	} {
		k := tc.k
		want, wantRep, err := k.Gram(context.Background(), gs, Implicit)
		if err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{2, 3} {
			k.Threads = threads
			got, rep, err := k.Gram(threadsContext(threads), gs, Implicit)
			if err != nil {
				t.Fatal(err)
			}
			requireEqual(t, fmt.Sprintf("%s, %d threads", tc.name, threads), want, got)
			if c := spCounters(rep); c != spCounters(wantRep) {
				t.Errorf("%s, %d threads: counters %+v, want %+v", tc.name, threads, c, spCounters(wantRep))
			}
		}
	}
	// MUTAG's molecules have rings, and a cycle has spectral radius 2;
	// the product graph of a graph with itself holds the graph (its
	// diagonal), and a subgraph's radius bounds the graph's from below,
	// so γ = 0.9 diverges.
	for _, threads := range []int{1, 2} {
		_, _, err := (&GeometricWalk{Gamma: 0.9, Threads: threads}).Gram(threadsContext(threads), gs, Implicit)
		var de *DivergenceError
		if !errors.As(err, &de) {
			t.Errorf("%d threads: err = %v, want a DivergenceError", threads, err)
		}
	}
}
