package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gkbench/gkbench/graph"
)

// RBF is the Gaussian RBF kernel on vertex attributes,
// exp(−‖x−y‖²/(2σ²)), Equation (rbf_hat) of the paper.
type RBF struct{ Sigma float64 }

// Vertex implements VertexKernel.
func (k RBF) Vertex(g *graph.Graph, u int, h *graph.Graph, v int) float64 {
	x, y := g.Attr(u), h.Attr(v)
	var d2 float64
	for i := range x {
		d := x[i] - y[i]
		d2 += d * d
	}
	return math.Exp(-d2 / (2 * k.Sigma * k.Sigma))
}

// Hat is the dimension-wise product of hat kernels on vertex attributes,
// k_Δ(x,y) = Π_i max{0, 1 − |x_i−y_i|/δ}, Equation (rbf_hat) of the paper.
// Its feature map is infinite-dimensional; Binning approximates it.
type Hat struct{ Delta float64 }

// Vertex implements VertexKernel.
func (k Hat) Vertex(g *graph.Graph, u int, h *graph.Graph, v int) float64 {
	x, y := g.Attr(u), h.Attr(v)
	p := 1.0
	for i := range x {
		t := 1 - math.Abs(x[i]-y[i])/k.Delta
		if t <= 0 {
			return 0
		}
		p *= t
	}
	return p
}

// Binning is the random binning feature map of Rahimi and Recht (2008) for
// the hat kernel k_Δ. Each of P iterations lays a grid of pitch δ with a
// uniform random offset in [0, δ) over every dimension and maps a vertex to
// the bin holding its attributes: one non-zero of value 1/√P per
// iteration. Two points share a bin of one dimension with probability
// max{0, 1−|x_i−y_i|/δ}, so E⟨φ(x),φ(y)⟩ = k_Δ(x,y) exactly, and the error
// of the average over P iterations falls like 1/√P.
//
// A Binning owns the interner of its bin tuples, so vectors of one Binning
// are comparable and those of two are not; it is not safe for concurrent
// use. Its Vertex method returns ⟨φ(x),φ(y)⟩, the approximation, so that it
// is a consistent VertexMap; Hat gives the exact kernel.
type Binning struct {
	delta   float64
	p       int
	dim     int
	offsets []float64 // p × dim, row-major
	scale   float64   // 1/√P
	bins    tupleInterner
	buf     []int64
}

// NewBinning returns the binning map with P iterations of pitch delta for
// attributes of dimension dim, with offsets drawn from seed: equal seeds
// give equal features.
func NewBinning(delta float64, p, dim int, seed uint64) (*Binning, error) {
	if !(delta > 0) || math.IsInf(delta, 0) {
		return nil, fmt.Errorf("binning: δ = %g, want a finite δ > 0", delta)
	}
	if p < 1 {
		return nil, fmt.Errorf("binning: %d iterations, want ≥ 1", p)
	}
	r := rand.New(rand.NewPCG(seed, 0x62696e6e696e67)) // "binning"
	b := &Binning{delta: delta, p: p, dim: dim, offsets: make([]float64, p*dim), scale: 1 / math.Sqrt(float64(p))}
	for i := range b.offsets {
		b.offsets[i] = r.Float64() * delta
	}
	b.bins.init(dim + 1)
	b.buf = make([]int64, dim+1)
	return b, nil
}

// VertexFeatures implements VertexMap: the bins of v's attributes, one per
// iteration.
func (b *Binning) VertexFeatures(dst []Feature, g *graph.Graph, v int) []Feature {
	x := g.Attr(v)
	for it := 0; it < b.p; it++ {
		b.buf[0] = int64(it)
		off := b.offsets[it*b.dim : (it+1)*b.dim]
		for i, xi := range x {
			b.buf[i+1] = int64(math.Floor((xi - off[i]) / b.delta))
		}
		dst = append(dst, Feature{uint64(b.bins.intern(b.buf)), b.scale})
	}
	return dst
}

// Vertex implements VertexKernel with the approximation ⟨φ(x), φ(y)⟩.
func (b *Binning) Vertex(g *graph.Graph, u int, h *graph.Graph, v int) float64 {
	x, y := g.Attr(u), h.Attr(v)
	shared := 0
	for it := 0; it < b.p; it++ {
		off := b.offsets[it*b.dim : (it+1)*b.dim]
		same := true
		for i := range x {
			if math.Floor((x[i]-off[i])/b.delta) != math.Floor((y[i]-off[i])/b.delta) {
				same = false
				break
			}
		}
		if same {
			shared++
		}
	}
	return float64(shared) * b.scale * b.scale
}

// Bins returns the number of distinct bin tuples seen so far.
func (b *Binning) Bins() int { return b.bins.len() }

