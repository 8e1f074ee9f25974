package graph

// Unreachable is the distance Distances reports between vertices in
// different connected components.
const Unreachable = -1

// Distances returns the shortest-path distances (numbers of edges) between
// all pairs of vertices of g, row-major: d[u*n+v] is the distance from u to
// v, and Unreachable where there is no path. It runs one breadth-first
// search per vertex, O(n·(n+m)) in all.
func Distances(g *Graph) []int32 {
	n := g.N()
	d := make([]int32, n*n)
	for i := range d {
		d[i] = Unreachable
	}
	queue := make([]int32, n)
	for s := 0; s < n; s++ {
		row := d[s*n : (s+1)*n]
		row[s] = 0
		queue[0] = int32(s)
		head, tail := 0, 1
		for head < tail {
			u := queue[head]
			head++
			du := row[u] + 1
			for _, v := range g.Adj[g.Offsets[u]:g.Offsets[u+1]] {
				if row[v] == Unreachable {
					row[v] = du
					queue[tail] = v
					tail++
				}
			}
		}
	}
	return d
}
