package kernels

import "github.com/gkbench/gkbench/graph"

// VertexKernel compares vertex u of graph g with vertex v of graph h. Its
// values must be non-negative; pairs with value 0 are left out of product
// graphs, which is what makes sparse vertex kernels cheap to compute
// implicitly.
type VertexKernel interface {
	Vertex(g *graph.Graph, u int, h *graph.Graph, v int) float64
}

// EdgeKernel compares an edge of g with an edge of h. Edges are named by
// their adjacency index: a is an index into g.Adj, b into h.Adj. Values must
// be non-negative.
type EdgeKernel interface {
	Edge(g *graph.Graph, a int, h *graph.Graph, b int) float64
}

// Feature is one non-zero component of a base kernel's feature vector. IDs
// live in the base kernel's own space; composite kernels intern tuples of
// them into ids of their own.
type Feature struct {
	ID  uint64
	Val float64
}

// VertexMap is a vertex kernel with an explicit feature map:
// Vertex(g,u,h,v) = ⟨VertexFeatures(g,u), VertexFeatures(h,v)⟩.
type VertexMap interface {
	VertexKernel
	// VertexFeatures appends the non-zero features of vertex v of g to dst,
	// with distinct ids, and returns the extended slice.
	VertexFeatures(dst []Feature, g *graph.Graph, v int) []Feature
}

// EdgeMap is an edge kernel with an explicit feature map.
type EdgeMap interface {
	EdgeKernel
	// EdgeFeatures appends the non-zero features of the edge at adjacency
	// index a of g to dst and returns the extended slice.
	EdgeFeatures(dst []Feature, g *graph.Graph, a int) []Feature
}

// Dirac is the Dirac kernel on discrete labels: 1 when the labels are equal,
// 0 otherwise. Its feature map has a single non-zero, the label itself. As a
// vertex kernel it compares vertex labels, as an edge kernel edge labels.
// Kernels recognise it and take integer-label fast paths.
type Dirac struct{}

// Vertex implements VertexKernel.
func (Dirac) Vertex(g *graph.Graph, u int, h *graph.Graph, v int) float64 {
	if g.Labels[u] == h.Labels[v] {
		return 1
	}
	return 0
}

// Edge implements EdgeKernel.
func (Dirac) Edge(g *graph.Graph, a int, h *graph.Graph, b int) float64 {
	if g.EdgeLabels[a] == h.EdgeLabels[b] {
		return 1
	}
	return 0
}

// VertexFeatures implements VertexMap.
func (Dirac) VertexFeatures(dst []Feature, g *graph.Graph, v int) []Feature {
	return append(dst, Feature{uint64(uint32(g.Labels[v])), 1})
}

// EdgeFeatures implements EdgeMap.
func (Dirac) EdgeFeatures(dst []Feature, g *graph.Graph, a int) []Feature {
	return append(dst, Feature{uint64(uint32(g.EdgeLabels[a])), 1})
}

// isDirac reports whether k is the Dirac kernel (nil means Dirac).
func isDirac(k any) bool {
	if k == nil {
		return true
	}
	_, ok := k.(Dirac)
	return ok
}

// labelsWithin reports whether the labels ranging over [lo, hi], as
// graph.Graph's VertexLabelRange and EdgeLabelRange give them (none where
// lo > hi), all lie in [0, limit): the check of the kernels whose packed
// keys or tables hold labels below a bound.
func labelsWithin(lo, hi, limit int32) bool { return lo > hi || lo >= 0 && hi < limit }
