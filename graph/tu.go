package graph

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The TU Dortmund format (https://chrsmrrs.github.io/datasets/docs/format/)
// stores a whole data set as parallel text files, one record per line, that
// refer to each other by line number. Every error below therefore names the
// file and the 1-based line, because that is what someone fixing a broken
// download needs.

// maxTULine bounds a single line so that a file without newlines cannot make
// the scanner buffer grow without limit; real attribute lines are < 1 KB.
const maxTULine = 1 << 20

// tuPath returns the path of one file of data set name in dir.
func tuPath(dir, name, suffix string) string {
	return filepath.Join(dir, name+"_"+suffix+".txt")
}

// lineErrorf formats an error that points at one line of one file.
func lineErrorf(path string, line int, format string, args ...any) error {
	return fmt.Errorf("read %s:%d: %s", path, line, fmt.Sprintf(format, args...))
}

// scanLines calls fn for every line of the file at path, with its 1-based
// number and its text without trailing white space or CR. Empty lines are
// allowed only at the end of the file. It returns the number of records
// (lines up to the last non-empty one), so that callers can compare the
// record counts of parallel files.
func scanLines(path string, fn func(line int, text []byte) error) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxTULine)
	n, blank := 0, 0
	for sc.Scan() {
		n++
		text := trimSpace(sc.Bytes())
		if len(text) == 0 {
			if blank == 0 {
				blank = n
			}
			continue
		}
		if blank != 0 {
			return 0, lineErrorf(path, blank, "empty line before more data (only trailing empty lines are allowed)")
		}
		if err := fn(n, text); err != nil {
			return 0, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return 0, lineErrorf(path, n+1, "line longer than %d bytes", maxTULine)
		}
		return 0, fmt.Errorf("read %s:%d: %w", path, n+1, err)
	}
	if blank != 0 {
		return blank - 1, nil
	}
	return n, nil
}

// trimSpace removes the blanks, tabs and CRs that editors and Windows tools
// leave around fields and at line ends.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

// splitFields splits a comma-separated line into dst, trimming each field,
// and fails (returning the number of fields found) when the count is not
// want; want < 0 accepts any count.
func splitFields(dst [][]byte, text []byte, want int) ([][]byte, int, bool) {
	dst = dst[:0]
	for {
		i := 0
		for i < len(text) && text[i] != ',' {
			i++
		}
		dst = append(dst, trimSpace(text[:i]))
		if i == len(text) {
			break
		}
		text = text[i+1:]
	}
	return dst, len(dst), want < 0 || len(dst) == want
}

// parseInt parses a decimal integer without allocating; the data sets hold
// millions of small integers and strconv would need a string per field.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	if len(b) > 18 { // may overflow: let strconv decide
		x, err := strconv.ParseInt(string(b), 10, 64)
		return x, err == nil
	}
	i, neg := 0, false
	if b[0] == '-' || b[0] == '+' {
		neg = b[0] == '-'
		i = 1
		if len(b) == 1 {
			return 0, false
		}
	}
	var x int64
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 {
			return 0, false
		}
		x = x*10 + int64(c)
	}
	if neg {
		x = -x
	}
	return x, true
}

// parseIntLine parses a line that must hold exactly one integer.
func parseIntLine(path string, line int, text []byte, what string) (int64, error) {
	if bytes.IndexByte(text, ',') >= 0 {
		return 0, lineErrorf(path, line, "want one %s, got %d comma-separated fields in %q", what, bytes.Count(text, []byte{','})+1, text)
	}
	x, ok := parseInt(text)
	if !ok {
		return 0, lineErrorf(path, line, "%s %q is not an integer", what, text)
	}
	return x, nil
}

// optionalFile reports whether an optional file exists. Only "does not
// exist" means absent; any other failure (permissions, a directory in its
// place) is an error rather than silently dropping labels.
func optionalFile(path string) (bool, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return false, fmt.Errorf("read %s: not a regular file", path)
	}
	return true, nil
}

