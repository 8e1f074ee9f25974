// Package graph holds the graph representation that every kernel loops over,
// the Dataset that groups graphs with their class labels, the reader and
// writer of the TU Dortmund text format, and Weisfeiler-Lehman refinement.
//
// Graphs are undirected and stored in compressed sparse row (CSR) form: the
// neighbours of vertex v are Adj[Offsets[v]:Offsets[v+1]], sorted ascending,
// and every undirected edge appears once in each direction. Vertex and edge
// labels are small dense integers (ids into the Dataset's label dictionaries),
// so that kernels compare them with a single integer comparison and can use
// them to index arrays. A graph read from a file without labels gets the
// uniform label 0 everywhere, which is what the kernels of the paper assume
// for unlabelled graphs.
//
// The package depends on the standard library only.
package graph
