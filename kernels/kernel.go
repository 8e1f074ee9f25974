package kernels

import (
	"context"
	"fmt"
	"time"

	"github.com/gkbench/gkbench/graph"
	"gonum.org/v1/gonum/mat"
)

// Method names a way of computing a kernel matrix.
type Method string

// The computation methods of the paper.
const (
	// Explicit computes a feature vector per graph and takes dot products.
	Explicit Method = "explicit"
	// Implicit evaluates the kernel pair by pair, e.g. on product graphs.
	Implicit Method = "implicit"
	// Auto lets a kernel that implements Advisor predict both methods'
	// times from cheap probes and compute by the faster.
	Auto Method = "auto"
)

// ParseMethod returns the Method named s.
func ParseMethod(s string) (Method, error) {
	switch Method(s) {
	case Explicit, Implicit, Auto:
		return Method(s), nil
	}
	return "", fmt.Errorf("unknown method %q (want explicit, implicit or auto)", s)
}

// Supports reports whether k computes by method m: one of its Methods, or
// Auto for a kernel that can advise.
func Supports(k Kernel, m Method) bool {
	if m == Auto {
		_, ok := k.(Advisor)
		return ok
	}
	for _, x := range k.Methods() {
		if x == m {
			return true
		}
	}
	return false
}

// Kernel is a graph kernel that can fill a kernel (Gram) matrix.
type Kernel interface {
	// Name returns the kernel's name as used on the command line and in
	// specs, e.g. "walk".
	Name() string
	// Methods returns the methods the kernel supports.
	Methods() []Method
	// Gram computes the kernel matrix of gs by method m. It honours
	// cancellation of ctx between graphs or pairs of graphs.
	Gram(ctx context.Context, gs []*graph.Graph, m Method) (*mat.SymDense, *Report, error)
}

// Report describes what a Gram computation cost and what explains that cost.
// Fields that do not apply to the method used are zero.
type Report struct {
	Method Method

	// TPrep is the time spent preparing the graphs before either method
	// starts, e.g. Weisfeiler-Lehman refinement. It is not part of the
	// paper's running times. The explicit GI kernel on more than one
	// thread, and the explicit walk kernel there where it streams its
	// packed map (see streamPacks), refine the graphs while they map
	// them, and count their refinement in TPhi.
	TPrep time.Duration

	// TPhi is the time to compute the explicit feature vectors.
	TPhi time.Duration
	// TDot is the time to take their dot products.
	TDot time.Duration
	// FeatureNNZ is the total number of non-zeros over the graphs' feature
	// vectors, and MaxFeatureNNZ the largest number in one vector.
	FeatureNNZ, MaxFeatureNNZ int64
	// Features is the number of distinct features (the dimension in use).
	Features int64
	// FeatureProducts is Σ_f df_f(df_f+1)/2 over the features f, df_f the
	// vectors that hold f: the products of the dot products' posting
	// lists, which with FeatureNNZ prices them.
	FeatureProducts int64

	// TWDPG is the time to build the weighted direct product graphs.
	TWDPG time.Duration
	// TWalks is the time to count weighted walks on them.
	TWalks time.Duration
	// ProductVertices and ProductEdges are |V×| and |E×| summed over the
	// product graphs of all pairs i ≤ j.
	ProductVertices, ProductEdges int64
	// Pairs is the number of pairs i ≤ j evaluated.
	Pairs int64
	// Comparisons counts the base-kernel comparisons of a pairwise
	// evaluation that does not build product graphs, e.g. the path pairs
	// compared by the implicit shortest-path kernel.
	Comparisons int64
}

// Total returns the time of the method's two phases, without TPrep.
func (r *Report) Total() time.Duration {
	return r.TPhi + r.TDot + r.TWDPG + r.TWalks
}

// String formats the report on one line for logs.
func (r *Report) String() string {
	switch r.Method {
	case Explicit:
		return fmt.Sprintf("method=explicit total=%v T_phi=%v T_dot=%v nnz=%d max_nnz=%d features=%d products=%d prep=%v",
			r.Total(), r.TPhi, r.TDot, r.FeatureNNZ, r.MaxFeatureNNZ, r.Features, r.FeatureProducts, r.TPrep)
	default:
		return fmt.Sprintf("method=%s total=%v T_wdpg=%v T_walks=%v product_vertices=%d product_edges=%d pairs=%d prep=%v",
			r.Method, r.Total(), r.TWDPG, r.TWalks, r.ProductVertices, r.ProductEdges, r.Pairs, r.TPrep)
	}
}
