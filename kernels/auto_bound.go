package kernels

import (
	"fmt"

	"github.com/gkbench/gkbench/graph"
)

// Labels below boundVertexLabels and edge labels below boundEdgeLabels
// let takeCensus count the labels it meets in small tables. MUTAG has 7
// vertex and 4 edge labels, ENZYMES and PROTEINS 3 and none, the walk
// generator 3 and none.
const (
	boundVertexLabels = 32
	boundEdgeLabels   = 8
)

// labelCensus is what one pass over the labels and degrees of all graphs
// tells of both methods' work, for Dirac kernels.
type labelCensus struct {
	// walks bounds the walks W_0..W_l of the label graph of all graphs
	// (see implicitProbe.labelWalks, which sees a sample) by L·(E·L)^i,
	// with L the vertex labels and E the edge labels met: a label
	// sequence of length i is a vertex label and i pairs of an edge
	// label and a vertex label. Where every such pair occurs on an arc,
	// as in the walk generator's graphs, the bound is the walks.
	walks []float64
	// degree holds for each graph its maximum degree Δ, or where that
	// cannot change boundWork's bound, a lower bound of it (see
	// degreeFloor).
	degree []int32
	// vertices is the number of product-graph vertices of all pairs
	// i ≤ j, Σ_l (S_l² + Q_l)/2 with S_l the vertices of label l in all
	// graphs and Q_l the sum of their squares per graph (see pairSums).
	vertices float64
	// touched is the bitwise or of the words that takeCensus loads
	// ahead of its pass, kept so that those loads are not dropped as
	// dead.
	touched int32
}

// touchLines returns the bitwise or of one word of each 64-byte cache
// line of x, which it loads into the cache.
func touchLines(x []int32) int32 {
	var t int32
	for i := 0; i < len(x); i += 16 {
		t |= x[i]
	}
	return t
}

// takeCensus reads every graph's labels and edge labels as flat arrays,
// and the offsets of those whose maximum degree the bound needs, for
// walks of length l. Reading the arcs vertex by vertex for their label
// pairs, whose short and varying loops cost a mispredicted branch per
// vertex, took 19 µs on 300 graphs of 20 vertices, where the edge labels
// alone took 6 µs. It returns false where a label is too large for its
// table.
//
// The advice runs after other work has left the graphs out of the cache,
// and then the census is most of it: on 200 graphs of p_V 0 at length 3,
// whose explicit run takes 0.5 ms, it took 25–27 µs of the advice's 41
// (medians of 150, each after a pass through 64 MiB), as each graph's
// arrays were loaded only once the loop reached them, after the graph and
// their headers. So a first pass loads a word of every cache line of
// every graph's arrays, loads that do not wait for one another, and the
// census then finds them in the cache: 17–18 µs of 32–35, and on 300
// graphs 26–28 µs of 42–45 where it took 38–43 of 54–60. With the graphs
// in the cache the pass costs 0.6–0.9 µs. The offsets are read only where
// the labels leave the degree to decide the bound (see degreeFloor): on
// 300 graphs of p_V 0, whose one label bounds every graph, that took the
// census from 29–33 to 25–28 µs (medians of 300, each after a pass
// through 32 MiB and a collection), and the advice from 39–40 to 37–38.
func takeCensus(gs []*graph.Graph, l int) (labelCensus, bool) {
	var edges [boundEdgeLabels]bool
	var count, total [boundVertexLabels]int64
	c := labelCensus{degree: make([]int32, len(gs))}
	for _, g := range gs {
		c.touched |= touchLines(g.Labels)
		if lo, hi := g.EdgeLabelRange(); lo != hi {
			c.touched |= touchLines(g.EdgeLabels)
		}
	}
	var q int64
	for _, g := range gs {
		var top uint32 // the largest label of g
		for _, lv := range g.Labels {
			if uint32(lv) >= boundVertexLabels {
				return labelCensus{}, false
			}
			count[lv]++
			top = max(top, uint32(lv))
		}
		for lv, x := range count[:top+1] {
			total[lv] += x
			q += x * x
		}
		clear(count[:top+1])
		// A graph whose edges carry one label, as graph.Build's ranges
		// tell, is not scanned.
		lo, hi := g.EdgeLabelRange()
		switch {
		case lo > hi:
		case lo < 0 || hi >= boundEdgeLabels:
			return labelCensus{}, false
		case lo == hi:
			edges[lo] = true
		default:
			for _, le := range g.EdgeLabels {
				edges[le] = true
			}
		}
	}
	var nl, ne, s2 float64
	for _, x := range total {
		if x > 0 {
			nl++
			s2 += float64(x) * float64(x)
		}
	}
	for _, ok := range edges {
		if ok {
			ne++
		}
	}
	c.vertices = (s2 + float64(q)) / 2
	c.walks = make([]float64, l+1)
	c.walks[0] = nl
	for i := 1; i <= l; i++ {
		c.walks[i] = c.walks[i-1] * ne * nl
	}
	// The degrees the bound needs, their offsets loaded ahead as the
	// labels were.
	for i, g := range gs {
		d, ok := degreeFloor(g, c.walks)
		if !ok {
			d = -1
			c.touched |= touchLines(g.Offsets)
		}
		c.degree[i] = d
	}
	for i, g := range gs {
		if c.degree[i] >= 0 {
			continue
		}
		var deg int32
		for v, o := range g.Offsets[1:] {
			deg = max(deg, o-g.Offsets[v])
		}
		c.degree[i] = deg
	}
	return c, true
}

