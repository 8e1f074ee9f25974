package libsvm

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// gram returns the matrix of k over all pairs of xs.
func gram(xs [][]float64, k func(a, b []float64) float64) *mat.SymDense {
	K := mat.NewSymDense(len(xs), nil)
	for i := range xs {
		for j := i; j < len(xs); j++ {
			K.SetSym(i, j, k(xs[i], xs[j]))
		}
	}
	return K
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// rbf computes exp(−γ‖a−b‖²) exactly as LIBSVM 3.24's Kernel::k_function
// does, as ‖a‖² + ‖b‖² − 2a·b, so that both paths round alike.
func rbf(gamma float64) func(a, b []float64) float64 {
	return func(a, b []float64) float64 {
		return math.Exp(-gamma * (dot(a, a) + dot(b, b) - 2*dot(a, b)))
	}
}

func linear(a, b []float64) float64 { return dot(a, b) }

func seq(lo, hi int) []int {
	s := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}

func pick[T any](s []T, idx []int) []T {
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = s[j]
	}
	return out
}

func TestSeparable(t *testing.T) {
	// Each problem is separable by construction, so a C-SVC with a large C
	// must reproduce every label, on the training rows and on held-out rows
	// that lie inside their class's range.
	tests := []struct {
		name   string
		xs     [][]float64
		labels []int
		kernel func(a, b []float64) float64
		train  []int
	}{
		{
			name:   "1-D by sign, linear kernel, labels -1/1",
			xs:     [][]float64{{-3}, {-2}, {-1}, {1}, {2}, {3}},
			labels: []int{-1, -1, -1, 1, 1, 1},
			kernel: linear,
			train:  []int{0, 2, 3, 5},
		},
		{
			name:   "1-D by sign, labels 1/-1 in the other order",
			xs:     [][]float64{{3}, {-3}, {2}, {-2}, {1}, {-1}},
			labels: []int{1, -1, 1, -1, 1, -1},
			kernel: linear,
			train:  []int{0, 1, 4, 5},
		},
		{
			name:   "XOR corners, RBF kernel",
			xs:     [][]float64{{0, 0}, {1, 1}, {0, 1}, {1, 0}, {0.1, 0}, {0.9, 1}, {0, 0.9}, {1, 0.1}},
			labels: []int{0, 0, 1, 1, 0, 0, 1, 1},
			kernel: rbf(2),
			train:  []int{0, 1, 2, 3},
		},
		{
			name:   "three clusters on a line, one-vs-one, labels 7/8/9",
			xs:     [][]float64{{-5}, {-4.5}, {0}, {0.5}, {5}, {4.5}, {-4.8}, {0.2}, {4.8}},
			labels: []int{7, 7, 8, 8, 9, 9, 7, 8, 9},
			kernel: rbf(0.5),
			train:  []int{0, 1, 2, 3, 4, 5},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := NewBlock(gram(tt.xs, tt.kernel))
			if err != nil {
				t.Fatal(err)
			}
			defer b.Free()
			m, err := Train(b, tt.train, pick(tt.labels, tt.train), Params{C: 1000})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Free()
			all := seq(0, len(tt.xs))
			got, err := m.Predict(all)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.labels) {
				t.Errorf("Predict = %v, want %v", got, tt.labels)
			}
			if m.Iterations() <= 0 || m.CapHits() != 0 {
				t.Errorf("Iterations = %d, CapHits = %d; want > 0 and 0", m.Iterations(), m.CapHits())
			}
			// PredictValues must agree with Predict.
			for _, i := range all {
				l, _, err := m.PredictValues(i)
				if err != nil {
					t.Fatal(err)
				}
				if l != got[i] {
					t.Errorf("PredictValues(%d) label %d, Predict %d", i, l, got[i])
				}
			}
		})
	}
}

// TestPrecomputedMatchesRBF checks the precomputed path against LIBSVM
// computing the same RBF kernel itself: same labels, same decision values up
// to rounding. The data overlap, so that the solution has bounded and free
// support vectors and errors on held-out points.
func TestPrecomputedMatchesRBF(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n, ntrain = 80, 50
	xs := make([][]float64, n)
	labels := make([]int, n)
	for i := range xs {
		c := i % 3
		labels[i] = c + 1
		xs[i] = []float64{float64(c) + 1.2*r.NormFloat64(), float64(c%2) + 1.2*r.NormFloat64()}
	}
	train := seq(0, ntrain)
	tests := []struct {
		gamma, C float64
	}{
		{0.5, 0.1}, {0.5, 1}, {0.5, 10}, {2, 1}, {0.05, 100},
	}
	for _, tt := range tests {
		b, err := NewBlock(gram(xs, rbf(tt.gamma)))
		if err != nil {
			t.Fatal(err)
		}
		pm, err := Train(b, train, labels[:ntrain], Params{C: tt.C})
		if err != nil {
			t.Fatal(err)
		}
		dm, err := trainDenseRBF(xs[:ntrain], labels[:ntrain], tt.gamma, Params{C: tt.C})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(pm.Labels(), dm.model.Labels()) {
			t.Fatalf("γ=%g C=%g: labels %v and %v", tt.gamma, tt.C, pm.Labels(), dm.model.Labels())
		}
		wrong := 0
		for i := range xs {
			got, gotDec, err := pm.PredictValues(i)
			if err != nil {
				t.Fatal(err)
			}
			want, wantDec, err := dm.predictValues(xs[i])
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("γ=%g C=%g row %d: precomputed %d, RBF %d", tt.gamma, tt.C, i, got, want)
			}
			for j := range wantDec {
				if math.Abs(gotDec[j]-wantDec[j]) > 1e-6*(1+math.Abs(wantDec[j])) {
					t.Errorf("γ=%g C=%g row %d: decision value %d is %v, RBF %v", tt.gamma, tt.C, i, j, gotDec[j], wantDec[j])
				}
			}
			if got != labels[i] {
				wrong++
			}
		}
		if wrong == 0 {
			t.Errorf("γ=%g C=%g: no errors; the data should overlap", tt.gamma, tt.C)
		}
		pm.Free()
		dm.free()
		b.Free()
	}
}

