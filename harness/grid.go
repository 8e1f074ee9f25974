package harness

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/gkbench/gkbench/kernels"
)

// maxAxisValues bounds one axis so that a typo in a range (step 0.0001)
// is an error, not a grid of a million cells.
const maxAxisValues = 10000

// paramDef describes one data parameter: its kind, range and default.
type paramDef struct {
	name     bool // a data set name, not a number
	all      bool // "all" is a value: the whole data set
	integer  bool
	min, max float64
	minOpen  bool   // min itself is excluded
	def      string // "" means required (generators) or absent (size)
	doc      string
}

// check validates v and returns its canonical text.
func (d paramDef) check(v string) (string, error) {
	if d.name {
		if !validName(v) {
			return "", fmt.Errorf("%q is not a data set name", v)
		}
		return v, nil
	}
	if d.all && strings.TrimSpace(v) == "all" {
		return "all", nil
	}
	r, ok := new(big.Rat).SetString(strings.TrimSpace(v))
	if !ok {
		return "", fmt.Errorf("%q is not a number", v)
	}
	if d.integer && !r.IsInt() {
		return "", fmt.Errorf("%q is not an integer", v)
	}
	f, _ := r.Float64()
	lo := "["
	if d.minOpen {
		lo = "("
	}
	if f < d.min || (d.minOpen && f == d.min) || f > d.max {
		g := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
		return "", fmt.Errorf("%s out of range %s%s, %s]", ratText(r), lo, g(d.min), g(d.max))
	}
	return ratText(r), nil
}

// generators lists the synthetic generators and their parameters.
func generators() map[string]map[string]paramDef {
	return map[string]map[string]paramDef{
		"walk": {
			"pv":            {min: 0, max: 1, doc: "p_V, the probability of a non-zero vertex label"},
			"d":             {integer: true, min: 1, max: 1e6, doc: "number of graphs; data sets are nested in d"},
			"mean_vertices": {min: 0, max: 1e4, minOpen: true, def: "20", doc: "Poisson mean of the number of vertices"},
			"edge_prob":     {min: 0, max: 1, minOpen: true, def: "0.1", doc: "probability of each edge"},
		},
		"subgraph": {
			"labels":        {integer: true, min: 1, max: 1 << 16, doc: "size |L| of the alphabet of vertex and edge labels"},
			"d":             {integer: true, min: 1, max: 1e6, doc: "number of graphs; data sets are nested in d"},
			"mean_vertices": {min: 0, max: 1e4, minOpen: true, def: "60", doc: "Poisson mean of the number of vertices"},
			"edge_prob":     {min: 0, max: 1, minOpen: true, def: "0.5", doc: "probability of each edge"},
		},
	}
}

func generatorNames() []string { return sortedKeys(generators()) }

// paramDefs returns the data parameters of the source.
func (d DataSpec) paramDefs() map[string]paramDef {
	if d.Generator != "" {
		return generators()[d.Generator]
	}
	defs := map[string]paramDef{
		"size": {integer: true, all: true, min: 1, max: 1e7, doc: "number of graphs, a random subset nested in size, or all"},
	}
	if len(d.Datasets) > 1 {
		defs["dataset"] = paramDef{name: true, doc: "TU data set"}
	}
	return defs
}

func (d DataSpec) source() string {
	if d.Generator != "" {
		return "generator " + d.Generator
	}
	return "data set " + d.Dataset
}

// ratText formats r as an integer when it is one and otherwise as the
// shortest decimal that reads back as the same float64.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// canonical returns the canonical text of a number, so that "0.10" and
// "0.1" name the same cell; other values are kept as written.
func canonical(v string) string {
	v = strings.TrimSpace(v)
	if r, ok := new(big.Rat).SetString(v); ok && v != "" && !strings.ContainsAny(v, "/") {
		return ratText(r)
	}
	return v
}