// degreeFloor returns a lower bound d of g's maximum degree Δ, from its
// header alone, and whether boundWork bounds g's work the same with d as
// with Δ, given walks, the label sequences W_i: boundWork takes
// min(W_i, Δ^i) for the sequences of length i of a vertex, which is W_i
// for every i ≥ 1 where d^i ≥ W_i, as then Δ^i ≥ W_i too. d is the
// average degree rounded up, or 0 for a graph without edges, whose Δ it
// is. With one vertex label and one edge label, as on the walk grid's
// data sets of p_V 0, every graph with an edge is so bounded.
func degreeFloor(g *graph.Graph, walks []float64) (int32, bool) {
	arcs, n := len(g.Adj), g.N()
	if arcs == 0 {
		return 0, true
	}
	d := (arcs + n - 1) / n
	p := 1.0
	for _, w := range walks[1:] {
		p *= float64(d)
		if p < w {
			return 0, false
		}
	}
	return int32(d), true
}

// implicitBound bounds the implicit method's time from below by its pairs
// and the product vertices of the census, leaving out the product edges,
// which only the sample counts.
func (c *labelCensus) implicitBound(m walkModel, n, l int) estimate {
	nf := float64(n)
	pairs := nf * (nf + 1) / 2
	ts := []CostTerm{
		m.term(costImplicitPair, pairs, "pairs"),
		m.term(costImplicitVertex, c.vertices, "product vertices"),
		m.term(costImplicitVertexStep, float64(l)*c.vertices, "product vertices × steps"),
	}
	each := c.vertices / pairs
	return newEstimate(ts, func() string {
		return fmt.Sprintf("at least: the pairs and the product vertices counted on all pairs (%.0f each) without their edges, %d steps", each, l)
	})
}

// workBound is an upper bound of the explicit method's work: the counts
// of mapWork, the graph vectors' non-zeros and the distinct sequences.
type workBound struct {
	extends, nonzeros, steps, nnz, features float64
}

// boundWork bounds the work of the explicit maps of gs from above, given
// the census of their labels and degrees (see labelCensus), without
// mapping a graph: a vertex of a graph of maximum degree Δ has at most
// s_i = min(W_i, Δ^i) distinct sequences of length i, so round i extends
// at most (arcs)·s_{i−1} of them and flushes at most |V|·s_i, and the
// graph vector has at most min(W_l, |V|·s_l) non-zeros (for the Max
// kernel, and for length 0, the sum of these over the lengths 0 to l,
// each round's vectors flushed once more into the graph's). The distinct
// sequences of all maps are at most Σ_i W_i. With one label and one edge
// label the bound is close: every vertex with an edge has exactly one
// sequence of each length.
func boundWork(k *Walk, gs []*graph.Graph, c *labelCensus) workBound {
	l, walks := k.Length, c.walks
	w := workBound{features: sum(walks[:l+1])}
	var buf [16]float64
	s := buf[:0]
	if l+1 > len(buf) {
		s = make([]float64, 0, l+1)
	}
	s = s[:l+1]
	for j, g := range gs {
		deg := c.degree[j]
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
// dotTerms).
func explicitBound(k *Walk, gs []*graph.Graph, m walkModel, c *labelCensus) (estimate, bool) {
	F := sum(c.walks[:k.Length+1]) // +Inf where the walks overflow
	if F > scatterMaxDim {
		return estimate{}, false
	}
	w := boundWork(k, gs, c)
	n := float64(len(gs))
	// One slice for the terms, and reasons that format their numbers
	// themselves, here and in implicitBound: the advice of the smallest
	// cells allocates right after the runner's collection, where each
	// new size of object costs a refill of the allocator's cache.
	ts := appendMapTerms(make([]CostTerm, 0, 7), m, costExplicitExtend, w.extends, w.nonzeros, w.steps, w.features)
	ts, _ = dotTerms(ts, m, n, w.nnz, n*w.nnz, w.features, nil)
	nnz := w.nnz / n
	return newEstimate(ts, func() string {
		return fmt.Sprintf("at most: bounded by the %.0f label sequences the labels allow and the graphs' degrees, without a map (%.0f non-zeros a graph at most)", F, nnz)
	}), true
}