// requiredFile turns a missing required file into an error that says which
// file of which data set is missing, rather than a bare "no such file".
func requiredFile(path, name string) error {
	ok, err := optionalFile(path)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("read %s: required file of data set %s is missing: %w", path, name, fs.ErrNotExist)
	}
	return nil
}

// denseIDs replaces every value in vals by its rank among the distinct
// values and returns the dictionary rank -> value. Ranks follow ascending
// value order so that the ids do not depend on the order of the file.
func denseIDs(vals []int64) (ids []int32, dict []int64) {
	dict = slices.Clone(vals)
	slices.Sort(dict)
	dict = slices.Compact(dict)
	dict = slices.Clip(dict)
	ids = make([]int32, len(vals))
	for i, v := range vals {
		k, _ := slices.BinarySearch(dict, v)
		ids[i] = int32(k)
	}
	return ids, dict
}

// ReadTUDir reads the data set stored in dir, naming it after the folder, as
// the TU archives unpack each set NAME into a folder NAME.
func ReadTUDir(dir string) (*Dataset, error) {
	return ReadTU(dir, filepath.Base(filepath.Clean(dir)))
}

// ReadTU reads the data set name from the TU Dortmund text files in dir:
// NAME_A.txt, NAME_graph_indicator.txt and NAME_graph_labels.txt, plus
// NAME_node_labels.txt, NAME_edge_labels.txt and NAME_node_attributes.txt
// when present.
//
// Vertex and edge labels become dense ids in ascending order of their
// integer values, so that kernels can index arrays with them; the dataset's
// dictionaries map them back. Edges repeated in A.txt or listed in one
// direction only become one undirected edge, because the published files do
// both (Synthie repeats edges, and the format does not promise symmetry).
// Anything else that is inconsistent is an error that names the file and
// line: ReadTU never guesses, since a silently mis-read data set would
// corrupt every result computed from it.
func ReadTU(dir, name string) (*Dataset, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return nil, fmt.Errorf("read TU data set in %s: invalid data set name %q", dir, name)
	}
	r := &tuReader{
		name:    name,
		aPath:   tuPath(dir, name, "A"),
		indPath: tuPath(dir, name, "graph_indicator"),
		glPath:  tuPath(dir, name, "graph_labels"),
		nlPath:  tuPath(dir, name, "node_labels"),
		elPath:  tuPath(dir, name, "edge_labels"),
		atPath:  tuPath(dir, name, "node_attributes"),
	}
	for _, p := range []string{r.aPath, r.indPath, r.glPath} {
		if err := requiredFile(p, name); err != nil {
			return nil, err
		}
	}
	var err error
	var hasNL, hasAT bool
	if hasNL, err = optionalFile(r.nlPath); err != nil {
		return nil, err
	}
	if r.hasEL, err = optionalFile(r.elPath); err != nil {
		return nil, err
	}
	if hasAT, err = optionalFile(r.atPath); err != nil {
		return nil, err
	}
	// Each file is checked against the ones it refers to, so the order
	// matters: classes fix the graph count, the indicator the node count,
	// A.txt the edge count.
	steps := []func() error{r.readClasses, r.readIndicator}
	if hasNL {
		steps = append(steps, r.readNodeLabels)
	}
	if hasAT {
		steps = append(steps, r.readAttributes)
	}
	steps = append(steps, r.readEdges, r.readEdgeLabels)
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return r.build()
}

// tuReader holds what ReadTU has learnt from the files read so far. Nodes
// are numbered k = 0..n-1 in graph_indicator order; each graph's vertex
// labels and attributes live in one shared slab, graph g at
// [start[g], start[g+1]).
type tuReader struct {
	name                                           string
	aPath, indPath, glPath, nlPath, elPath, atPath string
	hasEL                                          bool

	classes []int64
	n       int
	gid     []int32 // graph of node k, 0-based
	local   []int32 // vertex id of node k within its graph
	start   []int32 // slab offset of each graph, plus the total
	sorted  bool    // indicator sorted: node k sits at slab index k

	labels   []int32 // slab of dense vertex label ids
	nodeDict []int64
	attrs    []float64 // slab, dim values per vertex
	dim      int

	src, dst   []int32 // A.txt line l is the pair (src[l], dst[l]), node ids
	edgeLabels []int32 // dense label id of A.txt line l
	edgeDict   []int64
}