// decodeGrid decodes the axes at path from node. A profile's grid (base
// != nil) may only change the values of base's axes.
func (s *Spec) decodeGrid(path string, node *yaml.Node, base []Axis) ([]Axis, error) {
	if node.Kind == 0 {
		return nil, nil
	}
	if node.Kind != yaml.MappingNode {
		return nil, s.errf(path, "want a mapping of axis names to values or {from, to, step}")
	}
	var axes []Axis
	for i := 0; i+1 < len(node.Content); i += 2 {
		k, v := node.Content[i], node.Content[i+1]
		apath := path + "." + k.Value
		a := Axis{Name: k.Value, path: apath}
		if base != nil {
			j := slices.IndexFunc(base, func(b Axis) bool { return b.Name == k.Value })
			if j < 0 {
				return nil, s.errf(apath, "not an axis of the spec's grid; a profile may only change the values of existing axes")
			}
			a.Target = base[j].Target
		} else {
			t, err := s.axisTarget(apath, k.Value)
			if err != nil {
				return nil, err
			}
			a.Target = t
		}
		vals, err := s.decodeValues(apath, v)
		if err != nil {
			return nil, err
		}
		if a.Target == DataAxis {
			def := s.Data.paramDefs()[a.Name]
			for j, x := range vals {
				c, err := def.check(x)
				if err != nil {
					return nil, s.errf(apath, "value %d: %v", j+1, err)
				}
				vals[j] = c
			}
		}
		for j, x := range vals {
			if slices.Contains(vals[:j], x) {
				return nil, s.errf(apath, "value %s listed twice", x)
			}
		}
		a.Values = vals
		axes = append(axes, a)
	}
	return axes, nil
}

// axisTarget resolves an axis name: a data parameter, else a parameter of
// one or more of the kernels. A kernel without the parameter is not varied
// along the axis: its cells leave that coordinate empty, so that a table
// can hold the walk kernel of every length beside the shortest-path kernel.
func (s *Spec) axisTarget(path, name string) (AxisTarget, error) {
	if slices.Contains(fixedColumns(), name) || name == "threads" {
		return 0, s.errf(path, "axis name %q is reserved for a results column (set threads under measure)", name)
	}
	if _, ok := s.Data.paramDefs()[name]; ok {
		if _, fixed := s.Data.Params[name]; fixed {
			return 0, s.errf(path, "%s is both fixed under data.params and a grid axis", name)
		}
		return DataAxis, nil
	}
	var missing []string
	for _, k := range s.Kernels {
		if !kernelHasParam(k.Name, name) {
			missing = append(missing, k.Name)
		} else if _, fixed := k.Params[name]; fixed {
			return 0, s.errf(path, "%s is both fixed under the params of kernel %s and a grid axis", name, k.Name)
		}
	}
	if len(missing) < len(s.Kernels) {
		return KernelAxis, nil
	}
	known := sortedKeys(s.Data.paramDefs())
	for _, k := range s.Kernels {
		_, docs, _ := kernels.Describe(k.Name)
		for _, d := range docs {
			if !slices.Contains(known, d.Name) {
				known = append(known, d.Name)
			}
		}
	}
	return 0, s.errf(path, "unknown axis: not a parameter of %s nor of kernel %s (known: %s)",
		s.Data.source(), strings.Join(missing, ", "), strings.Join(known, ", "))
}

// decodeValues reads an axis: a list of values, one value, or a range
// {from, to, step}.
func (s *Spec) decodeValues(path string, n *yaml.Node) ([]string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil, s.errf(path, "empty axis; give a value, a list, or {from, to, step}")
		}
		return []string{canonical(n.Value)}, nil
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			return nil, s.errf(path, "empty list: an axis needs at least one value")
		}
		vals := make([]string, len(n.Content))
		for i, c := range n.Content {
			if c.Kind != yaml.ScalarNode || c.Tag == "!!null" {
				return nil, s.errf(fmt.Sprintf("%s[%d]", path, i), "want a single value")
			}
			vals[i] = canonical(c.Value)
		}
		return vals, nil
	case yaml.MappingNode:
		var from, to, step *big.Rat
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			fpath := path + "." + k.Value
			var dst **big.Rat
			switch k.Value {
			case "from":
				dst = &from
			case "to":
				dst = &to
			case "step":
				dst = &step
			default:
				return nil, s.errf(fpath, "unknown key (known: from, to, step)")
			}
			if *dst != nil {
				return nil, s.errf(fpath, "given twice")
			}
			r, ok := new(big.Rat).SetString(v.Value)
			if v.Kind != yaml.ScalarNode || !ok || strings.Contains(v.Value, "/") {
				return nil, s.errf(fpath, "want a number, got %q", v.Value)
			}
			*dst = r
		}
		for _, f := range []struct {
			name string
			r    *big.Rat
		}{{"from", from}, {"to", to}, {"step", step}} {
			if f.r == nil {
				return nil, s.errf(path+"."+f.name, "missing; a range needs from, to and step")
			}
		}
		if step.Sign() <= 0 {
			return nil, s.errf(path+".step", "must be > 0")
		}
		if to.Cmp(from) < 0 {
			return nil, s.errf(path+".to", "%s is below from %s: empty range", ratText(to), ratText(from))
		}
		// Exact rational arithmetic: from + i·step never drifts, so 0..1
		// step 0.1 ends at exactly 1 with 11 values.
		span := new(big.Rat).Quo(new(big.Rat).Sub(to, from), step)
		count := new(big.Int).Quo(span.Num(), span.Denom())
		if !count.IsInt64() || count.Int64() >= maxAxisValues {
			return nil, s.errf(path, "range has more than %d values", maxAxisValues)
		}
		vals := make([]string, 0, count.Int64()+1)
		for i := int64(0); i <= count.Int64(); i++ {
			v := new(big.Rat).Mul(step, new(big.Rat).SetInt64(i))
			vals = append(vals, ratText(v.Add(v, from)))
		}
		return vals, nil
	}
	return nil, s.errf(path, "want a value, a list, or {from, to, step}")
}

