package graph

// ScaleAttributes returns graphs whose vertex attributes are scaled
// dimension-wise to [0, 1] over all of gs (min-max scaling), as in Section
// 5.2 of the paper, so that one kernel width suits every dimension. A
// dimension that is constant over the data set becomes 0. The graphs share
// their structure and labels with gs; graphs without attributes are returned
// as they are.
func ScaleAttributes(gs []*Graph) []*Graph {
	dim := 0
	for _, g := range gs {
		dim = max(dim, g.AttrDim)
	}
	if dim == 0 {
		return gs
	}
	lo := make([]float64, dim)
	hi := make([]float64, dim)
	seen := make([]bool, dim)
	for _, g := range gs {
		for v := 0; v < g.N(); v++ {
			for i, x := range g.Attr(v) {
				if !seen[i] || x < lo[i] {
					lo[i] = x
				}
				if !seen[i] || x > hi[i] {
					hi[i] = x
				}
				seen[i] = true
			}
		}
	}
	out := make([]*Graph, len(gs))
	for k, g := range gs {
		if g.AttrDim == 0 {
			out[k] = g
			continue
		}
		h := *g
		h.Attrs = make([]float64, len(g.Attrs))
		for j, x := range g.Attrs {
			i := j % g.AttrDim
			if w := hi[i] - lo[i]; w > 0 {
				h.Attrs[j] = (x - lo[i]) / w
			}
		}
		out[k] = &h
	}
	return out
}
