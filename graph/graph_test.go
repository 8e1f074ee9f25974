package graph

import "testing"

// TestLabelRange checks VertexLabelRange and EdgeLabelRange against the
// labels themselves (the least and the largest, written out by hand) for a
// graph of Build, which keeps them, and for graphs whose labels it did not
// see: one assembled by hand, one of WithLabels, and a copy given other
// edge labels, whose kept ranges no longer hold.
func TestLabelRange(t *testing.T) {
	built := MustBuild([]int32{3, -1, 7}, []Edge{{0, 1, 5}, {1, 2, 2}})
	copied := *built
	copied.EdgeLabels = []int32{9, 9, 9, 9}
	tests := []struct {
		name           string
		g              *Graph
		vlo, vhi       int32
		elo, ehi       int32
		emptyV, emptyE bool
	}{
		{name: "built", g: built, vlo: -1, vhi: 7, elo: 2, ehi: 5},
		{name: "by hand", g: &Graph{Offsets: []int32{0, 1, 2}, Adj: []int32{1, 0}, EdgeLabels: []int32{4, 4}, Labels: []int32{0, 6}}, vlo: 0, vhi: 6, elo: 4, ehi: 4},
		{name: "with labels", g: built.WithLabels([]int32{8, 8, 2}), vlo: 2, vhi: 8, elo: 2, ehi: 5},
		{name: "other edge labels", g: &copied, vlo: -1, vhi: 7, elo: 9, ehi: 9},
		{name: "no edges", g: MustBuild([]int32{1}, nil), vlo: 1, vhi: 1, emptyE: true},
		{name: "empty", g: &Graph{}, emptyV: true, emptyE: true},
	}
	for _, tc := range tests {
		lo, hi := tc.g.VertexLabelRange()
		if tc.emptyV && lo <= hi || !tc.emptyV && (lo != tc.vlo || hi != tc.vhi) {
			t.Errorf("%s: vertex labels in [%d, %d], want [%d, %d] (empty %v)", tc.name, lo, hi, tc.vlo, tc.vhi, tc.emptyV)
		}
		lo, hi = tc.g.EdgeLabelRange()
		if tc.emptyE && lo <= hi || !tc.emptyE && (lo != tc.elo || hi != tc.ehi) {
			t.Errorf("%s: edge labels in [%d, %d], want [%d, %d] (empty %v)", tc.name, lo, hi, tc.elo, tc.ehi, tc.emptyE)
		}
	}
}