// tupleInterner gives fixed-length integer tuples dense ids through an
// open-addressing hash table, comparing tuples exactly on a hash match, so
// that no tuple is ever turned into a string.
type tupleInterner struct {
	width int
	data  []int64 // tuple i is data[i*width:(i+1)*width]
	slots []int32 // −1 empty, else a tuple id
	mask  uint64
}

func (t *tupleInterner) init(width int) {
	t.width = width
	t.slots = make([]int32, 1024)
	for i := range t.slots {
		t.slots[i] = -1
	}
	t.mask = uint64(len(t.slots) - 1)
}

func (t *tupleInterner) len() int { return len(t.data) / t.width }

func hashTuple(x []int64) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, v := range x {
		h ^= uint64(v)
		h *= 0xbf58476d1ce4e5b9
		h ^= h >> 31
	}
	return h
}

func (t *tupleInterner) intern(x []int64) uint32 {
	if 2*(t.len()+1) > len(t.slots) {
		t.grow()
	}
	for i := hashTuple(x) & t.mask; ; i = (i + 1) & t.mask {
		id := t.slots[i]
		if id < 0 {
			id = int32(t.len())
			t.slots[i] = id
			t.data = append(t.data, x...)
			return uint32(id)
		}
		if equalInt64(t.data[int(id)*t.width:(int(id)+1)*t.width], x) {
			return uint32(id)
		}
	}
}

func (t *tupleInterner) grow() {
	t.slots = make([]int32, 2*len(t.slots))
	for i := range t.slots {
		t.slots[i] = -1
	}
	t.mask = uint64(len(t.slots) - 1)
	for id := 0; id < t.len(); id++ {
		x := t.data[id*t.width : (id+1)*t.width]
		i := hashTuple(x) & t.mask
		for t.slots[i] >= 0 {
			i = (i + 1) & t.mask
		}
		t.slots[i] = int32(id)
	}
}

func equalInt64(a, b []int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// AttrKernel selects the vertex kernel on attributes of the kernels for
// attributed graphs (Section 5.2): the hat kernel k_Δ, exact for implicit
// computation and approximated by random binning with Iterations iterations
// for explicit computation; the Gaussian RBF kernel (implicit only); or
// Dirac on the discrete labels.
type AttrKernel struct {
	// Kind is "hat", "rbf" or "dirac".
	Kind string
	// Delta is the hat kernel's δ, Sigma the RBF kernel's σ.
	Delta, Sigma float64
	// Iterations is the number P of binning iterations of the explicit map.
	Iterations int
	// Seed seeds the binning.
	Seed uint64
}

func (a *AttrKernel) validate() error {
	switch a.Kind {
	case "hat":
		if !(a.Delta > 0) || math.IsInf(a.Delta, 0) {
			return fmt.Errorf("hat kernel: δ = %g, want a finite δ > 0", a.Delta)
		}
	case "rbf":
		if !(a.Sigma > 0) || math.IsInf(a.Sigma, 0) {
			return fmt.Errorf("rbf kernel: σ = %g, want a finite σ > 0", a.Sigma)
		}
	case "dirac":
	default:
		return fmt.Errorf("unknown vertex kernel %q (want hat, rbf or dirac)", a.Kind)
	}
	if a.Iterations < 0 {
		return fmt.Errorf("negative number of binning iterations %d", a.Iterations)
	}
	return nil
}

// exact returns the exact vertex kernel.
func (a *AttrKernel) exact() VertexKernel {
	switch a.Kind {
	case "hat":
		return Hat{a.Delta}
	case "rbf":
		return RBF{a.Sigma}
	}
	return Dirac{}
}

// featureMap returns a fresh explicit feature map for attributes of
// dimension dim: its interner belongs to one computation.
func (a *AttrKernel) featureMap(dim int) (VertexMap, error) {
	switch a.Kind {
	case "hat":
		if a.Iterations < 1 {
			return nil, fmt.Errorf("hat kernel: the explicit map needs binning iterations ≥ 1")
		}
		return NewBinning(a.Delta, a.Iterations, dim, a.Seed)
	case "rbf":
		return nil, fmt.Errorf("rbf kernel: no explicit feature map (use the hat kernel with binning)")
	}
	return Dirac{}, nil
}

// attrDim returns the common attribute dimension of gs.
func attrDim(gs []*graph.Graph) (int, error) {
	dim := -1
	for _, g := range gs {
		if g.N() == 0 {
			continue
		}
		if dim >= 0 && g.AttrDim != dim {
			return 0, fmt.Errorf("graphs with %d and %d attributes", dim, g.AttrDim)
		}
		dim = g.AttrDim
	}
	return max(dim, 0), nil
}
