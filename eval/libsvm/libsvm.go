package libsvm

// #cgo LDFLAGS: -lsvm
// #include <stdlib.h>
// #include "gk_svm.h"
import "C"

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/mat"
)

// Version is the LIBSVM version the package was compiled against, e.g. 324
// for 3.24.
const Version = int(C.LIBSVM_VERSION)

func init() {
	// Process-wide, but set once before any training and never changed: no
	// mutable state remains on the Go side.
	C.gk_silence()
}

// maxBlockDim bounds the dimension of a Block: LIBSVM indexes nodes by C
// int, and a block of this size already takes 16·n² ≈ 17 GB.
const maxBlockDim = 1 << 15

// ErrFreed is returned when a Block or Model is used after Free.
var ErrFreed = errors.New("libsvm: used after Free")

// Block is a kernel matrix in LIBSVM's precomputed-kernel node format, held
// in C memory. See the package documentation for its layout and lifetime.
// A Block is safe for concurrent use.
type Block struct {
	mem     *blockMem
	cleanup runtime.Cleanup
}

// blockMem is the C memory of a Block and its reference count: one
// reference for the Block's owner until it lets go, and one per live Model.
type blockMem struct {
	mu        sync.Mutex
	n         int
	nodes     *C.struct_svm_node
	rows      **C.struct_svm_node
	refs      int
	ownerGone bool
}

// NewBlock copies the symmetric matrix k into a new node block. It returns
// an error when k is empty, too large, or has an entry that is not finite,
// since LIBSVM would silently train on NaN.
func NewBlock(k mat.Symmetric) (*Block, error) {
	if k == nil {
		return nil, errors.New("libsvm: nil kernel matrix")
	}
	n := k.SymmetricDim()
	if n == 0 {
		return nil, errors.New("libsvm: empty kernel matrix")
	}
	if n > maxBlockDim {
		return nil, fmt.Errorf("libsvm: kernel matrix of dimension %d exceeds %d", n, maxBlockDim)
	}
	stride := n + 2
	nodes := (*C.struct_svm_node)(C.malloc(C.size_t(n*stride) * C.size_t(unsafe.Sizeof(C.struct_svm_node{}))))
	rows := (**C.struct_svm_node)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(nodes))))
	if nodes == nil || rows == nil {
		C.free(unsafe.Pointer(nodes))
		C.free(unsafe.Pointer(rows))
		return nil, fmt.Errorf("libsvm: out of memory for a %d×%d node block", n, n)
	}
	ns := unsafe.Slice(nodes, n*stride)
	rs := unsafe.Slice(rows, n)
	for i := 0; i < n; i++ {
		row := ns[i*stride : (i+1)*stride]
		rs[i] = &row[0]
		row[0] = C.struct_svm_node{index: 0, value: C.double(i + 1)}
		for j := 0; j < n; j++ {
			v := k.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				C.free(unsafe.Pointer(nodes))
				C.free(unsafe.Pointer(rows))
				return nil, fmt.Errorf("libsvm: kernel value (%d,%d) is %v", i, j, v)
			}
			row[j+1] = C.struct_svm_node{index: C.int(j + 1), value: C.double(v)}
		}
		row[n+1] = C.struct_svm_node{index: -1}
	}
	mem := &blockMem{n: n, nodes: nodes, rows: rows, refs: 1}
	b := &Block{mem: mem}
	b.cleanup = runtime.AddCleanup(b, func(m *blockMem) { m.dropOwner() }, mem)
	return b, nil
}

// N returns the dimension of the block's kernel matrix.
func (b *Block) N() int { return b.mem.n }

// Free drops the owner's reference on the block's C memory, which is
// released once every model trained on the block has been freed as well.
// Train fails on a freed block; models trained earlier keep working. Free is
// idempotent.
func (b *Block) Free() {
	b.cleanup.Stop()
	b.mem.dropOwner()
}

// acquire takes a reference for a new model. It fails once the owner has
// let go, so that no model is trained on a block nobody holds any more.
func (m *blockMem) acquire() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ownerGone {
		return ErrFreed
	}
	m.refs++
	return nil
}

// dropOwner releases the owner's reference, once.
func (m *blockMem) dropOwner() {
	m.mu.Lock()
	gone := m.ownerGone
	m.ownerGone = true
	m.mu.Unlock()
	if !gone {
		m.release()
	}
}