// slot returns the slab index of node k.
func (r *tuReader) slot(k int) int { return int(r.start[r.gid[k]] + r.local[k]) }

// checkCount reports a parallel file whose record count differs from the
// file it annotates, at the first line that is missing or extra.
func checkCount(path string, got, want int, wantPath, unit string) error {
	if got < want {
		return lineErrorf(path, got+1, "file ends after %d lines but %s has %d %s", got, filepath.Base(wantPath), want, unit)
	}
	if got > want {
		return lineErrorf(path, want+1, "extra line: %s has only %d %s", filepath.Base(wantPath), want, unit)
	}
	return nil
}

// readClasses reads graph_labels: line g is the class of graph g.
func (r *tuReader) readClasses() error {
	ng, err := scanLines(r.glPath, func(line int, text []byte) error {
		c, err := parseIntLine(r.glPath, line, text, "graph class")
		if err != nil {
			return err
		}
		r.classes = append(r.classes, c)
		return nil
	})
	if err != nil {
		return err
	}
	if ng == 0 {
		return lineErrorf(r.glPath, 1, "file is empty: a data set needs at least one graph")
	}
	r.classes = slices.Clip(r.classes)
	return nil
}

// readIndicator reads graph_indicator: line k is the graph of node k. Local
// vertex ids follow file order within each graph.
func (r *tuReader) readIndicator() error {
	ng := len(r.classes)
	counts := make([]int32, ng)
	n, err := scanLines(r.indPath, func(line int, text []byte) error {
		if line > math.MaxInt32 {
			return lineErrorf(r.indPath, line, "more than %d nodes", math.MaxInt32)
		}
		g, err := parseIntLine(r.indPath, line, text, "graph id")
		if err != nil {
			return err
		}
		if g < 1 || g > int64(ng) {
			return lineErrorf(r.indPath, line, "graph id %d out of range [1,%d] (%s has %d lines)", g, ng, filepath.Base(r.glPath), ng)
		}
		r.gid = append(r.gid, int32(g-1))
		r.local = append(r.local, counts[g-1])
		counts[g-1]++
		return nil
	})
	if err != nil {
		return err
	}
	for g, c := range counts {
		if c == 0 {
			return lineErrorf(r.glPath, g+1, "graph %d has no nodes in %s", g+1, filepath.Base(r.indPath))
		}
	}
	r.n = n
	r.start = make([]int32, ng+1)
	for g, c := range counts {
		r.start[g+1] = r.start[g] + c
	}
	r.sorted = slices.IsSorted(r.gid)
	r.labels = make([]int32, n) // uniform 0 unless node_labels says otherwise
	return nil
}

// readNodeLabels reads node_labels: line k is the label of node k.
func (r *tuReader) readNodeLabels() error {
	raw := make([]int64, r.n)
	cnt, err := scanLines(r.nlPath, func(line int, text []byte) error {
		if line > r.n {
			return checkCount(r.nlPath, line, r.n, r.indPath, "nodes")
		}
		x, err := parseIntLine(r.nlPath, line, text, "node label")
		if err != nil {
			return err
		}
		raw[r.slot(line-1)] = x
		return nil
	})
	if err != nil {
		return err
	}
	if err := checkCount(r.nlPath, cnt, r.n, r.indPath, "nodes"); err != nil {
		return err
	}
	r.labels, r.nodeDict = denseIDs(raw)
	return nil
}

