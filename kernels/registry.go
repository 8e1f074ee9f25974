package kernels

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Params holds a kernel's parameters as text, keyed by name, as they come
// from the command line (-p key=value) or from a spec.
type Params map[string]string

// ParamError reports a kernel parameter that is unknown, malformed or out of
// range. Callers that know where the parameter came from (a spec's file and
// line) add that position.
type ParamError struct {
	Kernel string
	Param  string
	Value  string
	Reason string
}

func (e *ParamError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("kernel %s: parameter %q: %s", e.Kernel, e.Param, e.Reason)
	}
	return fmt.Sprintf("kernel %s: parameter %s=%q: %s", e.Kernel, e.Param, e.Value, e.Reason)
}

// ParamDoc documents one parameter of a kernel.
type ParamDoc struct {
	Name    string
	Default string
	Doc     string
	// ExplicitOnly marks a parameter that shapes the explicit method only,
	// such as the number of random binning iterations: the implicit method
	// computes the same matrix whatever its value.
	ExplicitOnly bool
}

// factory builds a kernel from its parameters.
type factory struct {
	params []ParamDoc
	build  func(p Params) (Kernel, error)
	doc    string
}

// registry lists the kernels known by name. It is built on each call, so
// there is no package-level mutable state.
func registry() map[string]factory {
	return map[string]factory{
		"walk": {
			doc: "fixed-length walk kernel K=_l, or K<=_l with max=true (Section 4.2)",
			params: []ParamDoc{
				{Name: "length", Doc: "walk length l >= 0 (required)"},
				{Name: "max", Default: "false", Doc: "true: Max-l-walk kernel, the sum over lengths 0..l"},
				{Name: "lambda", Default: "1", Doc: "weight base of the Max-l-walk kernel: lambda_i = lambda^i, > 0"},
				{Name: "wl", Default: "0", Doc: "Weisfeiler-Lehman iterations applied to the vertex labels first, >= 0"},
				threadsParamDoc(),
			},
			build: newWalkFromParams,
		},
		"grw": {
			doc: "geometric random walk kernel, the sum of gamma^l times the l-walk kernel over all l (Gärtner et al. 2003); implicit only",
			params: []ParamDoc{
				{Name: "gamma", Doc: "decay 0 < gamma < 1 (required); the series must converge on every pair"},
				{Name: "terms", Default: "0", Doc: "> 0: sum walk lengths 0..terms-1 only; 0: sum until converged"},
				threadsParamDoc(),
			},
			build: newGRWFromParams,
		},
		"sp": {
			doc:    "shortest-path kernel, Dirac on path lengths, and on endpoint labels or a kernel on endpoint attributes (Sections 4.3, 5.2)",
			params: append(attrParamDocs("dirac"), threadsParamDoc()),
			build:  newSPFromParams,
		},
		"gi": {
			doc:    "graph invariant kernel: WL weights on the unlabelled structure times an attribute kernel (Section 4.1.1)",
			params: append(append([]ParamDoc{{Name: "h", Default: "3", Doc: "Weisfeiler-Lehman iterations, 0..20"}}, attrParamDocs("hat")...), threadsParamDoc()),
			build:  newGIFromParams,
		},
		"gh": {
			doc:    "GraphHopper kernel: shortest-path hop matrices times an attribute kernel (Section 4.1.1)",
			params: append(attrParamDocs("hat"), threadsParamDoc()),
			build:  newGHFromParams,
		},
		"graphlet": {
			doc:    "graphlet kernel on connected induced 3-vertex subgraphs with vertex and edge labels (Section 5.4.1); explicit only",
			params: []ParamDoc{threadsParamDoc()},
			build:  newGraphletFromParams,
		},
		"csm": {
			doc:    "connected subgraph matching kernel on 3-vertex subgraphs, Dirac kernels, no automorphism weighting (Sections 4.4, 5.4): implicit on association graphs, or explicit as graphlet counts weighted by their automorphisms, the same matrix",
			params: []ParamDoc{threadsParamDoc()},
			build:  newCSMFromParams,
		},
	}
}