func (m *blockMem) release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refs--
	if m.refs == 0 {
		C.free(unsafe.Pointer(m.nodes))
		C.free(unsafe.Pointer(m.rows))
		m.nodes, m.rows = nil, nil
	}
}

// Params configures the training of a C-SVC.
type Params struct {
	// C is the cost of margin violations, C > 0.
	C float64
	// Eps is the solver's stopping tolerance; 0 means LIBSVM's default
	// 0.001.
	Eps float64
	// CacheMB is the size of the kernel cache in MB; 0 means LIBSVM's
	// default 100. LIBSVM allocates it lazily, so small problems use little.
	CacheMB float64
	// NoShrinking turns off LIBSVM's shrinking heuristics.
	NoShrinking bool
}

// cParams returns LIBSVM's parameter struct for p and a kernel type.
func (p Params) cParams(kernelType C.int, gamma float64) C.struct_svm_parameter {
	eps, cache := p.Eps, p.CacheMB
	if eps == 0 {
		eps = 0.001
	}
	if cache == 0 {
		cache = 100
	}
	shrinking := C.int(1)
	if p.NoShrinking {
		shrinking = 0
	}
	return C.struct_svm_parameter{
		svm_type:    C.C_SVC,
		kernel_type: kernelType,
		gamma:       C.double(gamma),
		cache_size:  C.double(cache),
		eps:         C.double(eps),
		C:           C.double(p.C),
		shrinking:   shrinking,
		probability: 0,
	}
}

// validate rejects what svm_check_parameter does not: values that are not
// finite compare false and would pass it.
func (p Params) validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"C", p.C}, {"Eps", p.Eps}, {"CacheMB", p.CacheMB}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("libsvm: parameter %s = %v is not finite", f.name, f.v)
		}
	}
	return nil
}

// Model is a trained C-SVC. It holds a reference on the Block it was
// trained on, whose rows its support vectors point to. A Model is safe for
// concurrent use.
type Model struct {
	mu      sync.RWMutex
	state   *modelState
	labels  []int
	iter    int64
	caps    int
	cleanup runtime.Cleanup
}

// modelState is what freeing a model needs; it is kept apart from Model so
// that a cleanup can free a Model that became unreachable.
type modelState struct {
	ptr *C.struct_svm_model
	mem *blockMem
}

func (s *modelState) free() {
	C.gk_free_model(s.ptr)
	s.ptr = nil
	if s.mem != nil {
		s.mem.release()
	}
}