// Plan is a spec resolved for one profile: the axes, settings and cells to
// run.
type Plan struct {
	Spec    *Spec
	Profile string
	Axes    []Axis
	Measure Measure
	Limits  Limits
	Cells   []Cell
	// Evaluation is the accuracy protocol of the profile, or nil.
	Evaluation *Evaluation
}

// Cell is one point of the grid: one data set and one kernel with all its
// parameters. It is run once per method and repetition.
type Cell struct {
	// Index is the cell's position in the plan's grid.
	Index int
	// Coords holds the cell's value of every axis, in the plan's axis
	// order.
	Coords []string
	Data   DataCoord
	Kernel string
	Params kernels.Params
	// Methods are the methods the cell runs: the spec's, or its kernel's
	// own list.
	Methods []kernels.Method
	// Key identifies the computation: data and kernel with every
	// parameter. Results are matched to cells by it when resuming.
	Key string
}

// DataCoord is one data set of a plan: a TU data set or its random subset,
// or a generated one.
type DataCoord struct {
	Dataset   string
	Generator string
	// Params holds every data parameter as canonical text, defaults
	// included.
	Params map[string]string
	Seed   uint64
}

// Key describes the data set uniquely, e.g.
// "walk(d=100,edge_prob=0.1,mean_vertices=20,pv=0.3,seed=1)" or
// "U251(size=500,seed=1)".
func (d DataCoord) Key() string {
	name := d.Dataset
	if d.Generator != "" {
		name = d.Generator
	}
	if len(d.Params) == 0 {
		return name
	}
	return fmt.Sprintf("%s(%s,seed=%d)", name, paramText(d.Params), d.Seed)
}

// paramText formats parameters as sorted key=value pairs.
func paramText(p map[string]string) string {
	parts := make([]string, 0, len(p))
	for _, k := range sortedKeys(p) {
		parts = append(parts, k+"="+p[k])
	}
	return strings.Join(parts, ",")
}

// Plan resolves the spec for a profile; threads > 0 overrides the spec's
// threads (the -threads flag).
func (s *Spec) Plan(profile string, threads int) (*Plan, error) {
	if !slices.Contains(Profiles(), profile) {
		return nil, fmt.Errorf("unknown profile %q (known: %s)", profile, strings.Join(Profiles(), ", "))
	}
	if !s.Defines(profile) {
		return nil, fmt.Errorf("spec %s does not define profile %q", s.Name, profile)
	}
	p := &Plan{Spec: s, Profile: profile, Axes: s.Grid, Measure: s.Measure, Limits: s.Limits, Evaluation: s.Evaluation}
	if o, ok := s.Overrides[profile]; ok {
		p.Axes = o.merge(s.Grid)
		o.apply(&p.Measure, &p.Limits)
		if o.Evaluation != nil {
			p.Evaluation = o.Evaluation
		}
	}
	if threads > 0 {
		p.Measure.Threads = threads
	}
	p.expand()
	return p, nil
}

