package kernels

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
)

// TestRefineStreamed checks that the walk kernel's pipelined refinement
// gives graph.RefineGraphs's labels on MUTAG, ENZYMES and graphs of no
// vertex and of one, for 2 to 4
// iterations on 1 to 3 threads, on a Crew and on goroutines of its own,
// under one Workspace whose signature tables each refinement takes over
// from the one before, and that it returns a cancelled context's error.
func TestRefineStreamed(t *testing.T) {
	ws := NewWorkspace()
	for _, name := range []string{"MUTAG", "ENZYMES", "edge cases"} {
		var gs []*graph.Graph
		if name == "edge cases" {
			// An empty graph, an isolated vertex, and graphs after
			// them, whose colours follow theirs.
			gs = append([]*graph.Graph{graph.MustBuild(nil, nil), graph.MustBuild([]int32{3}, nil)}, graphtest.Dataset(t, "MUTAG").Graphs[:20]...)
		} else {
			gs = graphtest.Dataset(t, name).Graphs
		}
		for _, h := range []int{2, 3, 4} {
			want := graph.RefineGraphs(gs, h, graph.FromLabels)
			for _, threads := range []int{1, 2, 3} {
				for _, crew := range []bool{false, true} {
					ctx := WithWorkspace(context.Background(), ws)
					if crew {
						ctx = WithCrew(ctx, NewCrew(DefaultLinger))
					}
					what := fmt.Sprintf("%s h=%d threads=%d crew=%t", name, h, threads, crew)
					got, err := refineStreamed(ctx, gs, h, threads)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					for i := range want {
						if !slices.Equal(got[i].Labels, want[i].Labels) {
							t.Fatalf("%s: graph %d labelled %v, want %v", what, i, got[i].Labels, want[i].Labels)
						}
						if got[i].N() != want[i].N() || !slices.Equal(got[i].Adj, gs[i].Adj) {
							t.Fatalf("%s: graph %d is not the graph refined", what, i)
						}
					}
				}
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := refineStreamed(ctx, graphtest.Dataset(t, "MUTAG").Graphs, 3, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v, want %v", err, context.Canceled)
	}
}

// TestStreamRefines checks which refinements the walk kernel pipelines:
// on more than one thread, from 2 to streamRefineMaxH iterations, on more
// than one graph.
func TestStreamRefines(t *testing.T) {
	gs := graphtest.Dataset(t, "MUTAG").Graphs
	for _, tt := range []struct {
		gs         []*graph.Graph
		h, threads int
		want       bool
	}{
		{gs, 2, 2, true},
		{gs, 4, 3, true},
		{gs, 1, 2, false}, // one stage: nothing side by side
		{gs, streamRefineMaxH + 1, 2, false},
		{gs, 3, 1, false},
		{gs[:1], 3, 2, false},
	} {
		if got := streamRefines(tt.gs, tt.h, tt.threads); got != tt.want {
			t.Errorf("%d graphs, h=%d, threads=%d: %t, want %t", len(tt.gs), tt.h, tt.threads, got, tt.want)
		}
	}
}

// TestSoleStream checks a sole stream on two workers, and on one and
// three, where it is a pipeline: each worker waits for the graph it
// takes, whose colours of every iteration must then be graph.Refine's
// (MUTAG, ENZYMES, and an empty graph and an isolated vertex among MUTAG's
// first graphs; 1 to 4 iterations, from uniform colours and from the
// labels, on a Crew and on goroutines of their own); that one worker,
// the first to need a graph, runs every stage on two; and that a
// cancelled context's error comes back to both workers.
func TestSoleStream(t *testing.T) {
	mutag := graphtest.Dataset(t, "MUTAG").Graphs
	edge := append([]*graph.Graph{mutag[0], graph.MustBuild(nil, nil), mutag[1], graph.MustBuild([]int32{3}, nil)}, mutag[2:30]...)
	for _, tc := range []struct {
		name string
		gs   []*graph.Graph
	}{{"MUTAG", mutag}, {"ENZYMES", graphtest.Dataset(t, "ENZYMES").Graphs}, {"edge cases", edge}} {
		for _, start := range []graph.Start{graph.Uniform, graph.FromLabels} {
			for h := 1; h <= 4; h++ {
				want := graph.Refine(tc.gs, h, start)
				for _, threads := range []int{1, 2, 3} {
					for _, crew := range []bool{false, true} {
						ctx := WithWorkspace(context.Background(), NewWorkspace())
						if crew {
							ctx = WithCrew(ctx, NewCrew(DefaultLinger))
						}
						what := fmt.Sprintf("%s start=%d h=%d threads=%d crew=%t", tc.name, start, h, threads, crew)
						s := newStagedStream(ctx, tc.gs, h, start)
						s.sole = true
						got := s.st.Colours()
						err := forRows(ctx, len(tc.gs), threads, func(w, i int) error {
							if err := s.waitRefined(ctx, i, w, threads); err != nil {
								return err
							}
							for it := range h + 1 {
								if !slices.Equal(got[it][i], want[it][i]) {
									return fmt.Errorf("graph %d, iteration %d: colours %v, want %v", i, it, got[it][i], want[it][i])
								}
							}
							return nil
						})
						if err != nil {
							t.Fatalf("%s: %v", what, err)
						}
						s.giveBack(ctx)
					}
				}
			}
		}
	}

	// On two workers the one that takes the first stage's lock refines
	// every graph before it gives it up: the other, holding it in
	// between, would have found graphs left.
	s := newStagedStream(context.Background(), mutag, 3, graph.Uniform)
	s.sole = true
	if err := s.waitRefined(context.Background(), 0, 0, 2); err != nil {
		t.Fatal(err)
	}
	for i := range s.stages {
		if got := s.stages[i].done.Load(); got != int64(len(mutag)) {
			t.Errorf("stage %d: %d graphs through after the first graph's wait, want all %d", i+1, got, len(mutag))
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s = newStagedStream(ctx, mutag, 3, graph.Uniform)
	s.sole = true
	for w := range 2 {
		if err := s.waitRefined(ctx, len(mutag)-1, w, 2); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled, worker %d: error %v, want %v", w, err, context.Canceled)
		}
	}
	if !s.stages[0].running.TryLock() {
		t.Error("cancelled: the first stage's lock is still held")
	}
}
