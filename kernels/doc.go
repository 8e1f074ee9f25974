// Package kernels computes graph kernel matrices by explicit feature maps and
// by implicit, pairwise evaluation, following Kriege et al., "A Unifying View
// of Explicit and Implicit Feature Maps of Graph Kernels" (DMKD 2019).
//
// A Kernel fills a Gram matrix by one of its Methods and returns a Report of
// what that cost: the time of each of its two phases and the figures that
// explain it (feature non-zeros for explicit maps, product-graph sizes for
// implicit computation). Base kernels on vertices and edges plug in through
// the VertexKernel and EdgeKernel interfaces; the Dirac kernel on discrete
// labels is recognised and computed on integer fast paths.
//
// Explicit feature vectors are sorted sparse vectors (Vec) whose ids come
// from an interner owned by one computation: vectors of different
// computations are not comparable. Kernels are configured by their fields,
// or by name and text parameters through New, which the command line and
// the experiment specs use.
//
// A kernel's Threads field spreads its work over goroutines; the matrix is
// the same to the bit for any number. A Crew attached to the context with
// WithCrew keeps those goroutines spinning between the parallel stretches
// of a matrix and from one matrix to the next, where a virtual machine
// would otherwise halt the idle cores and take long to wake them. A
// Workspace attached with WithWorkspace keeps the large buffers of one
// matrix for the next, which would otherwise be garbage that the collector
// takes, at a cost to the threads, between them.
package kernels
