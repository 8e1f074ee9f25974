package graph

import "testing"

// TestKept checks VertexLabelRange, EdgeLabelRange and MaxDegree against
// the arrays themselves (the least and the largest label, and the largest
// degree, written out by hand) for a graph of Build, which keeps them, and
// for graphs whose arrays it did not see: one assembled by hand, one of
// WithLabels, and copies given other edge labels or other offsets, for
// which what Build kept no longer holds.
func TestKept(t *testing.T) {
	built := MustBuild([]int32{3, -1, 7}, []Edge{{0, 1, 5}, {1, 2, 2}})
	otherLabels, otherOffsets := *built, *built
	otherLabels.EdgeLabels = []int32{9, 9, 9, 9}
	otherOffsets.Offsets = []int32{0, 3, 3, 4}
	tests := []struct {
		name           string
		g              *Graph
		vlo, vhi       int32
		elo, ehi       int32
		emptyV, emptyE bool
		deg            int
	}{
		{name: "built", g: built, vlo: -1, vhi: 7, elo: 2, ehi: 5, deg: 2},
		{name: "by hand", g: &Graph{Offsets: []int32{0, 1, 2}, Adj: []int32{1, 0}, EdgeLabels: []int32{4, 4}, Labels: []int32{0, 6}}, vlo: 0, vhi: 6, elo: 4, ehi: 4, deg: 1},
		{name: "with labels", g: built.WithLabels([]int32{8, 8, 2}), vlo: 2, vhi: 8, elo: 2, ehi: 5, deg: 2},
		{name: "other edge labels", g: &otherLabels, vlo: -1, vhi: 7, elo: 9, ehi: 9, deg: 2},
		{name: "other offsets", g: &otherOffsets, vlo: -1, vhi: 7, elo: 2, ehi: 5, deg: 3},
		{name: "no edges", g: MustBuild([]int32{1}, nil), vlo: 1, vhi: 1, emptyE: true},
		{name: "empty", g: &Graph{}, emptyV: true, emptyE: true},
	}
	for _, tc := range tests {
		if d := tc.g.MaxDegree(); d != tc.deg {
			t.Errorf("%s: largest degree %d, want %d", tc.name, d, tc.deg)
		}
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
