package harness

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/kernels"
	"github.com/gkbench/gkbench/synth"
)

// KernelFactory builds the kernel of a cell. The registry is the real one;
// tests put in fake kernels.
type KernelFactory interface {
	New(name string, p kernels.Params) (kernels.Kernel, error)
}

// Registry is the KernelFactory of the kernels package.
type Registry struct{}

// New implements KernelFactory by kernels.New.
func (Registry) New(name string, p kernels.Params) (kernels.Kernel, error) {
	return kernels.New(name, p)
}

// DataSource provides the graphs of a data coordinate. The runner asks for
// each distinct coordinate once and shares the result across the cell's
// kernels, methods and repetitions.
type DataSource interface {
	Load(ctx context.Context, d DataCoord) (*graph.Dataset, error)
}

// subsetStream is the PCG stream selector of the random subsets of TU data
// sets (the ASCII bytes of "subset01"), distinct from the generators'.
const subsetStream = 0x7375627365743031

// StdData is the DataSource of real runs: TU data sets found by
// graph.LoadDataset, their nested random subsets, and the synth
// generators. It keeps the last TU data set read, so that growing subsets
// of one data set read it once.
type StdData struct {
	name string
	full *graph.Dataset
}

// Load implements DataSource.
func (s *StdData) Load(ctx context.Context, d DataCoord) (*graph.Dataset, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if d.Generator != "" {
		return generate(d)
	}
	if s.full == nil || s.name != d.Dataset {
		s.full, s.name = nil, ""
		ds, err := graph.LoadDataset(d.Dataset)
		if fb, ok := Fallbacks()[d.Dataset]; ok && errors.Is(err, fs.ErrNotExist) {
			// U251 is not in the TU collection, so a machine that
			// fetched its data there has NCI1 instead, a molecular
			// set of similar size; the rows say so in their note.
			fds, ferr := graph.LoadDataset(fb)
			if ferr != nil {
				return nil, fmt.Errorf("%w; fallback %s: %w", err, fb, ferr)
			}
			ds, err = fds, nil
		}
		if err != nil {
			return nil, err
		}
		s.full, s.name = ds, d.Dataset
	}
	return subset(s.full, d)
}

// Fallbacks maps data sets that the TU Dortmund collection lacks to the
// set used in their place when they are not found.
func Fallbacks() map[string]string { return map[string]string{"U251": "NCI1"} }

// FallbackNote is the note of a row computed on a fallback data set.
func FallbackNote(asked, used string) string {
	return fmt.Sprintf("data set %s not found: %s used instead", asked, used)
}

// subset returns the first size graphs of a random permutation drawn from
// the seed: random subsets grown by adding random graphs, as in Section
// 5.3.2 of the paper, so a smaller size is a prefix of a larger one.
func subset(full *graph.Dataset, d DataCoord) (*graph.Dataset, error) {
	sz, ok := d.Params["size"]
	if !ok || sz == "all" {
		return full, nil
	}
	n, err := strconv.Atoi(sz)
	if err != nil {
		return nil, fmt.Errorf("size %q: %w", sz, err)
	}
	// A size beyond the data set means all of it: the quick profile of a
	// table caps every data set at one size, small ones included.
	if n >= full.Len() {
		return full, nil
	}
	perm := rand.New(rand.NewPCG(d.Seed, subsetStream)).Perm(full.Len())
	return full.Subset(perm[:n])
}

func generate(d DataCoord) (*graph.Dataset, error) {
	f := func(k string) float64 {
		v, _ := strconv.ParseFloat(d.Params[k], 64)
		return v
	}
	switch d.Generator {
	case "walk":
		n, err := strconv.Atoi(d.Params["d"])
		if err != nil {
			return nil, fmt.Errorf("generator walk: d %q: %w", d.Params["d"], err)
		}
		cfg := synth.WalkConfig{PV: f("pv"), MeanVertices: f("mean_vertices"), EdgeProb: f("edge_prob")}
		return synth.Walk(cfg, n, d.Seed)
	case "subgraph":
		n, err := strconv.Atoi(d.Params["d"])
		if err != nil {
			return nil, fmt.Errorf("generator subgraph: d %q: %w", d.Params["d"], err)
		}
		labels, err := strconv.Atoi(d.Params["labels"])
		if err != nil {
			return nil, fmt.Errorf("generator subgraph: labels %q: %w", d.Params["labels"], err)
		}
		cfg := synth.SubgraphConfig{Labels: labels, MeanVertices: f("mean_vertices"), EdgeProb: f("edge_prob")}
		return synth.Subgraph(cfg, n, d.Seed)
	}
	return nil, fmt.Errorf("unknown generator %q", d.Generator)
}

// CheckData checks that the spec's TU data set can be found on the data
// path, so that a missing data set is reported before a run starts rather
// than as error rows. It returns a *SpecError at data.dataset.
func (s *Spec) CheckData() error {
	names := s.Data.Datasets
	for _, o := range s.Overrides {
		for _, a := range o.Grid {
			if a.Name == "dataset" {
				names = append(names, a.Values...)
			}
		}
	}
	for _, name := range names {
		if fb, ok := Fallbacks()[name]; ok {
			if _, err := graph.FindDataset(fb); err == nil {
				continue
			}
		}
		if _, err := graph.FindDataset(name); err != nil {
			return s.errf("data.dataset", "data set %s not found in %s; set %s to the folder that holds %s/",
				name, strings.Join(graph.DataDirs(), ", "), graph.DataEnv, name)
		}
	}
	return nil
}