// noisy returns n points in the plane with alternating labels 0/1 and no
// structure, so that a large C makes the solver work hard.
func noisy(seed uint64, n int) ([][]float64, []int) {
	r := rand.New(rand.NewPCG(seed, 4))
	xs := make([][]float64, n)
	labels := make([]int, n)
	for i := range xs {
		labels[i] = i % 2
		xs[i] = []float64{r.NormFloat64(), r.NormFloat64()}
	}
	return xs, labels
}

// TestScaleEquivalence checks the identity that eval relies on for
// unnormalised kernels: a C-SVC with kernel s·K and cost C has the decision
// function of one with kernel K and cost s·C (substitute α' = s·α in the
// dual; the solver's gradients and stopping rule are the same). For powers
// of two every floating-point step scales exactly, so the runs are
// identical; other factors change the rounding of the kernel cache (LIBSVM
// caches float32) and the solver stops elsewhere within its tolerance
// eps = 10^-3. The last case shows the iteration cap: this noisy linear
// problem converges at an effective cost of 10^3 (47798 iterations with
// LIBSVM 3.24) but runs into the cap of 10^7 at 10^6.
func TestScaleEquivalence(t *testing.T) {
	xs, labels := noisy(3, 40)
	K := gram(xs, linear)
	tests := []struct {
		scale, C float64
		exact    bool
		capped   bool
	}{
		{0x1p-10, 1, true, false},
		{0x1p10, 0.1, true, false},
		{0x1p20, 1e-3, true, false},
		{1e3, 0.1, false, false},
		{1e-3, 10, false, false},
		{1e3, 1e3, false, true},
	}
	base, err := NewBlock(K)
	if err != nil {
		t.Fatal(err)
	}
	defer base.Free()
	all := seq(0, len(xs))
	for _, tt := range tests {
		var sK mat.SymDense
		sK.ScaleSym(tt.scale, K)
		b, err := NewBlock(&sK)
		if err != nil {
			t.Fatal(err)
		}
		scaled, err := Train(b, all, labels, Params{C: tt.C})
		if err != nil {
			t.Fatal(err)
		}
		ref, err := Train(base, all, labels, Params{C: tt.scale * tt.C})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []*Model{scaled, ref} {
			if got := m.CapHits() > 0; got != tt.capped {
				t.Errorf("scale %g C %g: capped %v (%d iterations), want %v", tt.scale, tt.C, got, m.Iterations(), tt.capped)
			}
		}
		if tt.exact && scaled.Iterations() != ref.Iterations() {
			t.Errorf("scale %g C %g: %d iterations with s·K, %d with s·C", tt.scale, tt.C, scaled.Iterations(), ref.Iterations())
		}
		tol := 1e-3
		if tt.exact {
			tol = 0
		}
		if !tt.capped {
			for _, i := range all {
				l1, d1, _ := scaled.PredictValues(i)
				l2, d2, _ := ref.PredictValues(i)
				if l1 != l2 || math.Abs(d1[0]-d2[0]) > tol*(1+math.Abs(d2[0])) {
					t.Errorf("scale %g C %g row %d: (%d, %v) with s·K, (%d, %v) with s·C", tt.scale, tt.C, i, l1, d1[0], l2, d2[0])
				}
			}
		}
		scaled.Free()
		ref.Free()
		b.Free()
	}
}

