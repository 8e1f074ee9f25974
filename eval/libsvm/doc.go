// Package libsvm is a small cgo binding to LIBSVM 3.24 (Chang and Lin,
// "LIBSVM: A library for support vector machines", 2011), the C-SVM that the
// paper's accuracy experiments use. It covers what nested cross-validation
// on precomputed kernel matrices needs: C-SVC training with kernel_type
// PRECOMPUTED, parameter checking, prediction of labels and decision values,
// and freeing models. Multi-class problems are solved by LIBSVM's
// one-vs-one scheme. Probability estimates stay off, so training and
// prediction are deterministic.
//
// # Node blocks
//
// A Block holds one n×n kernel matrix in LIBSVM's precomputed format, in C
// memory: row i is the node 0:i+1 (the sample's serial number), the nodes
// j:K(i,j−1) for j = 1..n, and the terminator −1. One block serves every
// fold of a cross-validation: Train fits a model on any subset of its rows,
// and the model predicts any other rows of the same block, because LIBSVM
// looks the kernel values up by the serial numbers of the support vectors.
//
// A trained model points into the block's rows (its support vectors are not
// copied), so the block's memory must outlive every model trained on it.
// The binding makes this structural: each Model holds a reference on its
// block's memory, and the memory is released when the block's owner has
// called Block.Free and every model trained on it has been freed. Free is
// idempotent on both types. Callers should free explicitly, since C memory
// is invisible to the Go garbage collector; a cleanup registered with
// runtime.AddCleanup only reclaims what is left when a Block or Model
// becomes unreachable unfreed.
//
// # Output and iteration counts
//
// LIBSVM prints progress through a process-wide print function. The package
// replaces it once, in its init function, by a C function that prints
// nothing but counts, per OS thread, the solver iterations of each binary
// subproblem ("optimization finished, #iter = N"). Train resets, trains and
// reads these counters within one C call, which runs on one thread, so the
// counts are exact under concurrent trainings; Model.Iterations and
// Model.CapHits report them. A subproblem hit LIBSVM's iteration cap when
// its count reached max(10^7, 100·l).
//
// One message escapes: LIBSVM 3.24 writes "WARNING: reaching max number of
// iterations" with fprintf(stderr) rather than through the print function,
// and the package does not redirect the process's standard error to hide
// it. CapHits counts these events.
//
// # Building
//
// The package needs cgo, a C compiler and LIBSVM's header and library: on
// Debian, the package libsvm-dev (`make deps` installs it). Without them the
// build fails with a message that names libsvm-dev.
package libsvm
