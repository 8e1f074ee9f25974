package graph

import (
	"slices"
	"testing"
)

func TestDistances(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		edges []Edge
		want  []int32 // row-major; -1 = Unreachable
	}{
		// Path 0-1-2-3: d(u,v) = |u−v|.
		{"path", 4, []Edge{{U: 0, V: 1}, {U: 1, V: 2}, {U: 2, V: 3}},
			[]int32{0, 1, 2, 3, 1, 0, 1, 2, 2, 1, 0, 1, 3, 2, 1, 0}},
		// 4-cycle: opposite vertices at distance 2.
		{"cycle", 4, []Edge{{U: 0, V: 1}, {U: 1, V: 2}, {U: 2, V: 3}, {U: 3, V: 0}},
			[]int32{0, 1, 2, 1, 1, 0, 1, 2, 2, 1, 0, 1, 1, 2, 1, 0}},
		// Edge 0-1 and isolated vertex 2.
		{"disconnected", 3, []Edge{{U: 0, V: 1}},
			[]int32{0, 1, -1, 1, 0, -1, -1, -1, 0}},
		{"empty", 0, nil, []int32{}},
	}
	// One buffer passes through every case, filled with junk each time,
	// so that DistancesInto is seen to overwrite what it reuses.
	var buf []int32
	for _, tc := range tests {
		g, err := Build(make([]int32, tc.n), tc.edges, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := Distances(g); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
		buf = buf[:cap(buf)]
		for i := range buf {
			buf[i] = 7
		}
		if buf = DistancesInto(buf, g); !slices.Equal(buf, tc.want) {
			t.Errorf("%s: DistancesInto gave %v, want %v", tc.name, buf, tc.want)
		}
	}
}
