package kernels

import (
	"context"
	"fmt"
	"math"

	"github.com/gkbench/gkbench/graph"
	"gonum.org/v1/gonum/mat"
)

// GeometricWalk is the geometric random walk kernel of Gärtner, Flach and
// Wrobel (2003): K(G,H) = Σ_{l≥0} γ^l K=_l(G,H), the common walks of all
// lengths weighted geometrically. It is computed implicitly only, on the same
// weighted direct product graph as the walk kernel, by summing the series
// r_l = A× r_{l−1} until a rigorous bound on the remaining tail falls below
// the tolerance.
//
// The series converges exactly when γ·ρ(A×) < 1, where ρ is the spectral
// radius of the product graph. The sum stops when the tail is bounded: for
// the positive vector r_l, A× r_l ≤ ρ⁺ r_l componentwise with
// ρ⁺ = max_u (A× r_l)(u)/r_l(u) (the Collatz–Wielandt bound, ρ ≤ ρ⁺), so the
// terms after l are at most γ^l s_l·(γρ⁺)^k. It stops with an error when the
// series diverges: for a symmetric product graph the ratios s_{l+1}/s_l of
// the walk sums never decrease (by Cauchy–Schwarz, s_l·s_{l+2} ≥ s_{l+1}²),
// so one ratio of at least 1/γ proves divergence. The kernel never returns a
// non-finite value.
type GeometricWalk struct {
	// Gamma is the decay γ > 0.
	Gamma float64
	// Terms, when positive, truncates the series to walk lengths
	// 0..Terms−1; the result then equals the Max-l-walk kernel with
	// l = Terms−1 and λ_i = γ^i, and no convergence is required.
	Terms int
	// Tol is the relative tolerance on the tail; 0 means 1e-12.
	Tol float64
	// Vertex and Edge are the base kernels; nil means Dirac on labels.
	Vertex VertexKernel
	Edge   EdgeKernel
	// Threads is the number of goroutines of the pairs: 0 or 1 is one, a
	// negative number every core. The matrix is the same for any number.
	// Where the series diverges, the pair named is the first found: on
	// more than one thread it may be another than on one.
	Threads int
}

// maxGRWTerms bounds the series when neither convergence nor divergence has
// been proven, which only happens for γ·ρ within about 1e-6 of 1.
const maxGRWTerms = 100000

func newGRWFromParams(p Params) (Kernel, error) {
	r := &paramReader{kernel: "grw", p: p}
	g := &GeometricWalk{
		Gamma:   r.floatAbove("gamma", 0, 0),
		Terms:   r.int("terms", 0, 0, maxGRWTerms, false),
		Threads: r.threads(),
	}
	if _, ok := p["gamma"]; !ok {
		r.fail("gamma", "required")
	}
	if r.err == nil && g.Gamma >= 1 {
		r.fail("gamma", "must be < 1")
	}
	if r.err != nil {
		return nil, r.err
	}
	return g, nil
}

// Name implements Kernel.
func (k *GeometricWalk) Name() string { return "grw" }

// Methods implements Kernel.
func (k *GeometricWalk) Methods() []Method { return []Method{Implicit} }

// DivergenceError reports a decay γ for which the geometric series of a pair
// of graphs diverges.
type DivergenceError struct {
	Gamma float64
	// I and J are the indices of the pair in the Gram computation.
	I, J int
	// RhoLower is a proven lower bound on the product graph's spectral
	// radius; the series needs γ < 1/ρ.
	RhoLower float64
}

func (e *DivergenceError) Error() string {
	return fmt.Sprintf("geometric random walk kernel diverges for γ=%g on pair (%d,%d): the product graph's spectral radius is at least %.4g, so γ must be below %.4g",
		e.Gamma, e.I, e.J, e.RhoLower, 1/e.RhoLower)
}

