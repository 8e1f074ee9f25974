package main

import (
	"context"
	"io"
	"path/filepath"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/synth"
)

// cmdSynth writes a synthetic data set in TU format.
func cmdSynth(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("synth")
	gen := fs.String("generator", "walk", "generator: walk (Section 5.3.1) or subgraph (Section 5.4.1)")
	n := fs.Int("n", 100, "number of graphs d")
	pv := fs.Float64("pv", 0.3, "walk: probability p_V of a non-zero vertex label, in [0,1]")
	labels := fs.Int("labels", 10, "subgraph: size |L| of the vertex and edge label alphabet")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("o", "", "output folder; the data set takes the folder's name")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *out == "" {
		return usagef("-o is required")
	}
	var ds *graph.Dataset
	switch *gen {
	case "walk":
		var err error
		ds, err = synth.Walk(synth.WalkConfig{PV: *pv}, *n, *seed)
		if err != nil {
			return usageError{err}
		}
	case "subgraph":
		var err error
		ds, err = synth.Subgraph(synth.SubgraphConfig{Labels: *labels}, *n, *seed)
		if err != nil {
			return usageError{err}
		}
	default:
		return usagef("unknown generator %q (known: walk, subgraph)", *gen)
	}
	// The folder's name is the data set's name, so that -data DIR reads
	// the files back.
	ds.Name = filepath.Base(filepath.Clean(*out))
	return graph.WriteTU(*out, ds)
}
