// Package synth holds seeded generators of the synthetic data sets of the
// paper: Walk builds the graphs of Section 5.3.1, on which fixed length walk
// kernels are timed for varying label diversity p_V and data set size d; the
// generator of Section 5.4.1 for the subgraph kernels is to follow.
//
// Every generator draws from a single math/rand/v2 PCG stream seeded by the
// caller, in a fixed, documented order, so that the same seed and
// configuration give the same data set, byte for byte, on every run, and the
// experiment grid can regenerate a data set instead of storing it. Golden
// checksums in the tests pin the streams, since gonum's floating-point
// Poisson sampler is the one part whose output a toolchain or gonum upgrade
// could in principle change.
//
// The package depends on graph for the data types and on gonum's distuv for
// the Poisson distribution of the number of vertices.
package synth
