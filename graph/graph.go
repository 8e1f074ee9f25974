package graph

import (
	"fmt"
	"slices"
)

// Graph is an undirected graph in CSR form with integer vertex labels, integer
// edge labels stored per adjacency entry, and optional real-valued vertex
// attributes stored row-major.
//
// The zero value is the empty graph. Graphs are immutable once built; derived
// graphs (for example after relabelling) share the structure arrays. A graph
// of Build also keeps the ranges of its labels and its largest degree (see
// VertexLabelRange, EdgeLabelRange, MaxDegree), which reflect.DeepEqual
// compares too: compare graphs by their exported fields, or build both.
type Graph struct {
	// Offsets has N()+1 entries; the neighbours of v are
	// Adj[Offsets[v]:Offsets[v+1]].
	Offsets []int32
	// Adj lists the neighbours of every vertex, sorted ascending within a
	// vertex. Each undirected edge {u,v} appears twice: v in u's list and u
	// in v's list.
	Adj []int32
	// EdgeLabels[k] is the label of the edge Adj[k]. Both directions of an
	// edge carry the same label.
	EdgeLabels []int32
	// Labels[v] is the label of vertex v.
	Labels []int32
	// Attrs holds AttrDim attributes per vertex, row-major: the attributes of
	// v are Attrs[v*AttrDim : (v+1)*AttrDim]. It is nil when AttrDim is 0.
	Attrs []float64
	// AttrDim is the number of attributes per vertex.
	AttrDim int

	// vertexRange and edgeRange are the least and the largest of Labels
	// and EdgeLabels, and maxDegree the largest degree (in hi), as Build
	// found them: loops over many graphs ask for them.
	vertexRange, edgeRange, maxDegree kept
}

// kept is what Build found of one of a graph's arrays: the least and the
// largest label of a label array, or the largest degree of the offsets. It
// holds while the graph has that array, known by its first element and
// length: a graph that a caller assembled, or copied with other labels
// (WithLabels), is scanned instead. Loops over many graphs ask for these
// before any other work, where the arrays are out of the cache: in a
// benchmark's loop (runexp), the scan of the edge labels of 200 ENZYMES
// graphs, 24.8k arcs all labelled 0, that tells the refinement to number
// degrees (see degreeColours) took 71–90 µs (quartiles) of the 1.1–1.3 ms
// of GI's explicit matrix on two threads, before the worker that refines
// could start.
type kept struct {
	first  *int32
	n      int
	lo, hi int32
}

// keep returns a kept of a, whose lo and hi are the caller's to set.
func keep(a []int32) kept {
	k := kept{n: len(a)}
	if len(a) > 0 {
		k.first = &a[0]
	}
	return k
}

// holds reports whether k was taken of a.
func (k *kept) holds(a []int32) bool {
	return len(a) > 0 && k.first == &a[0] && k.n == len(a)
}

// scanRange returns the least and the largest of ls, lo > hi where ls is
// empty.
func scanRange(ls []int32) (lo, hi int32) {
	if len(ls) == 0 {
		return 0, -1
	}
	lo, hi = ls[0], ls[0]
	for _, l := range ls[1:] {
		lo, hi = min(lo, l), max(hi, l)
	}
	return lo, hi
}

// scanMaxDegree returns the largest difference of consecutive offsets, 0
// where there are none.
func scanMaxDegree(off []int32) int32 {
	var d int32
	for v := 1; v < len(off); v++ {
		d = max(d, off[v]-off[v-1])
	}
	return d
}

// VertexLabelRange returns the least and the largest vertex label of g, lo
// > hi where g has no vertex. For a graph of Build it reads what Build
// found, and else it scans the labels.
func (g *Graph) VertexLabelRange() (lo, hi int32) {
	if g.vertexRange.holds(g.Labels) {
		return g.vertexRange.lo, g.vertexRange.hi
	}
	return scanRange(g.Labels)
}

// EdgeLabelRange returns the least and the largest label of g's edges, lo
// > hi where EdgeLabels is empty. For a graph of Build it reads what Build
// found, and else it scans the labels.
func (g *Graph) EdgeLabelRange() (lo, hi int32) {
	if g.edgeRange.holds(g.EdgeLabels) {
		return g.edgeRange.lo, g.edgeRange.hi
	}
	return scanRange(g.EdgeLabels)
}

// MaxDegree returns the largest degree of g's vertices, 0 where it has
// none. For a graph of Build it reads what Build found, and else it scans
// the offsets.
func (g *Graph) MaxDegree() int {
	if g.maxDegree.holds(g.Offsets) {
		return int(g.maxDegree.hi)
	}
	return int(scanMaxDegree(g.Offsets))
}

// N returns the number of vertices.
func (g *Graph) N() int { return len(g.Labels) }

// M returns the number of undirected edges.
func (g *Graph) M() int { return len(g.Adj) / 2 }

// Degree returns the number of neighbours of v.
func (g *Graph) Degree(v int) int { return int(g.Offsets[v+1] - g.Offsets[v]) }

