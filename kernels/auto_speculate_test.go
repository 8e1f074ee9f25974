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

// TestGramSpeculating checks that GramAuto on two threads, which starts
// the csm kernel's explicit method beside its advice, returns the matrix
// and the advice of the method the advice chooses, as on one thread, where
// it does not speculate: the csm advice itself (explicit, on 60 MUTAG
// graphs), and made-up advices that choose the implicit method, which
// stops the explicit run, and that fail, whose error GramAuto returns. A
// graph whose label the explicit map cannot pack fails the explicit run,
// which an advice for the implicit method leaves unseen.
func TestGramSpeculating(t *testing.T) {
	gs := graphtest.Dataset(t, "MUTAG").Graphs[:60]
	csm := func(threads int) *SubgraphMatching { return &SubgraphMatching{Threads: threads} }
	if !csm(2).speculates(gs) || csm(1).speculates(gs) {
		t.Fatalf("speculates on MUTAG: %v on two threads, %v on one; want true, false", csm(2).speculates(gs), csm(1).speculates(gs))
	}
	wide := append([]*graph.Graph{}, gs[:10]...)
	labels := append([]int32{}, gs[0].Labels...)
	labels[0] = 1 << glLabelBits
	wide[0] = gs[0].WithLabels(labels)
	errAdvice := errors.New("no advice")
	tests := []struct {
		name    string
		k1, k2  Kernel
		gs      []*graph.Graph
		run     Method
		wantErr error
	}{
		{"csm", csm(1), csm(2), gs, Explicit, nil},
		{"advised implicit", advisedCSM{csm(1), Implicit, nil}, advisedCSM{csm(2), Implicit, nil}, gs, Implicit, nil},
		{"advised explicit", advisedCSM{csm(1), Explicit, nil}, advisedCSM{csm(2), Explicit, nil}, gs, Explicit, nil},
		{"advice fails", advisedCSM{csm(1), Explicit, errAdvice}, advisedCSM{csm(2), Explicit, errAdvice}, gs, "", errAdvice},
		{"explicit fails, implicit advised", advisedCSM{csm(1), Implicit, nil}, advisedCSM{csm(2), Implicit, nil}, wide, Implicit, nil},
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
			if a.Run != tc.run || rep.Method != tc.run {
				t.Errorf("ran %s, report of %s; want %s", a.Run, rep.Method, tc.run)
			}
			want, _, a1, err := GramAuto(context.Background(), tc.k1, tc.gs, AdviseOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if a1.Choice != a.Choice || a1.Run != a.Run {
				t.Errorf("one thread: chose %s, ran %s; two threads: chose %s, ran %s", a1.Choice, a1.Run, a.Choice, a.Run)
			}
			requireEqual(t, tc.name, want, K)
		})
	}
}
