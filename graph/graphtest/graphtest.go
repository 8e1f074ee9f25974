// Package graphtest gives tests access to the benchmark data sets and to
// small random graphs, so that every package tests against the same data in
// the same way.
package graphtest

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gkbench/gkbench/graph"
)

// DataDir returns the folder that holds the benchmark data sets for tests:
// $GKBENCH_DATA when set, else ../shared/data beside the module root. Tests
// run in their package's folder, so the module root is found by walking up
// to go.mod rather than relative to the working directory. It returns ""
// when no such folder exists.
func DataDir() string {
	if d := os.Getenv("GKBENCH_DATA"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "..", "shared", "data")
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				return d
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Dataset loads the named benchmark data set, or skips the test with a
// message saying where it looked when the data are absent.
func Dataset(tb testing.TB, name string) *graph.Dataset {
	tb.Helper()
	dir := DataDir()
	if dir == "" {
		tb.Skipf("data set %s: no data folder ($GKBENCH_DATA unset and no ../shared/data beside the module root)", name)
	}
	if _, err := os.Stat(filepath.Join(dir, name, name+"_A.txt")); err != nil {
		tb.Skipf("data set %s: not in %s", name, dir)
	}
	d, err := graph.ReadTU(filepath.Join(dir, name), name)
	if err != nil {
		tb.Fatalf("load %s: %v", name, err)
	}
	return d
}

// Random returns a random graph with n vertices, each pair an edge with
// probability p, vertex labels uniform in [0, vl) and edge labels uniform in
// [0, el).
func Random(r *rand.Rand, n int, p float64, vl, el int) *graph.Graph {
	labels := make([]int32, n)
	for v := range labels {
		labels[v] = int32(r.IntN(vl))
	}
	var edges []graph.Edge
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if r.Float64() < p {
				edges = append(edges, graph.Edge{U: int32(u), V: int32(v), Label: int32(r.IntN(el))})
			}
		}
	}
	return graph.MustBuild(labels, edges)
}