// expand lists the cells: data axes outermost, so that the cells of one
// data set are adjacent and it is built once; then kernels; then kernel
// axes, each in file order with the last varying fastest.
func (p *Plan) expand() {
	var dataAxes, kernAxes []int
	for i, a := range p.Axes {
		if a.Target == DataAxis {
			dataAxes = append(dataAxes, i)
		} else {
			kernAxes = append(kernAxes, i)
		}
	}
	s := p.Spec
	coords := make([]string, len(p.Axes))
	var forAxes func(order []int, k int, fn func())
	forAxes = func(order []int, k int, fn func()) {
		if k == len(order) {
			fn()
			return
		}
		for _, v := range p.Axes[order[k]].Values {
			coords[order[k]] = v
			forAxes(order, k+1, fn)
		}
	}
	forAxes(dataAxes, 0, func() {
		dc := DataCoord{Dataset: s.Data.Dataset, Generator: s.Data.Generator, Params: map[string]string{}, Seed: s.Seed}
		for name, def := range s.Data.paramDefs() {
			if def.def != "" {
				dc.Params[name] = def.def
			}
		}
		for k, v := range s.Data.Params {
			dc.Params[k] = v
		}
		for _, i := range dataAxes {
			if p.Axes[i].Name == "dataset" {
				dc.Dataset = coords[i]
				continue
			}
			dc.Params[p.Axes[i].Name] = coords[i]
		}
		for _, k := range s.Kernels {
			// own are the kernel axes of this kernel's parameters, and
			// shared those that shape all of its methods. An axis of an
			// explicit-only parameter (binning iterations) varies the
			// explicit cells; the other methods get one cell without it,
			// since they would compute the same matrix for every value.
			// Not where auto is among them: its choice, and its matrix
			// where it runs the explicit method, depend on the value,
			// and the oracle it is measured against takes both methods'
			// times from its cell, so every method runs in every cell.
			var own, shared []int
			for _, i := range kernAxes {
				name := p.Axes[i].Name
				if !kernelHasParam(k.Name, name) {
					coords[i] = ""
					continue
				}
				own = append(own, i)
				if !kernelParamExplicitOnly(k.Name, name) {
					shared = append(shared, i)
				}
			}
			methods := k.methods(s.Methods)
			groups := []struct {
				axes    []int
				methods []kernels.Method
			}{{own, methods}}
			if len(shared) < len(own) && !slices.Contains(methods, kernels.Auto) {
				var expl, other []kernels.Method
				for _, m := range methods {
					if m == kernels.Explicit {
						expl = append(expl, m)
					} else {
						other = append(other, m)
					}
				}
				groups = groups[:0]
				if expl != nil {
					groups = append(groups, struct {
						axes    []int
						methods []kernels.Method
					}{own, expl})
				}
				if other != nil {
					groups = append(groups, struct {
						axes    []int
						methods []kernels.Method
					}{shared, other})
				}
			}
			for _, grp := range groups {
				for _, i := range own {
					coords[i] = ""
				}
				forAxes(grp.axes, 0, func() {
					params := cloneParams(k.Params)
					for _, i := range grp.axes {
						params[p.Axes[i].Name] = coords[i]
					}
					// The default, one thread as in the paper, stays out
					// of the parameters and so of the cell keys.
					if kernelHasParam(k.Name, "threads") && p.Measure.Threads > 1 {
						params["threads"] = strconv.Itoa(p.Measure.Threads)
					}
					p.Cells = append(p.Cells, Cell{
						Index:   len(p.Cells),
						Coords:  slices.Clone(coords),
						Data:    dc,
						Kernel:  k.Name,
						Params:  params,
						Methods: grp.methods,
						Key:     dc.Key() + " " + k.Name + "(" + paramText(params) + ")",
					})
				})
			}
		}
	})
}

// AxisNames returns the names of the plan's axes, which are the coordinate
// columns of its results.
func (p *Plan) AxisNames() []string {
	names := make([]string, len(p.Axes))
	for i, a := range p.Axes {
		names[i] = a.Name
	}
	return names
}

// Runs returns the number of recorded runs of the plan: the methods of
// every cell × repetitions.
func (p *Plan) Runs() int {
	n := 0
	for _, c := range p.Cells {
		n += len(c.Methods)
	}
	return n * p.Measure.Repetitions
}

// methods returns the kernel's own methods, or all of the spec's, in the
// spec's order.
func (k KernelSpec) methods(spec []kernels.Method) []kernels.Method {
	if k.Methods == nil {
		return spec
	}
	var ms []kernels.Method
	for _, m := range spec {
		if slices.Contains(k.Methods, m) {
			ms = append(ms, m)
		}
	}
	return ms
}

// String describes the plan's settings on one line.
func (p *Plan) String() string {
	lim := func(d time.Duration) string {
		if d == 0 {
			return "none"
		}
		return d.String()
	}
	mem := "none"
	if p.Limits.Memory > 0 {
		mem = fmt.Sprintf("%.3gGiB", float64(p.Limits.Memory)/(1<<30))
	}
	reuse := ""
	if p.Measure.Reuse {
		reuse = ", buffers reused"
	}
	return fmt.Sprintf("%s [%s]: %d cells × %d methods × %d repetitions (warm-up %d, threads %d%s, limits time %s memory %s)",
		p.Spec.Name, p.Profile, len(p.Cells), len(p.Spec.Methods), p.Measure.Repetitions,
		p.Measure.Warmup, p.Measure.Threads, reuse, lim(p.Limits.Time), mem)
}
