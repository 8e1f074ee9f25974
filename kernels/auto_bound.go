package kernels

import (
	"fmt"
	"math"

	"github.com/gkbench/gkbench/graph"
)

// Labels below boundVertexLabels and edge labels below boundEdgeLabels
// let labelBound mark the labels it meets in small tables. MUTAG has 7
// vertex and 4 edge labels, ENZYMES and PROTEINS 3 and none, the walk
// generator 3 and none.
const (
	boundVertexLabels = 32
	boundEdgeLabels   = 8
)

// labelBound bounds the walks W_0..W_l of the label graph of all of gs
// (see implicitProbe.labelWalks, which sees a sample) by L·(E·L)^i, with
// L the vertex labels of gs and E their edge labels: a label sequence of
// length i is a vertex label and i pairs of an edge label and a vertex
// label. It reads the labels and edge labels as flat arrays, not the arcs
// vertex by vertex, whose short and varying loops cost a mispredicted
// branch per vertex: on 300 graphs of 20 vertices, the arcs' label pairs
// took 19 µs, these 6 µs. Where every label pair occurs on an arc, as in
// the walk generator's graphs, the bound is the walks. It returns false
// where a label is too large for its table.
func labelBound(gs []*graph.Graph, l int) ([]float64, bool) {
	var labels [boundVertexLabels]bool
	var edges [boundEdgeLabels]bool
	for _, g := range gs {
		for _, lv := range g.Labels {
			if uint32(lv) >= boundVertexLabels {
				return nil, false
			}
			labels[lv] = true
		}
		for _, le := range g.EdgeLabels {
			if uint32(le) >= boundEdgeLabels {
				return nil, false
			}
			edges[le] = true
		}
	}
	var nl, ne float64
	for _, ok := range labels {
		if ok {
			nl++
		}
	}
	for _, ok := range edges {
		if ok {
			ne++
		}
	}
	w := make([]float64, l+1)
	w[0] = nl
	for i := 1; i <= l; i++ {
		w[i] = w[i-1] * ne * nl
	}
	return w, true
}

// workBound is an upper bound of the explicit method's work: the counts
// of mapWork, the graph vectors' non-zeros and the distinct sequences.
type workBound struct {
	extends, nonzeros, steps, nnz, features float64
}

// boundWork bounds the work of the explicit maps of gs from above, given
// bounds W_0..W_l of the label graph's walks (see labelBound), without
// mapping a graph: a vertex of a graph of maximum degree Δ has at most
// s_i = min(W_i, Δ^i) distinct sequences of length i, so round i extends
// at most (arcs)·s_{i−1} of them and flushes at most |V|·s_i, and the
// graph vector has at most min(W_l, |V|·s_l) non-zeros (for the Max
// kernel, and for length 0, the sum of these over the lengths 0 to l,
// each round's vectors flushed once more into the graph's). The distinct sequences of all maps are at most Σ_i W_i. With one
// label and one edge label the bound is close: every vertex with an edge
// has exactly one sequence of each length.
func boundWork(k *Walk, gs []*graph.Graph, walks []float64) workBound {
	l := k.Length
	w := workBound{features: sum(walks)}
	s := make([]float64, l+1)
	for _, g := range gs {
		var deg int32
		for v, o := range g.Offsets[1:] {
			deg = max(deg, o-g.Offsets[v])
		}
		nv, arcs := float64(g.N()), float64(len(g.Adj))
		walk := 1.0
		for i := range s {
			s[i] = min(walks[i], walk)
			walk *= float64(deg)
		}
		w.steps += float64(l) * (nv + arcs)
		w.nonzeros += nv
		for i := 1; i <= l; i++ {
			w.extends += arcs * s[i-1]
			if i < l {
				w.nonzeros += nv * s[i]
			}
		}
		vec := min(walks[l], nv*s[l])
		if k.Max || l == 0 {
			// Each round's vectors are added to the graph's.
			vec = 0
			for i := 0; i <= l; i++ {
				vec += min(walks[i], nv*s[i])
				w.nonzeros += nv * s[i]
			}
		}
		w.nonzeros += vec
		w.nnz += vec
	}
	return w
}

// explicitBound prices boundWork: the maps as mapTerms does, and the dot
// products as gathered products with every feature in every graph. It
// reports false where the sequences may be too many to gather (see
// dotTerms), or are not bounded.
func explicitBound(k *Walk, gs []*graph.Graph, m walkModel, walks []float64) (estimate, bool) {
	F := sum(walks)
	if math.IsInf(F, 1) || F > scatterMaxDim {
		return estimate{}, false
	}
	w := boundWork(k, gs, walks)
	n := float64(len(gs))
	ts := mapTerms(m, costExplicitExtend, w.extends, w.nonzeros, w.steps, w.features)
	dots, _ := dotTerms(m, n, w.nnz, n*w.nnz, w.features, nil)
	ts = append(ts, dots...)
	return newEstimate(ts, fmt.Sprintf("at most: bounded by the %.0f label sequences the labels allow and the graphs' degrees, without a map (%.0f non-zeros a graph at most)", F, w.nnz/n)), true
}
