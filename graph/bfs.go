package graph

// Unreachable is the distance Distances reports between vertices in
// different connected components.
const Unreachable = -1

// Distances returns the shortest-path distances (numbers of edges) between
// all pairs of vertices of g, row-major: d[u*n+v] is the distance from u to
// v, and Unreachable where there is no path. It runs one breadth-first
// search per vertex, O(n·(n+m)) in all.
func Distances(g *Graph) []int32 {
	return DistancesInto(nil, g)
}

// DistancesInto is Distances with the result, and the search's queue, in
// the storage of buf when it has room, so that a caller computing the
// distances of graph after graph allocates only for the largest. The result
// is a prefix of that storage and may be passed back as buf.
func DistancesInto(buf []int32, g *Graph) []int32 {
	n := g.N()
	if cap(buf) < n*n+n {
		buf = make([]int32, n*n+n)
	}
	buf = buf[:n*n+n]
	d, queue := buf[:n*n], buf[n*n:]
	for i := range d {
		d[i] = Unreachable
	}
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