// readAttributes reads node_attributes: line k holds the attributes of node
// k, as many as on line 1. Rows are appended in file order rather than
// preallocated from line 1's width, so that a corrupt first line cannot
// make us allocate more than the file holds.
func (r *tuReader) readAttributes() error {
	var fields [][]byte
	cnt, err := scanLines(r.atPath, func(line int, text []byte) error {
		if line > r.n {
			return checkCount(r.atPath, line, r.n, r.indPath, "nodes")
		}
		var k int
		fields, k, _ = splitFields(fields, text, -1)
		if line == 1 {
			r.dim = k
		} else if k != r.dim {
			return lineErrorf(r.atPath, line, "%d attributes, but line 1 has %d", k, r.dim)
		}
		for i, f := range fields {
			x, err := strconv.ParseFloat(string(f), 64)
			if errors.Is(err, strconv.ErrRange) {
				return lineErrorf(r.atPath, line, "attribute %d %q is outside the float64 range", i+1, f)
			}
			if err != nil {
				return lineErrorf(r.atPath, line, "attribute %d %q is not a number", i+1, f)
			}
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return lineErrorf(r.atPath, line, "attribute %d is %q; only finite values are allowed", i+1, f)
			}
			r.attrs = append(r.attrs, x)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := checkCount(r.atPath, cnt, r.n, r.indPath, "nodes"); err != nil {
		return err
	}
	if !r.sorted {
		placed := make([]float64, len(r.attrs))
		for k := 0; k < r.n; k++ {
			copy(placed[r.slot(k)*r.dim:][:r.dim], r.attrs[k*r.dim:][:r.dim])
		}
		r.attrs = placed
	}
	return nil
}

// readEdges reads A.txt: each line is a directed pair of 1-based node ids.
func (r *tuReader) readEdges() error {
	var fields [][]byte
	_, err := scanLines(r.aPath, func(line int, text []byte) error {
		if line > math.MaxInt32 {
			return lineErrorf(r.aPath, line, "more than %d lines", math.MaxInt32)
		}
		var k int
		var ok bool
		fields, k, ok = splitFields(fields, text, 2)
		if !ok {
			return lineErrorf(r.aPath, line, "want 2 comma-separated node ids, got %d fields in %q", k, text)
		}
		var ends [2]int32
		for i, f := range fields {
			x, ok := parseInt(f)
			if !ok {
				return lineErrorf(r.aPath, line, "node id %q is not an integer", f)
			}
			if x < 1 || x > int64(r.n) {
				return lineErrorf(r.aPath, line, "node id %d out of range [1,%d]", x, r.n)
			}
			ends[i] = int32(x - 1)
		}
		u, v := ends[0], ends[1]
		if u == v {
			return lineErrorf(r.aPath, line, "self-loop at node %d", u+1)
		}
		if r.gid[u] != r.gid[v] {
			return lineErrorf(r.aPath, line, "edge joins node %d of graph %d and node %d of graph %d", u+1, r.gid[u]+1, v+1, r.gid[v]+1)
		}
		r.src = append(r.src, u)
		r.dst = append(r.dst, v)
		return nil
	})
	return err
}

// readEdgeLabels reads edge_labels, whose line l labels line l of A.txt;
// without the file every edge gets label 0.
func (r *tuReader) readEdgeLabels() error {
	m := len(r.src)
	if !r.hasEL {
		r.edgeLabels = make([]int32, m)
		return nil
	}
	raw := make([]int64, m)
	cnt, err := scanLines(r.elPath, func(line int, text []byte) error {
		if line > m {
			return checkCount(r.elPath, line, m, r.aPath, "lines")
		}
		x, err := parseIntLine(r.elPath, line, text, "edge label")
		if err != nil {
			return err
		}
		raw[line-1] = x
		return nil
	})
	if err != nil {
		return err
	}
	if err := checkCount(r.elPath, cnt, m, r.aPath, "lines"); err != nil {
		return err
	}
	r.edgeLabels, r.edgeDict = denseIDs(raw)
	if r.edgeDict == nil {
		// An edge label file for a set without edges still declares edge
		// labels; keep that distinguishable from "no file".
		r.edgeDict = []int64{}
	}
	return nil
}

// build groups the edges by graph and builds every graph.
func (r *tuReader) build() (*Dataset, error) {
	ng, m := len(r.classes), len(r.src)
	// Bucket the A.txt lines by graph, keeping file order inside a graph.
	estart := make([]int32, ng+1)
	for _, u := range r.src {
		estart[r.gid[u]+1]++
	}
	for g := 0; g < ng; g++ {
		estart[g+1] += estart[g]
	}
	edges := make([]Edge, m)
	lineOf := make([]int32, m) // A.txt line index of edges[i]
	fill := slices.Clone(estart[:ng])
	for l, u := range r.src {
		g := r.gid[u]
		edges[fill[g]] = Edge{U: r.local[u], V: r.local[r.dst[l]], Label: r.edgeLabels[l]}
		lineOf[fill[g]] = int32(l)
		fill[g]++
	}

	d := &Dataset{
		Name:       r.name,
		Graphs:     make([]*Graph, ng),
		Classes:    r.classes,
		NodeLabels: r.nodeDict,
		EdgeLabels: r.edgeDict,
		AttrDim:    r.dim,
	}
	for g := 0; g < ng; g++ {
		a, b := int(r.start[g]), int(r.start[g+1])
		var ga []float64
		if r.dim > 0 {
			ga = r.attrs[a*r.dim : b*r.dim : b*r.dim]
		}
		ge, gl := edges[estart[g]:estart[g+1]], lineOf[estart[g]:estart[g+1]]
		gr, err := Build(r.labels[a:b:b], ge, ga, r.dim)
		if err != nil {
			// Endpoints and self-loops were checked while reading, so this
			// is a label conflict; find its line for the message.
			if e := r.edgeLabelConflict(ge, gl); e != nil {
				return nil, e
			}
			return nil, fmt.Errorf("read %s: graph %d: %w", r.aPath, g+1, err)
		}
		d.Graphs[g] = gr
	}
	return d, nil
}

// edgeLabelConflict finds the first line of edge_labels that gives an edge a
// label different from an earlier line for the same edge (in either
// direction).
func (r *tuReader) edgeLabelConflict(edges []Edge, lines []int32) error {
	src, dst, dict := r.src, r.dst, r.edgeDict
	type first struct {
		line  int32
		label int32
	}
	seen := make(map[[2]int32]first, len(edges))
	for i, e := range edges {
		key := [2]int32{min(e.U, e.V), max(e.U, e.V)}
		f, ok := seen[key]
		if !ok {
			seen[key] = first{lines[i], e.Label}
			continue
		}
		if f.label != e.Label {
			l := lines[i]
			return lineErrorf(r.elPath, int(l)+1,
				"edge %d-%d has label %d, but line %d gives edge %d-%d label %d",
				src[l]+1, dst[l]+1, dict[e.Label], f.line+1, src[f.line]+1, dst[f.line]+1, dict[f.label])
		}
	}
	return nil
}

// WriteTU writes d into dir (created if needed) as TU Dortmund text files
// named after d.Name, such that ReadTU(dir, d.Name) returns a data set deeply
// equal to d. This lets derived data sets (subsets, relabelled or synthetic
// sets) be inspected and shared with the same tools as the originals.
//
// The output is deterministic byte for byte, so written sets can be compared
// and checksummed. A.txt lists each edge in both directions, like the
// published files. Optional files are written only when d has the
// corresponding labels or attributes, and stale optional files of the same
// data set are removed so that they cannot be read back with the new files.
// Each file is written to a temporary file and renamed into place, so a
// crash leaves every file either old or new, never truncated; A.txt goes
// last, so a folder only looks like a data set once every other file exists.
//
// Label dictionaries are written as original values; ReadTU rebuilds them
// from the values in use, so the round trip is exact when every dictionary
// entry is used and the dictionaries are ascending (as ReadTU makes them).
// WriteTU refuses data sets that ReadTU would reject, such as a graph
// without vertices or a non-finite attribute.
func WriteTU(dir string, d *Dataset) error {
	if d == nil {
		return fmt.Errorf("write TU data set to %s: nil data set", dir)
	}
	if err := checkWritable(d); err != nil {
		return fmt.Errorf("write %s to %s: %w", d.Name, dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", d.Name, err)
	}
	// Global 1-based id of vertex 0 of each graph.
	first := make([]int64, len(d.Graphs))
	next := int64(1)
	for i, g := range d.Graphs {
		first[i] = next
		next += int64(g.N())
	}

	// Each writer emits its file line by line into buf, which is reused to
	// keep the formatting free of allocations.
	files := []tuFile{
		{"graph_labels", true, func(w *bufio.Writer, buf []byte) {
			for _, c := range d.Classes {
				buf = strconv.AppendInt(buf[:0], c, 10)
				w.Write(append(buf, '\n'))
			}
		}},
		{"graph_indicator", true, func(w *bufio.Writer, buf []byte) {
			for i, g := range d.Graphs {
				buf = strconv.AppendInt(buf[:0], int64(i+1), 10)
				buf = append(buf, '\n')
				for v := 0; v < g.N(); v++ {
					w.Write(buf)
				}
			}
		}},
		{"node_labels", d.NodeLabels != nil, func(w *bufio.Writer, buf []byte) {
			for _, g := range d.Graphs {
				for _, l := range g.Labels {
					buf = strconv.AppendInt(buf[:0], d.NodeLabels[l], 10)
					w.Write(append(buf, '\n'))
				}
			}
		}},
		{"edge_labels", d.EdgeLabels != nil, func(w *bufio.Writer, buf []byte) {
			// Same order as A.txt below: by vertex, then by neighbour.
			for _, g := range d.Graphs {
				for _, l := range g.EdgeLabels {
					buf = strconv.AppendInt(buf[:0], d.EdgeLabels[l], 10)
					w.Write(append(buf, '\n'))
				}
			}
		}},
		{"node_attributes", d.AttrDim > 0, func(w *bufio.Writer, buf []byte) {
			for _, g := range d.Graphs {
				for v := 0; v < g.N(); v++ {
					buf = buf[:0]
					for i, x := range g.Attr(v) {
						if i > 0 {
							buf = append(buf, ", "...)
						}
						buf = strconv.AppendFloat(buf, x, 'g', -1, 64)
					}
					w.Write(append(buf, '\n'))
				}
			}
		}},
		// A.txt last: FindDataset recognises a data set by it.
		{"A", true, func(w *bufio.Writer, buf []byte) {
			for i, g := range d.Graphs {
				for u := 0; u < g.N(); u++ {
					for _, v := range g.Neighbors(u) {
						buf = strconv.AppendInt(buf[:0], first[i]+int64(u), 10)
						buf = append(buf, ", "...)
						buf = strconv.AppendInt(buf, first[i]+int64(v), 10)
						w.Write(append(buf, '\n'))
					}
				}
			}
		}},
	}
	for _, f := range files {
		if f.want {
			continue
		}
		p := tuPath(dir, d.Name, f.suffix)
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("write %s: remove stale file: %w", d.Name, err)
		}
	}
	for _, f := range files {
		if !f.want {
			continue
		}
		if err := writeAtomic(tuPath(dir, d.Name, f.suffix), f.write); err != nil {
			return fmt.Errorf("write %s: %w", d.Name, err)
		}
	}
	return nil
}

// tuFile is one file of a data set being written.
type tuFile struct {
	suffix string
	want   bool
	write  func(w *bufio.Writer, buf []byte)
}

// writeAtomic writes a file through a temporary file in the same folder,
// synced before the rename, so that readers and crashes never see a partial
// file.
func writeAtomic(path string, write func(*bufio.Writer, []byte)) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriterSize(f, 256<<10)
	write(w, make([]byte, 0, 256))
	if err = w.Flush(); err != nil { // bufio keeps the first write error
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	return nil
}

// checkWritable rejects data sets that would not read back as themselves,
// so that WriteTU fails loudly instead of writing files ReadTU rejects.
func checkWritable(d *Dataset) error {
	if d.Name == "" || strings.ContainsAny(d.Name, `/\`) || d.Name == "." || d.Name == ".." {
		return fmt.Errorf("invalid data set name %q", d.Name)
	}
	if len(d.Graphs) == 0 {
		return errors.New("no graphs")
	}
	if len(d.Classes) != len(d.Graphs) {
		return fmt.Errorf("%d classes for %d graphs", len(d.Classes), len(d.Graphs))
	}
	if d.AttrDim < 0 {
		return fmt.Errorf("negative attribute dimension %d", d.AttrDim)
	}
	total := 0
	for i, g := range d.Graphs {
		if err := checkGraph(g, d); err != nil {
			return fmt.Errorf("graph %d: %w", i+1, err)
		}
		total += g.N()
		if total > math.MaxInt32 {
			return fmt.Errorf("more than %d vertices", math.MaxInt32)
		}
	}
	return nil
}

// checkGraph verifies the CSR invariants that WriteTU relies on and that
// ReadTU enforces on the way back.
func checkGraph(g *Graph, d *Dataset) error {
	if g == nil {
		return errors.New("nil graph")
	}
	n := g.N()
	if n == 0 {
		return errors.New("no vertices (the TU format cannot store an empty graph)")
	}
	if len(g.Offsets) != n+1 || g.Offsets[0] != 0 || int(g.Offsets[n]) != len(g.Adj) || len(g.EdgeLabels) != len(g.Adj) {
		return errors.New("inconsistent CSR arrays")
	}
	if g.AttrDim != d.AttrDim || len(g.Attrs) != n*g.AttrDim {
		return fmt.Errorf("%d attribute values of dimension %d, data set has dimension %d", len(g.Attrs), g.AttrDim, d.AttrDim)
	}
	for i, x := range g.Attrs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("vertex %d: attribute %d is %v", i/g.AttrDim, i%g.AttrDim+1, x)
		}
	}
	for v, l := range g.Labels {
		if (d.NodeLabels == nil && l != 0) || (d.NodeLabels != nil && (l < 0 || int(l) >= len(d.NodeLabels))) {
			return fmt.Errorf("vertex %d: label id %d outside the dictionary of %d labels", v, l, len(d.NodeLabels))
		}
	}
	for u := 0; u < n; u++ {
		if g.Offsets[u] > g.Offsets[u+1] {
			return errors.New("inconsistent CSR offsets")
		}
	}
	for u := 0; u < n; u++ {
		nb, el := g.Neighbors(u), g.NeighborEdgeLabels(u)
		for k, v := range nb {
			l := el[k]
			if (d.EdgeLabels == nil && l != 0) || (d.EdgeLabels != nil && (l < 0 || int(l) >= len(d.EdgeLabels))) {
				return fmt.Errorf("edge %d-%d: label id %d outside the dictionary of %d labels", u, v, l, len(d.EdgeLabels))
			}
			if v < 0 || int(v) >= n || int(v) == u {
				return fmt.Errorf("vertex %d: bad neighbour %d", u, v)
			}
			if k > 0 && nb[k-1] >= v {
				return fmt.Errorf("vertex %d: neighbours not strictly ascending", u)
			}
			back := g.Neighbors(int(v))
			j, ok := slices.BinarySearch(back, int32(u))
			if !ok || g.NeighborEdgeLabels(int(v))[j] != l {
				return fmt.Errorf("edge %d-%d is not stored in both directions with the same label", u, v)
			}
		}
	}
	return nil
}
