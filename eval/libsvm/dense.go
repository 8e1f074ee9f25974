package libsvm

// #include <stdlib.h>
// #include "gk_svm.h"
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// denseModel is a C-SVC trained with LIBSVM's own RBF kernel on dense
// feature vectors. Only the tests use it: LIBSVM computing the kernel itself
// is the reference that the precomputed path is checked against.
type denseModel struct {
	model *Model
	nodes *C.struct_svm_node
	rows  **C.struct_svm_node
	dim   int
}

// denseNodes copies the vectors x, all of dimension dim, to C memory as
// LIBSVM rows 1:x[0] … dim:x[dim−1] −1.
func denseNodes(x [][]float64, dim int) (*C.struct_svm_node, **C.struct_svm_node) {
	stride := dim + 1
	nodes := (*C.struct_svm_node)(C.malloc(C.size_t(len(x)*stride) * C.size_t(unsafe.Sizeof(C.struct_svm_node{}))))
	rows := (**C.struct_svm_node)(C.malloc(C.size_t(len(x)) * C.size_t(unsafe.Sizeof(nodes))))
	ns := unsafe.Slice(nodes, len(x)*stride)
	rs := unsafe.Slice(rows, len(x))
	for i, v := range x {
		row := ns[i*stride : (i+1)*stride]
		rs[i] = &row[0]
		for j, f := range v {
			row[j] = C.struct_svm_node{index: C.int(j + 1), value: C.double(f)}
		}
		row[dim] = C.struct_svm_node{index: -1}
	}
	return nodes, rows
}

// trainDenseRBF trains on the vectors x with the kernel exp(−gamma·‖x−y‖²).
func trainDenseRBF(x [][]float64, labels []int, gamma float64, p Params) (*denseModel, error) {
	if len(x) == 0 || len(x) != len(labels) {
		return nil, fmt.Errorf("libsvm: %d vectors and %d labels", len(x), len(labels))
	}
	dim := len(x[0])
	for _, v := range x {
		if len(v) != dim {
			return nil, errors.New("libsvm: vectors of different dimensions")
		}
	}
	nodes, rows := denseNodes(x, dim)
	idx := make([]C.int, len(x))
	y := make([]C.double, len(x))
	for i := range idx {
		idx[i] = C.int(i)
		y[i] = C.double(labels[i])
	}
	param := p.cParams(C.RBF, gamma)
	m, err := train(rows, idx, y, &param, &modelState{})
	if err != nil {
		C.free(unsafe.Pointer(nodes))
		C.free(unsafe.Pointer(rows))
		return nil, err
	}
	return &denseModel{model: m, nodes: nodes, rows: rows, dim: dim}, nil
}

// predictValues returns the label predicted for the vector v and the
// decision values, as Model.PredictValues.
func (d *denseModel) predictValues(v []float64) (int, []float64, error) {
	if len(v) != d.dim {
		return 0, nil, fmt.Errorf("libsvm: vector of dimension %d, want %d", len(v), d.dim)
	}
	nodes, rows := denseNodes([][]float64{v}, d.dim)
	defer C.free(unsafe.Pointer(nodes))
	defer C.free(unsafe.Pointer(rows))
	d.model.mu.RLock()
	defer d.model.mu.RUnlock()
	return predictValues(d.model.state.ptr, nodes, len(d.model.labels))
}

// free releases the model before the rows its support vectors point to.
func (d *denseModel) free() {
	d.model.Free()
	C.free(unsafe.Pointer(d.nodes))
	C.free(unsafe.Pointer(d.rows))
}