// Gram implements Kernel.
func (k *GeometricWalk) Gram(ctx context.Context, gs []*graph.Graph, m Method) (*mat.SymDense, *Report, error) {
	if m != Implicit {
		return nil, nil, fmt.Errorf("grw kernel: only the implicit method exists (an explicit map has infinitely many features)")
	}
	if !(k.Gamma > 0) || k.Gamma >= 1 || math.IsInf(k.Gamma, 0) {
		return nil, nil, fmt.Errorf("grw kernel: γ = %g, want 0 < γ < 1", k.Gamma)
	}
	if k.Terms < 0 {
		return nil, nil, fmt.Errorf("grw kernel: negative number of terms %d", k.Terms)
	}
	rep := &Report{Method: Implicit}
	n := len(gs)
	if n == 0 {
		return &mat.SymDense{}, rep, nil
	}
	// The product graphs are those of the walk kernel with the same base
	// kernels; the walk phase is replaced by the geometric series. The
	// rows spread over the threads as the walk kernel's do, each worker
	// with a workspace of its own.
	threads := threadsOr(k.Threads)
	pws := newPairWorkspace(&Walk{Vertex: k.Vertex, Edge: k.Edge}, gs, false).clones(threads, n)
	K, err := gramRows(ctx, n, threads, rep, func(w, i int, out []float64, r *Report) error {
		pw := pws[w]
		for j := i; j < n; j++ {
			if (j-i)%64 == 63 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			var rho float64
			v, err := pw.evaluate(gs[i], gs[j], r, func(pw *pairWorkspace) (float64, error) {
				v, lower, err := k.series(pw)
				rho = lower
				return v, err
			})
			if err != nil {
				return &DivergenceError{Gamma: k.Gamma, I: i, J: j, RhoLower: rho}
			}
			out[j-i] = v
		}
		return nil
	})
	return K, rep, err
}

// series sums Σ γ^l 1ᵀ r_l on the product graph in pw. On divergence it
// returns an error and a lower bound on the spectral radius.
func (k *GeometricWalk) series(pw *pairWorkspace) (float64, float64, error) {
	nv := len(pw.pu)
	r := grow(pw.r, nv)
	s := grow(pw.s, nv)
	defer func() { pw.r, pw.s = r, s }()
	if pw.dirac {
		for i := range r {
			r[i] = 1
		}
	} else {
		copy(r, pw.vw)
	}
	tol := k.Tol
	if tol <= 0 {
		tol = 1e-12
	}
	g := k.Gamma
	sl := sum(r) // s_l = 1ᵀ r_l
	total := sl
	weight := 1.0 // γ^l
	limit := maxGRWTerms
	if k.Terms > 0 {
		limit = k.Terms - 1
	}
	for l := 0; l < limit; l++ {
		if sl == 0 {
			return total, 0, nil
		}
		if pw.dirac {
			pw.matvecDirac(s, r)
		} else {
			pw.matvecGeneric(s, r)
		}
		sNext := sum(s)
		weight *= g
		total += weight * sNext
		if k.Terms == 0 {
			// Divergence: the ratios of walk sums never decrease.
			if ratio := sNext / sl; g*ratio >= 1 {
				return 0, ratio, fmt.Errorf("diverges")
			}
			// Convergence: bound the tail by the Collatz–Wielandt
			// bound on ρ from r_{l+1} = A r_l.
			rhoUp := 0.0
			for p, x := range r {
				if x > 0 {
					rhoUp = max(rhoUp, s[p]/x)
				}
			}
			if q := g * rhoUp; q < 1 {
				// Terms after l+1 are at most weight·sNext·q^k.
				if tail := weight * sNext * q / (1 - q); tail <= tol*total {
					r, s = s, r
					return total, 0, nil
				}
			}
		}
		if math.IsInf(total, 0) || math.IsNaN(total) {
			return 0, sNext / sl, fmt.Errorf("diverges")
		}
		r, s = s, r
		sl = sNext
	}
	if k.Terms > 0 {
		return total, 0, nil
	}
	return 0, 1 / g, fmt.Errorf("no convergence after %d terms", maxGRWTerms)
}