// Neighbors returns the neighbours of v, sorted ascending. The slice aliases
// the graph and must not be modified.
func (g *Graph) Neighbors(v int) []int32 { return g.Adj[g.Offsets[v]:g.Offsets[v+1]] }

// NeighborEdgeLabels returns the labels of the edges to Neighbors(v), in the
// same order. The slice aliases the graph and must not be modified.
func (g *Graph) NeighborEdgeLabels(v int) []int32 {
	return g.EdgeLabels[g.Offsets[v]:g.Offsets[v+1]]
}

// Attr returns the attribute vector of v, or nil when the graph has none.
func (g *Graph) Attr(v int) []float64 {
	if g.AttrDim == 0 {
		return nil
	}
	return g.Attrs[v*g.AttrDim : (v+1)*g.AttrDim]
}

// WithLabels returns a graph with the structure, edge labels and attributes
// of g and the vertex labels l, which must have g.N() entries. The result
// shares every array with g except the labels.
func (g *Graph) WithLabels(l []int32) *Graph {
	if len(l) != g.N() {
		panic(fmt.Sprintf("graph: WithLabels got %d labels for %d vertices", len(l), g.N()))
	}
	h := *g
	h.Labels = l
	h.vertexRange = kept{}
	return &h
}

// Relabelled returns the graphs gs with the vertex labels labels[i] of
// each graph i, as WithLabels does one graph: the refined graphs of a WL
// refinement from its colours.
func Relabelled(gs []*Graph, labels [][]int32) []*Graph {
	out := make([]*Graph, len(gs))
	for i, g := range gs {
		out[i] = g.WithLabels(labels[i])
	}
	return out
}

// Edge is an undirected edge between vertices U and V with a label, used to
// build graphs.
type Edge struct {
	U, V  int32
	Label int32
}

// Build returns the graph with the given vertex labels and edges. Edges may be
// given in either direction and repeated; repeats collapse into one edge.
// Build fails on a self-loop, an endpoint out of range, or one edge given
// with two different labels. attrs is nil or holds dim values per vertex.
func Build(labels []int32, edges []Edge, attrs []float64, dim int) (*Graph, error) {
	n := len(labels)
	if dim < 0 || (dim == 0 && attrs != nil && len(attrs) != 0) || len(attrs) != n*dim {
		return nil, fmt.Errorf("graph: %d attribute values for %d vertices of dimension %d", len(attrs), n, dim)
	}
	// Canonical directed pairs, both directions, sorted and deduplicated.
	type arc struct{ u, v, l int32 }
	arcs := make([]arc, 0, 2*len(edges))
	for _, e := range edges {
		if e.U < 0 || int(e.U) >= n || e.V < 0 || int(e.V) >= n {
			return nil, fmt.Errorf("graph: edge (%d,%d) out of range for %d vertices", e.U, e.V, n)
		}
		if e.U == e.V {
			return nil, fmt.Errorf("graph: self-loop at vertex %d", e.U)
		}
		arcs = append(arcs, arc{e.U, e.V, e.Label}, arc{e.V, e.U, e.Label})
	}
	slices.SortFunc(arcs, func(a, b arc) int {
		if a.u != b.u {
			return int(a.u - b.u)
		}
		return int(a.v - b.v)
	})
	g := &Graph{
		Offsets: make([]int32, n+1),
		Labels:  labels,
		AttrDim: dim,
	}
	if dim > 0 {
		g.Attrs = attrs
	}
	g.Adj = make([]int32, 0, len(arcs))
	g.EdgeLabels = make([]int32, 0, len(arcs))
	for i, a := range arcs {
		if i > 0 && arcs[i-1].u == a.u && arcs[i-1].v == a.v {
			if arcs[i-1].l != a.l {
				return nil, fmt.Errorf("graph: edge (%d,%d) has labels %d and %d", a.u, a.v, arcs[i-1].l, a.l)
			}
			continue
		}
		g.Adj = append(g.Adj, a.v)
		g.EdgeLabels = append(g.EdgeLabels, a.l)
		g.Offsets[a.u+1]++
	}
	for v := 0; v < n; v++ {
		g.Offsets[v+1] += g.Offsets[v]
	}
	g.vertexRange, g.edgeRange, g.maxDegree = keep(g.Labels), keep(g.EdgeLabels), keep(g.Offsets)
	g.vertexRange.lo, g.vertexRange.hi = scanRange(g.Labels)
	g.edgeRange.lo, g.edgeRange.hi = scanRange(g.EdgeLabels)
	g.maxDegree.hi = scanMaxDegree(g.Offsets)
	return g, nil
}

// MustBuild is like Build but panics on error. It is meant for graphs
// written out in tests and examples.
func MustBuild(labels []int32, edges []Edge) *Graph {
	g, err := Build(labels, edges, nil, 0)
	if err != nil {
		panic(err)
	}
	return g
}