// Train fits a C-SVC with the block's precomputed kernel on the rows idx
// (indices into the block, 0-based) with class labels labels. Labels are
// arbitrary values within the range of a C int; with more than two distinct
// labels LIBSVM trains one-vs-one classifiers. A training set with a single
// class gives a model that predicts that class.
func Train(b *Block, idx []int, labels []int, p Params) (*Model, error) {
	if b == nil {
		return nil, errors.New("libsvm: nil block")
	}
	if len(idx) == 0 {
		return nil, errors.New("libsvm: no training rows")
	}
	if len(idx) > math.MaxInt32 {
		return nil, fmt.Errorf("libsvm: %d training rows exceed a C int", len(idx))
	}
	if len(idx) != len(labels) {
		return nil, fmt.Errorf("libsvm: %d training rows but %d labels", len(idx), len(labels))
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	mem := b.mem
	ci, err := rowIndices(idx, mem.n)
	if err != nil {
		return nil, err
	}
	y := make([]C.double, len(labels))
	for i, l := range labels {
		if l < math.MinInt32 || l > math.MaxInt32 {
			return nil, fmt.Errorf("libsvm: label %d does not fit a C int", l)
		}
		y[i] = C.double(l)
	}
	err = mem.acquire()
	// Until the reference is taken, b must stay reachable: its cleanup
	// would drop the owner's reference and make acquire fail.
	runtime.KeepAlive(b)
	if err != nil {
		return nil, err
	}
	param := p.cParams(C.PRECOMPUTED, 0)
	st := &modelState{mem: mem}
	m, err := train(mem.rows, ci, y, &param, st)
	if err != nil {
		mem.release()
		return nil, err
	}
	return m, nil
}

// train runs gk_train and wraps the result; st.mem (possibly nil) is
// released when the model is freed.
func train(rows **C.struct_svm_node, idx []C.int, y []C.double, param *C.struct_svm_parameter, st *modelState) (*Model, error) {
	var (
		iter C.longlong
		caps C.int
		cerr *C.char
	)
	ptr := C.gk_train(rows, &idx[0], &y[0], C.int(len(idx)), param, &iter, &caps, &cerr)
	if ptr == nil {
		if cerr != nil {
			return nil, fmt.Errorf("libsvm: %s", C.GoString(cerr))
		}
		return nil, errors.New("libsvm: out of memory while training")
	}
	st.ptr = ptr
	k := int(C.svm_get_nr_class(ptr))
	cl := make([]C.int, k)
	C.svm_get_labels(ptr, &cl[0])
	labels := make([]int, k)
	for i, l := range cl {
		labels[i] = int(l)
	}
	m := &Model{state: st, labels: labels, iter: int64(iter), caps: int(caps)}
	m.cleanup = runtime.AddCleanup(m, func(s *modelState) { s.free() }, st)
	return m, nil
}

// rowIndices converts row indices to C ints after checking them against
// the block dimension n.
func rowIndices(idx []int, n int) ([]C.int, error) {
	ci := make([]C.int, len(idx))
	for i, r := range idx {
		if r < 0 || r >= n {
			return nil, fmt.Errorf("libsvm: row %d out of range [0,%d)", r, n)
		}
		ci[i] = C.int(r)
	}
	return ci, nil
}

// Labels returns the model's class labels in LIBSVM's order, the order of
// their first appearance in the training rows. Decision values refer to
// pairs of classes in this order.
func (m *Model) Labels() []int { return append([]int(nil), m.labels...) }

// Iterations returns the solver iterations of the training, summed over the
// one-vs-one subproblems.
func (m *Model) Iterations() int64 { return m.iter }

// CapHits returns the number of one-vs-one subproblems whose solver stopped
// at LIBSVM's iteration cap (max(10^7, 100·l) in LIBSVM 3.24) instead of
// converging. Such a model is usable but not the optimum of its problem.
func (m *Model) CapHits() int { return m.caps }

// NumSV returns the number of support vectors.
func (m *Model) NumSV() (int, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.state.ptr == nil {
		return 0, ErrFreed
	}
	return int(C.svm_get_nr_sv(m.state.ptr)), nil
}

// Predict returns the predicted labels of the rows idx of the block the
// model was trained on.
func (m *Model) Predict(idx []int) ([]int, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	st := m.state
	if st.ptr == nil || st.mem == nil {
		return nil, ErrFreed
	}
	if len(idx) == 0 {
		return nil, nil
	}
	ci, err := rowIndices(idx, st.mem.n)
	if err != nil {
		return nil, err
	}
	out := make([]C.double, len(idx))
	C.gk_predict(st.ptr, st.mem.rows, &ci[0], C.int(len(ci)), &out[0])
	pred := make([]int, len(out))
	for i, v := range out {
		pred[i] = int(v)
	}
	return pred, nil
}

// PredictValues returns the predicted label of row i of the model's block
// and the k(k−1)/2 decision values of the one-vs-one classifiers, ordered
// (0,1), (0,2), …, (1,2), … over the classes of Labels. A positive value
// votes for the first class of the pair.
func (m *Model) PredictValues(i int) (int, []float64, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	st := m.state
	if st.ptr == nil || st.mem == nil {
		return 0, nil, ErrFreed
	}
	if i < 0 || i >= st.mem.n {
		return 0, nil, fmt.Errorf("libsvm: row %d out of range [0,%d)", i, st.mem.n)
	}
	row := *(**C.struct_svm_node)(unsafe.Add(unsafe.Pointer(st.mem.rows), uintptr(i)*unsafe.Sizeof(st.mem.rows)))
	return predictValues(st.ptr, row, len(m.labels))
}

func predictValues(ptr *C.struct_svm_model, row *C.struct_svm_node, k int) (int, []float64, error) {
	nd := k * (k - 1) / 2
	dec := make([]C.double, max(nd, 1))
	l := C.svm_predict_values(ptr, row, &dec[0])
	vals := make([]float64, nd)
	for j := range vals {
		vals[j] = float64(dec[j])
	}
	return int(l), vals, nil
}

// Free releases the model and its reference on its block. It is
// idempotent.
func (m *Model) Free() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state.ptr == nil {
		return
	}
	m.cleanup.Stop()
	m.state.free()
}
