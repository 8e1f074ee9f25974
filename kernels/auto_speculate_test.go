package kernels

import (
	"context"
	"errors"
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
)

// advisedCSM is the csm kernel with a made-up advice, or a failed one.
type advisedCSM struct {
	*SubgraphMatching
	choice Method
	err    error
}

func (k advisedCSM) Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	if k.err != nil {
		return nil, k.err
	}
	return &Advice{Choice: k.choice, Explicit: Prediction{Method: Explicit, Seconds: 1}, Implicit: Prediction{Method: Implicit, Seconds: 1}}, nil
}

func (k advisedCSM) speculates([]*graph.Graph) bool { return true }

// advisedWalk is the walk kernel with a made-up advice for the explicit
// method, which predicts the implicit one to take implicit seconds.
type advisedWalk struct {
	*Walk
	implicit float64
}

func (k advisedWalk) Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	return &Advice{Choice: Explicit, Explicit: Prediction{Method: Explicit, Seconds: 1}, Implicit: Prediction{Method: Implicit, Seconds: k.implicit}}, nil
}

// prepare keeps the made-up advice: the walk kernel's own would hand
// GramAuto the embedded kernel.
func (k advisedWalk) prepare(ctx context.Context, gs []*graph.Graph) ([]*graph.Graph, Kernel, error) {
	return gs, k, nil
}

// TestGramSpeculating checks that GramAuto on two threads, which starts
// the explicit method of the csm and walk kernels beside their advice,
// returns the matrix and the advice of the method the advice chooses, and
// the switch, as on one thread, where it does not speculate: the kernels'
// own advices (explicit, on 60 MUTAG graphs), and made-up advices that
// choose the implicit method, which stops the explicit run, and that
// fail, whose error GramAuto returns. A graph whose label the explicit
// map cannot pack fails the explicit run, which an advice for the
// implicit method leaves unseen. The walk kernel's explicit run, guarded
// without a limit until its advice sets one, switches to the implicit
// method where the advice predicts that a nanosecond, if the advice
// comes before the run is over: at length 9 on all MUTAG graphs, about
// 20 ms on two threads. At length 3 on 60 graphs, 0.1 ms, the run was
// over first in 20 of 20 runs with make reproduce busy on the other core,
// where the helper waits for the system to run it.
func TestGramSpeculating(t *testing.T) {
	all := graphtest.Dataset(t, "MUTAG").Graphs
	gs := all[:60]
	csm := func(threads int) *SubgraphMatching { return &SubgraphMatching{Threads: threads} }
	if !csm(2).speculates(gs) || csm(1).speculates(gs) {
		t.Fatalf("speculates on MUTAG: %v on two threads, %v on one; want true, false", csm(2).speculates(gs), csm(1).speculates(gs))
	}
	wide := append([]*graph.Graph{}, gs[:10]...)
	labels := append([]int32{}, gs[0].Labels...)
	labels[0] = 1 << glLabelBits
	wide[0] = gs[0].WithLabels(labels)
	errAdvice := errors.New("no advice")
	// timed marks the walk kernel's own advice, whose guard times the
	// maps: whether it switches depends on the machine's speed (under
	// the race detector, one thread's maps switched), and the two
	// methods' matrices are equal.
	tests := []struct {
		name    string
		k1, k2  Kernel
		gs      []*graph.Graph
		run     Method
		wantErr error
		timed   bool
	}{
		{"csm", csm(1), csm(2), gs, Explicit, nil, false},
		{"advised implicit", advisedCSM{csm(1), Implicit, nil}, advisedCSM{csm(2), Implicit, nil}, gs, Implicit, nil, false},
		{"advised explicit", advisedCSM{csm(1), Explicit, nil}, advisedCSM{csm(2), Explicit, nil}, gs, Explicit, nil, false},
		{"advice fails", advisedCSM{csm(1), Explicit, errAdvice}, advisedCSM{csm(2), Explicit, errAdvice}, gs, "", errAdvice, false},
		{"explicit fails, implicit advised", advisedCSM{csm(1), Implicit, nil}, advisedCSM{csm(2), Implicit, nil}, wide, Implicit, nil, false},
		{"walk", &Walk{Length: 3, Threads: 1}, &Walk{Length: 3, Threads: 2}, gs, Explicit, nil, true},
		{"walk switched", advisedWalk{&Walk{Length: 9, Threads: 1}, 1e-9}, advisedWalk{&Walk{Length: 9, Threads: 2}, 1e-9}, all, Explicit, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := WithCrew(context.Background(), NewCrew(DefaultLinger))
			K, rep, a, err := GramAuto(ctx, tc.k2, tc.gs, AdviseOptions{Seed: 1})
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("error %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ran := a.Run
			if a.Switch != nil {
				ran = Implicit
			}
			if a.Run != tc.run || rep.Method != ran || tc.name == "walk switched" && a.Switch == nil {
				t.Errorf("ran %s, report of %s (switch %v); want %s", a.Run, rep.Method, a.Switch, tc.run)
			}
			want, _, a1, err := GramAuto(context.Background(), tc.k1, tc.gs, AdviseOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if a1.Choice != a.Choice || a1.Run != a.Run || !tc.timed && (a1.Switch == nil) != (a.Switch == nil) {
				t.Errorf("one thread: chose %s, ran %s, switch %v; two threads: chose %s, ran %s, switch %v", a1.Choice, a1.Run, a1.Switch, a.Choice, a.Run, a.Switch)
			}
			requireEqual(t, tc.name, want, K)
		})
	}
}
