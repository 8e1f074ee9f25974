package graph

// ScaleAttributes returns graphs whose vertex attributes are scaled
// dimension-wise to [0, 1] over all of gs (min-max scaling), as in Section
// 5.2 of the paper, so that one kernel width suits every dimension. A
// dimension that is constant over the data set becomes 0. The graphs share
// their structure and labels with gs; graphs without attributes are returned
// as they are.
func ScaleAttributes(gs []*Graph) []*Graph {
	out, _ := ScaleAttributesOn(gs, Parallel{}) // no error without Run
	return out
}

// ScaleAttributesOn is ScaleAttributes with its loops over the graphs
// spread by par. The result is the same for any par: the least and largest
// values do not depend on the order they are found in.
func ScaleAttributesOn(gs []*Graph, par Parallel) ([]*Graph, error) {
	dim := 0
	for _, g := range gs {
		dim = max(dim, g.AttrDim)
	}
	if dim == 0 {
		return gs, nil
	}
	ranges := make([]attrRange, par.workers())
	for w := range ranges {
		ranges[w] = newAttrRange(dim)
	}
	if err := par.run(len(gs), func(w, k int) { ranges[w].add(gs[k]) }); err != nil {
		return nil, err
	}
	r := ranges[0]
	for _, o := range ranges[1:] {
		r.merge(o)
	}
	width := make([]float64, dim)
	for i := range width {
		width[i] = r.hi[i] - r.lo[i]
	}
	out := make([]*Graph, len(gs))
	err := par.run(len(gs), func(_, k int) {
		g := gs[k]
		d := g.AttrDim
		if d == 0 {
			out[k] = g
			return
		}
		h := *g
		h.Attrs = make([]float64, len(g.Attrs))
		l, w := r.lo[:d], width[:d]
		for off := 0; off < len(g.Attrs); off += d {
			dst := h.Attrs[off : off+d]
			for i, x := range g.Attrs[off : off+d] {
				if w[i] > 0 {
					dst[i] = (x - l[i]) / w[i]
				}
			}
		}
		out[k] = &h
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// attrRange holds the least and largest value of each attribute dimension
// seen so far.
type attrRange struct {
	lo, hi []float64
	seen   []bool
}

func newAttrRange(dim int) attrRange {
	return attrRange{make([]float64, dim), make([]float64, dim), make([]bool, dim)}
}

// add takes the attributes of g into r. The first vertex's start the
// dimensions not seen yet; the others are compared alone, row by row:
// with an integer modulo per value to find its dimension, and the check of
// each value's dimension, the scaling of ENZYMES took 6 ms, 17% of gi's
// Gram matrix on two threads, where this takes about 1.
func (r *attrRange) add(g *Graph) {
	d := g.AttrDim
	if d == 0 || len(g.Attrs) == 0 {
		return
	}
	for i, x := range g.Attrs[:d] {
		r.take(i, x)
	}
	l, h := r.lo[:d], r.hi[:d]
	for off := d; off < len(g.Attrs); off += d {
		for i, x := range g.Attrs[off : off+d] {
			if x < l[i] {
				l[i] = x
			}
			if x > h[i] {
				h[i] = x
			}
		}
	}
}

// take takes value x of dimension i into r.
func (r *attrRange) take(i int, x float64) {
	if !r.seen[i] || x < r.lo[i] {
		r.lo[i] = x
	}
	if !r.seen[i] || x > r.hi[i] {
		r.hi[i] = x
	}
	r.seen[i] = true
}

// merge takes the values of o into r.
func (r *attrRange) merge(o attrRange) {
	for i, seen := range o.seen {
		if seen {
			r.take(i, o.lo[i])
			r.take(i, o.hi[i])
		}
	}
}