// TestConcurrentCounts trains the same problems serially and concurrently:
// the per-thread iteration counters must give each model its own count.
func TestConcurrentCounts(t *testing.T) {
	xs, labels := noisy(5, 60)
	b, err := NewBlock(gram(xs, rbf(1)))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	Cs := []float64{0.01, 0.1, 1, 10, 100, 1000, 0.5, 5}
	all := seq(0, len(xs))
	want := make([]int64, len(Cs))
	for i, C := range Cs {
		m, err := Train(b, all, labels, Params{C: C})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = m.Iterations()
		m.Free()
	}
	got := make([]int64, len(Cs))
	var wg sync.WaitGroup
	for rep := 0; rep < 4; rep++ {
		for i, C := range Cs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				m, err := Train(b, all, labels, Params{C: C})
				if err != nil {
					t.Error(err)
					return
				}
				if rep == 0 {
					got[i] = m.Iterations()
				} else if m.Iterations() != want[i] {
					t.Errorf("C=%g: %d iterations, want %d", C, m.Iterations(), want[i])
				}
				m.Free()
			}()
		}
	}
	wg.Wait()
	if !slices.Equal(got, want) {
		t.Errorf("concurrent iterations %v, serial %v", got, want)
	}
}

// TestLifetime checks that models keep their block's rows alive after the
// owner frees it, that Free is idempotent, and that use after Free is an
// error rather than a crash.
func TestLifetime(t *testing.T) {
	xs := [][]float64{{-2}, {-1}, {1}, {2}}
	labels := []int{-1, -1, 1, 1}
	b, err := NewBlock(gram(xs, linear))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Train(b, []int{0, 3}, []int{-1, 1}, Params{C: 1})
	if err != nil {
		t.Fatal(err)
	}
	b.Free()
	b.Free()
	if _, err := Train(b, []int{0, 3}, []int{-1, 1}, Params{C: 1}); !errors.Is(err, ErrFreed) {
		t.Errorf("Train on a freed block: %v, want ErrFreed", err)
	}
	runtime.GC()
	got, err := m.Predict(seq(0, 4))
	if err != nil || !slices.Equal(got, labels) {
		t.Errorf("Predict after the block's Free = %v, %v; want %v", got, err, labels)
	}
	m.Free()
	m.Free()
	if _, err := m.Predict([]int{0}); !errors.Is(err, ErrFreed) {
		t.Errorf("Predict after Free: %v, want ErrFreed", err)
	}
	if _, _, err := m.PredictValues(0); !errors.Is(err, ErrFreed) {
		t.Errorf("PredictValues after Free: %v, want ErrFreed", err)
	}
	if b.mem.refs != 0 || b.mem.nodes != nil {
		t.Errorf("block memory not released: %d references", b.mem.refs)
	}
}

func TestBadInput(t *testing.T) {
	ok := gram([][]float64{{1}, {2}, {3}}, linear)
	nan := mat.NewSymDense(2, []float64{1, math.NaN(), math.NaN(), 1})
	if _, err := NewBlock(nan); err == nil {
		t.Error("NewBlock accepted NaN")
	}
	if _, err := NewBlock(mat.NewSymDense(1, []float64{math.Inf(1)})); err == nil {
		t.Error("NewBlock accepted +Inf")
	}
	if _, err := NewBlock(nil); err == nil {
		t.Error("NewBlock accepted nil")
	}
	b, err := NewBlock(ok)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	tests := []struct {
		name   string
		idx    []int
		labels []int
		p      Params
	}{
		{"no rows", nil, nil, Params{C: 1}},
		{"row out of range", []int{0, 3}, []int{0, 1}, Params{C: 1}},
		{"negative row", []int{-1, 0}, []int{0, 1}, Params{C: 1}},
		{"labels mismatch", []int{0, 1}, []int{0}, Params{C: 1}},
		{"C zero (svm_check_parameter)", []int{0, 1}, []int{0, 1}, Params{C: 0}},
		{"C negative (svm_check_parameter)", []int{0, 1}, []int{0, 1}, Params{C: -1}},
		{"C NaN", []int{0, 1}, []int{0, 1}, Params{C: math.NaN()}},
		{"eps negative (svm_check_parameter)", []int{0, 1}, []int{0, 1}, Params{C: 1, Eps: -1}},
		{"label beyond C int", []int{0, 1}, []int{0, 1 << 40}, Params{C: 1}},
	}
	for _, tt := range tests {
		if m, err := Train(b, tt.idx, tt.labels, tt.p); err == nil {
			m.Free()
			t.Errorf("%s: Train succeeded", tt.name)
		}
	}
	m, err := Train(b, []int{0, 2}, []int{0, 1}, Params{C: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Free()
	if _, err := m.Predict([]int{3}); err == nil {
		t.Error("Predict accepted a row out of range")
	}
	if _, _, err := m.PredictValues(-1); err == nil {
		t.Error("PredictValues accepted a negative row")
	}
}

// TestOneClass: LIBSVM 3.24 trains a training set of one class into a
// model that predicts that class (svm_train warns and trains no classifier).
func TestOneClass(t *testing.T) {
	b, err := NewBlock(gram([][]float64{{1}, {2}, {3}}, linear))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	m, err := Train(b, []int{0, 1}, []int{4, 4}, Params{C: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Free()
	got, err := m.Predict([]int{0, 1, 2})
	if err != nil || !slices.Equal(got, []int{4, 4, 4}) {
		t.Errorf("Predict = %v, %v; want [4 4 4]", got, err)
	}
}
