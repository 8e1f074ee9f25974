package graph

import (
	"fmt"
	"math/rand/v2"
)

// Dataset is a named collection of graphs with one class label per graph and
// the dictionaries that map the dense label ids used in the graphs back to
// the integers of the source files.
type Dataset struct {
	// Name identifies the data set, e.g. "MUTAG".
	Name string
	// Graphs holds the graphs in file order.
	Graphs []*Graph
	// Classes holds the class label of each graph, as written in the source.
	Classes []int64
	// NodeLabels maps a vertex label id to its value in the source file. It
	// is nil when the source has no vertex labels; every vertex then has the
	// label 0.
	NodeLabels []int64
	// EdgeLabels maps an edge label id to its value in the source file. It
	// is nil when the source has no edge labels; every edge then has the
	// label 0.
	EdgeLabels []int64
	// AttrDim is the number of real-valued attributes per vertex, 0 if none.
	AttrDim int
}

// Len returns the number of graphs.
func (d *Dataset) Len() int { return len(d.Graphs) }

// Subset returns the data set of the graphs at the given indices, in that
// order. The graphs are shared, not copied; the dictionaries are kept whole so
// that label ids keep their meaning.
func (d *Dataset) Subset(idx []int) (*Dataset, error) {
	s := &Dataset{
		Name:       d.Name,
		Graphs:     make([]*Graph, len(idx)),
		Classes:    make([]int64, len(idx)),
		NodeLabels: d.NodeLabels,
		EdgeLabels: d.EdgeLabels,
		AttrDim:    d.AttrDim,
	}
	for i, j := range idx {
		if j < 0 || j >= len(d.Graphs) {
			return nil, fmt.Errorf("subset of %s: index %d out of range [0,%d)", d.Name, j, len(d.Graphs))
		}
		s.Graphs[i] = d.Graphs[j]
		s.Classes[i] = d.Classes[j]
	}
	return s, nil
}

// Stats summarises a data set as in Table 2 of the paper.
type Stats struct {
	Graphs  int
	Classes int
	// AvgV and AvgE are the mean numbers of vertices and undirected edges.
	AvgV, AvgE float64
	// VertexLabels and EdgeLabels count the distinct labels in use; they are
	// 0 when the source has no labels of that kind.
	VertexLabels, EdgeLabels int
	// AttrDim is the number of attributes per vertex.
	AttrDim int
}

// Stats computes the Table 2 statistics of d.
func (d *Dataset) Stats() Stats {
	s := Stats{Graphs: len(d.Graphs), AttrDim: d.AttrDim}
	classes := make(map[int64]bool)
	for _, c := range d.Classes {
		classes[c] = true
	}
	s.Classes = len(classes)
	var nv, ne int
	vl := make(map[int32]bool)
	el := make(map[int32]bool)
	for _, g := range d.Graphs {
		nv += g.N()
		ne += g.M()
		if d.NodeLabels != nil {
			for _, l := range g.Labels {
				vl[l] = true
			}
		}
		if d.EdgeLabels != nil {
			for _, l := range g.EdgeLabels {
				el[l] = true
			}
		}
	}
	if len(d.Graphs) > 0 {
		s.AvgV = float64(nv) / float64(len(d.Graphs))
		s.AvgE = float64(ne) / float64(len(d.Graphs))
	}
	s.VertexLabels = len(vl)
	s.EdgeLabels = len(el)
	return s
}

// RandomSubset returns n graphs drawn without replacement by a permutation
// seeded with seed, in the order drawn. For one seed the subsets are nested:
// the subset of size n is a prefix of the subset of any larger size, which is
// how the paper grows data sets "by adding random graphs".
func (d *Dataset) RandomSubset(n int, seed uint64) (*Dataset, error) {
	if n < 0 || n > len(d.Graphs) {
		return nil, fmt.Errorf("subset of %s: size %d out of range [0,%d]", d.Name, n, len(d.Graphs))
	}
	r := rand.New(rand.NewPCG(seed, 0x73756273657473)) // "subsets"
	return d.Subset(r.Perm(len(d.Graphs))[:n])
}