// Names returns the names of the known kernels, sorted.
func Names() []string {
	r := registry()
	names := make([]string, 0, len(r))
	for n := range r {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Describe returns a kernel's one-line description and parameter docs.
func Describe(name string) (string, []ParamDoc, error) {
	f, ok := registry()[name]
	if !ok {
		return "", nil, unknownKernel(name)
	}
	return f.doc, f.params, nil
}

// New returns the kernel called name, configured by p. An unknown kernel, an
// unknown parameter, a malformed value or a value out of range is an error;
// parameter errors are *ParamError.
func New(name string, p Params) (Kernel, error) {
	f, ok := registry()[name]
	if !ok {
		return nil, unknownKernel(name)
	}
	for k := range p {
		if !slices.ContainsFunc(f.params, func(d ParamDoc) bool { return d.Name == k }) {
			known := make([]string, len(f.params))
			for i, d := range f.params {
				known[i] = d.Name
			}
			return nil, &ParamError{Kernel: name, Param: k, Reason: "unknown parameter (known: " + strings.Join(known, ", ") + ")"}
		}
	}
	return f.build(p)
}

func unknownKernel(name string) error {
	return fmt.Errorf("unknown kernel %q (known: %s)", name, strings.Join(Names(), ", "))
}

// paramReader parses typed parameters and remembers the first error.
type paramReader struct {
	kernel string
	p      Params
	err    error
}

func (r *paramReader) fail(key, reason string) {
	if r.err == nil {
		r.err = &ParamError{Kernel: r.kernel, Param: key, Value: r.p[key], Reason: reason}
	}
}

// int returns the integer parameter key in [lo, hi], def when absent;
// required parameters have no default.
func (r *paramReader) int(key string, def, lo, hi int, required bool) int {
	s, ok := r.p[key]
	if !ok {
		if required {
			r.fail(key, "required")
		}
		return def
	}
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		r.fail(key, "not an integer")
		return def
	}
	if v < lo || v > hi {
		r.fail(key, fmt.Sprintf("out of range [%d, %d]", lo, hi))
		return def
	}
	return v
}

func (r *paramReader) bool(key string, def bool) bool {
	s, ok := r.p[key]
	if !ok {
		return def
	}
	v, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		r.fail(key, "not a boolean (true or false)")
		return def
	}
	return v
}

// floatAbove returns the parameter key, which must be finite and > lo.
func (r *paramReader) floatAbove(key string, def, lo float64) float64 {
	s, ok := r.p[key]
	if !ok {
		return def
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		r.fail(key, "not a finite number")
		return def
	}
	if v <= lo {
		r.fail(key, fmt.Sprintf("must be > %g", lo))
		return def
	}
	return v
}

// threadsParamDoc documents the threads parameter, which every kernel has
// (TestEveryKernelHasThreads).
func threadsParamDoc() ParamDoc {
	return ParamDoc{Name: "threads", Default: "1", Doc: "goroutines of the explicit maps and dot products and of the implicit pairs; the matrix is the same for any number"}
}

// threads reads the threads parameter that threadsParamDoc documents.
func (r *paramReader) threads() int { return r.int("threads", 1, 1, 1024, false) }

// attrParamDocs documents the attribute-kernel parameters of the kernels for
// attributed graphs, with the given default vertex kernel.
func attrParamDocs(def string) []ParamDoc {
	return []ParamDoc{
		{Name: "vertex", Default: def, Doc: "vertex kernel: dirac (labels), hat (attributes, k_Delta) or rbf (attributes, Gaussian)"},
		{Name: "delta", Default: "1", Doc: "hat kernel width delta > 0"},
		{Name: "sigma", Default: "1", Doc: "rbf kernel width sigma > 0"},
		{Name: "iterations", Default: "1", Doc: "random binning iterations P >= 1 of the explicit map of the hat kernel", ExplicitOnly: true},
		{Name: "seed", Default: "1", Doc: "seed of the random binning", ExplicitOnly: true},
	}
}

// attrKernel reads the attribute-kernel parameters.
func (r *paramReader) attrKernel(def string) *AttrKernel {
	a := &AttrKernel{
		Kind:       def,
		Delta:      r.floatAbove("delta", 1, 0),
		Sigma:      r.floatAbove("sigma", 1, 0),
		Iterations: r.int("iterations", 1, 1, 1<<20, false),
		Seed:       uint64(r.int("seed", 1, 0, math.MaxInt32, false)),
	}
	if v, ok := r.p["vertex"]; ok {
		a.Kind = strings.TrimSpace(v)
	}
	if err := a.validate(); err != nil && r.err == nil {
		r.fail("vertex", err.Error())
	}
	return a
}

func newSPFromParams(p Params) (Kernel, error) {
	r := &paramReader{kernel: "sp", p: p}
	a := r.attrKernel("dirac")
	threads := r.threads()
	if r.err != nil {
		return nil, r.err
	}
	if a.Kind == "dirac" {
		return &ShortestPath{Threads: threads}, nil
	}
	return &ShortestPath{Attr: a, Threads: threads}, nil
}

func newGIFromParams(p Params) (Kernel, error) {
	r := &paramReader{kernel: "gi", p: p}
	k := &GraphInvariant{H: r.int("h", 3, 0, 20, false)}
	k.Attr = *r.attrKernel("hat")
	k.Threads = r.threads()
	if r.err != nil {
		return nil, r.err
	}
	return k, nil
}

func newGraphletFromParams(p Params) (Kernel, error) {
	r := &paramReader{kernel: "graphlet", p: p}
	k := &Graphlet{Threads: r.threads()}
	if r.err != nil {
		return nil, r.err
	}
	return k, nil
}

func newCSMFromParams(p Params) (Kernel, error) {
	r := &paramReader{kernel: "csm", p: p}
	k := &SubgraphMatching{Threads: r.threads()}
	if r.err != nil {
		return nil, r.err
	}
	return k, nil
}

func newGHFromParams(p Params) (Kernel, error) {
	r := &paramReader{kernel: "gh", p: p}
	k := &GraphHopper{Attr: *r.attrKernel("hat")}
	k.Threads = r.threads()
	if r.err != nil {
		return nil, r.err
	}
	return k, nil
}
