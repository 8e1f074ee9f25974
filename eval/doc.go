// Package eval estimates the classification accuracy of graph kernels as
// the paper does (Kriege et al., DMKD 2019, Section 5.1): a C-SVM (LIBSVM,
// through the cgo binding in eval/libsvm) on precomputed kernel matrices,
// evaluated by 10 repetitions of 10-fold cross-validation with random,
// stratified folds, where within each outer fold all parameters (C from
// 10^-3..10^3, the kernel parameters, and whether to normalise the kernel)
// are selected by a cross-validation on the training part alone.
//
// The package takes kernel matrices, not graphs: the caller computes one
// matrix per combination of kernel parameters (a Candidate), once, and
// CrossValidate reuses it for every fold and every C. It takes the matrices
// that kernels.Kernel.Gram returns (*mat.SymDense) and calls no kernel.
//
// Everything random is drawn from math/rand/v2 PCG generators seeded from
// Options.Seed, one per fold assignment, so results are reproducible and do
// not depend on the number of threads.
package eval
