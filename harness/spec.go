package harness

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/gkbench/gkbench/kernels"
)

// The profiles a spec may define. Quick is what `make reproduce` runs in
// minutes; Full is the paper's scale. Medium, which a spec defines only
// where the full scale takes days on a small machine, keeps the real data
// sets and cuts the evaluation down to hours.
const (
	Quick  = "quick"
	Medium = "medium"
	Full   = "full"
)

// Profiles lists the known profile names.
func Profiles() []string { return []string{Quick, Medium, Full} }

// Defines reports whether the profile can be planned for s: quick and full
// always can (a spec without an override runs at its own values), medium
// only when s defines it.
func (s *Spec) Defines(profile string) bool {
	if profile == Medium {
		_, ok := s.Overrides[Medium]
		return ok
	}
	return slices.Contains(Profiles(), profile)
}

// Spec is one experiment: one table or figure of the paper, decoded and
// validated from a YAML file.
type Spec struct {
	// Name names the results folder; it defaults to the file's base name
	// without extension.
	Name string
	// Title and Paper describe the experiment and where it is in the paper.
	Title, Paper string
	// File is the path the spec was read from and Hash the hex SHA-256 of
	// its bytes, which guards resuming and merging against edited specs.
	File, Hash string
	// Seed drives every random choice: synthetic graphs and subsets.
	Seed uint64
	// Data is the data source, fixed parameters and all.
	Data DataSpec
	// Kernels lists the kernels with their fixed parameters.
	Kernels []KernelSpec
	// Methods lists the computation methods, in order.
	Methods []kernels.Method
	// Grid holds the axes of the paper's scale, in file order.
	Grid []Axis
	// Measure and Limits are the settings of the paper's scale.
	Measure Measure
	Limits  Limits
	// Overrides holds the profiles the spec defines, by name.
	Overrides map[string]Override
	// Evaluation is the accuracy protocol, or nil for timings only.
	Evaluation *Evaluation

	idx *nodeIndex
}

// DataSpec names a data source: a TU data set (Dataset) or a synthetic
// generator (Generator), never both.
type DataSpec struct {
	Dataset   string
	Generator string
	// Datasets lists the TU data sets when there are several; they form
	// the first grid axis, "dataset".
	Datasets []string
	// Params holds the fixed data parameters as canonical text, e.g.
	// {"mean_vertices": "20"} for a generator or {"size": "100"} for a TU
	// data set.
	Params map[string]string
}

// KernelSpec is a kernel by registry name with its fixed parameters.
type KernelSpec struct {
	Name   string
	Params kernels.Params
	// Methods, when set, restricts the kernel to some of the spec's
	// methods: a table may hold an explicit-only kernel (graphlet) beside
	// an implicit-only one (subgraph matching).
	Methods []kernels.Method

	rawMethods []string // as written, checked once the spec's methods are known
}

// AxisTarget says which part of a cell an axis varies.
type AxisTarget int

// The targets of an axis.
const (
	// DataAxis varies a data parameter (generator parameter or subset size);
	// every value is a separate data set.
	DataAxis AxisTarget = iota
	// KernelAxis varies a kernel parameter on the same data.
	KernelAxis
)

// Axis is one grid dimension: a parameter and its values as canonical text.
type Axis struct {
	Name   string
	Target AxisTarget
	Values []string

	path string // spec field of the axis, for error positions
}

// Measure says how each cell is measured.
type Measure struct {
	// Repetitions is the number of recorded runs per cell and method; the
	// paper averages 5.
	Repetitions int
	// Warmup is the number of unrecorded runs before them.
	Warmup int
	// Threads is the number of threads a kernel may use; the paper uses 1.
	Threads int
	// Reuse keeps each method's buffers from one run of a cell to the
	// next (kernels.Workspace), as a program computing like matrices one
	// after another would. Off, every run computes its matrix from
	// scratch, as one call does and as the paper timed it.
	Reuse bool
}

// Limits bounds one run of a cell. Zero means unlimited.
type Limits struct {
	// Time bounds the wall time of one Gram computation.
	Time time.Duration
	// Memory bounds the sampled heap (live and unswept objects) of the
	// process during one Gram computation, in bytes.
	Memory int64
}

// Override is what a profile changes: the values of some axes, and any
// measurement setting or limit it sets.
type Override struct {
	// Evaluation, when set, is the spec's evaluation with the profile's
	// repetitions and folds.
	Evaluation                   *Evaluation
	Grid                         []Axis
	Repetitions, Warmup, Threads *int
	Reuse                        *bool
	Time                         *time.Duration
	Memory                       *int64
}

// SpecError is one problem with a spec, located in its file. It prints as
// one line: "file:line: field path: reason".
type SpecError struct {
	File   string
	Line   int
	Field  string
	Reason string
}

func (e *SpecError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		fmt.Fprintf(&b, "field %s: ", e.Field)
	}
	b.WriteString(e.Reason)
	return b.String()
}

// raw* mirror the YAML layout; yaml.v3 decodes into them with KnownFields so
// that a misspelt key is an error rather than a silently ignored setting.
// The grids are nodes because their order is the order of the cells.
type rawSpec struct {
	Name       string                `yaml:"name"`
	Title      string                `yaml:"title"`
	Paper      string                `yaml:"paper"`
	Seed       *uint64               `yaml:"seed"`
	Data       *rawData              `yaml:"data"`
	Kernels    []rawKernel           `yaml:"kernels"`
	Methods    []string              `yaml:"methods"`
	Grid       yaml.Node             `yaml:"grid"`
	Measure    *rawMeasure           `yaml:"measure"`
	Limits     *rawLimits            `yaml:"limits"`
	Profiles   map[string]rawProfile `yaml:"profiles"`
	Evaluation *rawEvaluation        `yaml:"evaluation"`
}

type rawData struct {
	Dataset   nameList          `yaml:"dataset"`
	Synthetic string            `yaml:"synthetic"`
	Params    map[string]string `yaml:"params"`
}

type rawKernel struct {
	Name    string            `yaml:"name"`
	Params  map[string]string `yaml:"params"`
	Methods []string          `yaml:"methods"`
}

type rawMeasure struct {
	Repetitions *int  `yaml:"repetitions"`
	Warmup      *int  `yaml:"warmup"`
	Threads     *int  `yaml:"threads"`
	Reuse       *bool `yaml:"reuse"`
}

type rawLimits struct {
	Time   *string `yaml:"time"`
	Memory *string `yaml:"memory"`
}

type rawProfile struct {
	Grid       yaml.Node      `yaml:"grid"`
	Measure    *rawMeasure    `yaml:"measure"`
	Limits     *rawLimits     `yaml:"limits"`
	Evaluation *rawEvalCounts `yaml:"evaluation"`
}

// rawTypeKeys maps the Go type names in yaml.v3's messages to the keys they
// accept, so an unknown key error can list the known ones.
func rawTypeKeys() map[string][]string {
	return map[string][]string{
		"harness.rawSpec":       {"name", "title", "paper", "seed", "data", "kernels", "methods", "grid", "measure", "limits", "profiles", "evaluation"},
		"harness.rawData":       {"dataset", "synthetic", "params"},
		"harness.rawKernel":     {"name", "params", "methods"},
		"harness.rawMeasure":    {"repetitions", "warmup", "threads", "reuse"},
		"harness.rawLimits":     {"time", "memory"},
		"harness.rawProfile":    {"grid", "measure", "limits", "evaluation"},
		"harness.rawEvaluation": {"reps", "folds", "inner_folds", "method", "select", "extra"},
		"harness.rawExtra":      {"name", "params", "select"},
		"harness.rawEvalCounts": {"reps", "folds", "inner_folds", "select"},
	}
}

// LoadSpec reads, decodes and validates the spec in file.
func LoadSpec(file string) (*Spec, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read spec: %w", err)
	}
	return ParseSpec(file, src)
}

// ParseSpec decodes and validates a spec from src; file names it in errors
// and gives the default name. Every error is a *SpecError.
func ParseSpec(file string, src []byte) (*Spec, error) {
	sum := sha256.Sum256(src)
	s := &Spec{File: file, Hash: hex.EncodeToString(sum[:])}

	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil {
		return nil, yamlError(file, nil, err)
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, &SpecError{File: file, Reason: "empty spec"}
	}
	s.idx = newNodeIndex(&root)

	var raw rawSpec
	dec := yaml.NewDecoder(bytes.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		return nil, yamlError(file, s.idx, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &SpecError{File: file, Line: extra.Line, Reason: "more than one YAML document; a spec is one document"}
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlError(file, s.idx, err)
	}
	if err := s.build(&raw); err != nil {
		return nil, err
	}
	return s, nil
}

// errf returns a SpecError at the field path, or at its nearest ancestor
// present in the file when the field itself is absent.
func (s *Spec) errf(path, format string, a ...any) error {
	return &SpecError{File: s.File, Line: s.idx.line(path), Field: path, Reason: fmt.Sprintf(format, a...)}
}

func (s *Spec) build(raw *rawSpec) error {
	s.Name = raw.Name
	if s.Name == "" {
		base := filepath.Base(s.File)
		s.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	if !validName(s.Name) {
		return s.errf("name", "%q is not a valid results folder name (letters, digits, '-', '_', '.')", s.Name)
	}
	s.Title, s.Paper = raw.Title, raw.Paper
	if raw.Seed == nil {
		return s.errf("seed", "missing; every spec names its seed so that its data are reproducible")
	}
	s.Seed = *raw.Seed
	if err := s.buildData(raw.Data); err != nil {
		return err
	}
	if err := s.buildKernels(raw.Kernels); err != nil {
		return err
	}
	if len(raw.Methods) == 0 {
		return s.errf("methods", "missing or empty; list explicit, implicit or both")
	}
	for i, m := range raw.Methods {
		meth, err := kernels.ParseMethod(m)
		if err != nil {
			return s.errf(fmt.Sprintf("methods[%d]", i), "%v", err)
		}
		if slices.Contains(s.Methods, meth) {
			return s.errf(fmt.Sprintf("methods[%d]", i), "method %s listed twice", meth)
		}
		s.Methods = append(s.Methods, meth)
	}

	grid, err := s.decodeGrid("grid", &raw.Grid, nil)
	if err != nil {
		return err
	}
	s.Grid = grid
	if len(s.Data.Datasets) > 1 {
		s.Grid = append([]Axis{{Name: "dataset", Target: DataAxis, Values: s.Data.Datasets, path: "data.dataset"}}, s.Grid...)
	}
	if s.Data.Generator != "" {
		for _, name := range sortedKeys(s.Data.paramDefs()) {
			def := s.Data.paramDefs()[name]
			_, fixed := s.Data.Params[name]
			if def.def == "" && !fixed && !slices.ContainsFunc(s.Grid, func(a Axis) bool { return a.Name == name }) {
				return s.errf("data.params."+name, "missing; generator %s needs %s (%s), under data.params or as a grid axis", s.Data.Generator, name, def.doc)
			}
		}
	}
	// A kernel's own methods must be among the spec's, which name the
	// columns of the results.
	for ki := range s.Kernels {
		k := &s.Kernels[ki]
		for j, m := range k.rawMethods {
			path := fmt.Sprintf("kernels[%d].methods[%d]", ki, j)
			meth, err := kernels.ParseMethod(m)
			if err != nil {
				return s.errf(path, "%v", err)
			}
			if !slices.Contains(s.Methods, meth) {
				return s.errf(path, "method %s is not among the spec's methods", meth)
			}
			if slices.Contains(k.Methods, meth) {
				return s.errf(path, "method %s listed twice", meth)
			}
			k.Methods = append(k.Methods, meth)
		}
	}
	// Whether a kernel supports a method is known once it can be built,
	// that is with the grid's values of its parameters.
	for ki, k := range s.Kernels {
		kern, err := kernels.New(k.Name, s.representative(k, s.Grid))
		if err != nil {
			continue // reported with its axis below
		}
		for i, meth := range s.Methods {
			path := fmt.Sprintf("methods[%d]", i)
			if k.Methods != nil {
				if !slices.Contains(k.Methods, meth) {
					continue
				}
				path = fmt.Sprintf("kernels[%d].methods[%d]", ki, slices.Index(k.Methods, meth))
			}
			if !kernels.Supports(kern, meth) {
				return s.errf(path, "kernel %s does not support method %s (give the kernel its own methods list)", k.Name, meth)
			}
		}
	}
	s.Measure = Measure{Repetitions: 1, Warmup: 0, Threads: 1}
	s.Limits = Limits{}
	o, err := s.decodeSettings("", raw.Measure, raw.Limits)
	if err != nil {
		return err
	}
	o.apply(&s.Measure, &s.Limits)
	if raw.Evaluation != nil {
		if err := s.buildEvaluation(raw.Evaluation); err != nil {
			return err
		}
	}

	s.Overrides = make(map[string]Override)
	for name, rp := range raw.Profiles {
		path := "profiles." + name
		if !slices.Contains(Profiles(), name) {
			return s.errf(path, "unknown profile %q (known: %s)", name, strings.Join(Profiles(), ", "))
		}
		o, err := s.decodeSettings(path+".", rp.Measure, rp.Limits)
		if err != nil {
			return err
		}
		o.Grid, err = s.decodeGrid(path+".grid", &rp.Grid, s.Grid)
		if err != nil {
			return err
		}
		if rp.Evaluation != nil {
			if raw.Evaluation == nil {
				return s.errf(path+".evaluation", "the spec has no evaluation block to change")
			}
			if o.Evaluation, err = s.profileEvaluation(path+".evaluation", rp.Evaluation); err != nil {
				return err
			}
		}
		s.Overrides[name] = o
	}

	// Validate every value of every kernel axis by building the kernel with
	// it, the other axes at their first value: the kernels package is the
	// one authority on its parameters.
	for _, name := range append([]string{""}, Profiles()...) {
		axes := s.Grid
		if name != "" {
			o, ok := s.Overrides[name]
			if !ok {
				continue
			}
			axes = o.merge(s.Grid)
		}
		if err := s.checkKernelAxes(axes); err != nil {
			return err
		}
	}
	return nil
}

func kernelHasParam(kernel, param string) bool {
	_, docs, err := kernels.Describe(kernel)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(docs, func(d kernels.ParamDoc) bool { return d.Name == param })
}

// kernelParamExplicitOnly reports whether param shapes only the explicit
// method of kernel, like the binning iterations.
func kernelParamExplicitOnly(kernel, param string) bool {
	_, docs, err := kernels.Describe(kernel)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(docs, func(d kernels.ParamDoc) bool { return d.Name == param && d.ExplicitOnly })
}

func validName(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

func (s *Spec) buildData(d *rawData) error {
	if d == nil {
		return s.errf("data", "missing; name a TU data set (dataset: MUTAG) or a generator (synthetic: walk)")
	}
	switch {
	case len(d.Dataset) > 0 && d.Synthetic != "":
		return s.errf("data", "give either dataset or synthetic, not both")
	case len(d.Dataset) == 0 && d.Synthetic == "":
		return s.errf("data", "name a TU data set (dataset: MUTAG), several (dataset: [MUTAG, ENZYMES]) or a generator (synthetic: walk)")
	case len(d.Dataset) > 0:
		for i, n := range d.Dataset {
			if !validName(n) {
				return s.errf("data.dataset", "%q is not a data set name", n)
			}
			if slices.Contains(d.Dataset[:i], n) {
				return s.errf("data.dataset", "data set %s listed twice", n)
			}
		}
	default:
		if _, ok := generators()[d.Synthetic]; !ok {
			return s.errf("data.synthetic", "unknown generator %q (known: %s)", d.Synthetic, strings.Join(generatorNames(), ", "))
		}
	}
	s.Data = DataSpec{Generator: d.Synthetic, Params: make(map[string]string)}
	if len(d.Dataset) > 0 {
		s.Data.Dataset = d.Dataset[0]
		s.Data.Datasets = d.Dataset
	}
	defs := s.Data.paramDefs()
	for k, v := range d.Params {
		path := "data.params." + k
		def, ok := defs[k]
		if !ok {
			return s.errf(path, "unknown parameter of %s (known: %s)", s.Data.source(), strings.Join(sortedKeys(defs), ", "))
		}
		c, err := def.check(v)
		if err != nil {
			return s.errf(path, "%v", err)
		}
		s.Data.Params[k] = c
	}
	return nil
}

func (s *Spec) buildKernels(ks []rawKernel) error {
	if len(ks) == 0 {
		return s.errf("kernels", "missing or empty; list at least one kernel, e.g. - name: walk")
	}
	for i, k := range ks {
		path := fmt.Sprintf("kernels[%d]", i)
		if k.Name == "" {
			return s.errf(path+".name", "missing kernel name (known: %s)", strings.Join(kernels.Names(), ", "))
		}
		if _, _, err := kernels.Describe(k.Name); err != nil {
			return s.errf(path+".name", "%v", err)
		}
		for _, prev := range s.Kernels {
			if prev.Name == k.Name {
				return s.errf(path+".name", "kernel %s listed twice; vary its parameters with a grid axis instead", k.Name)
			}
		}
		p := kernels.Params{}
		for name, v := range k.Params {
			if name == "threads" {
				return s.errf(path+".params.threads", "set threads under measure (or with -threads), not as a kernel parameter")
			}
			if !kernelHasParam(k.Name, name) {
				_, docs, _ := kernels.Describe(k.Name)
				known := make([]string, len(docs))
				for j, d := range docs {
					known[j] = d.Name
				}
				return s.errf(path+".params."+name, "kernel %s has no parameter %q (known: %s)", k.Name, name, strings.Join(known, ", "))
			}
			p[name] = canonical(v)
		}
		s.Kernels = append(s.Kernels, KernelSpec{Name: k.Name, Params: p, rawMethods: k.Methods})
	}
	return nil
}

// representative returns k's fixed parameters with every kernel axis of
// axes at its first value, as the kernel would get in a cell.
func (s *Spec) representative(k KernelSpec, axes []Axis) kernels.Params {
	p := kernels.Params{}
	for n, v := range k.Params {
		p[n] = v
	}
	for _, a := range axes {
		if a.Target == KernelAxis && len(a.Values) > 0 && kernelHasParam(k.Name, a.Name) {
			p[a.Name] = a.Values[0]
		}
	}
	return p
}

func (s *Spec) checkKernelAxes(axes []Axis) error {
	for _, k := range s.Kernels {
		base := s.representative(k, axes)
		if _, err := kernels.New(k.Name, base); err != nil {
			return s.kernelParamError(k, axes, err)
		}
		for _, a := range axes {
			if a.Target != KernelAxis || !kernelHasParam(k.Name, a.Name) {
				continue
			}
			for _, v := range a.Values[1:] {
				p := cloneParams(base)
				p[a.Name] = v
				if _, err := kernels.New(k.Name, p); err != nil {
					return s.errf(a.path, "%v", err)
				}
			}
		}
	}
	return nil
}

// kernelParamError places a kernel parameter error at the axis or the fixed
// parameter it came from.
func (s *Spec) kernelParamError(k KernelSpec, axes []Axis, err error) error {
	var pe *kernels.ParamError
	if errors.As(err, &pe) {
		for _, a := range axes {
			if a.Name == pe.Param {
				return s.errf(a.path, "%v", err)
			}
		}
		for i, ks := range s.Kernels {
			if ks.Name == k.Name {
				if _, ok := k.Params[pe.Param]; ok {
					return s.errf(fmt.Sprintf("kernels[%d].params.%s", i, pe.Param), "%v", err)
				}
				return s.errf(fmt.Sprintf("kernels[%d].params", i), "%v", err)
			}
		}
	}
	return s.errf("kernels", "%v", err)
}

// cloneParams returns a copy of p.
func cloneParams(p kernels.Params) kernels.Params {
	q := make(kernels.Params, len(p))
	for k, v := range p {
		q[k] = v
	}
	return q
}

// decodeSettings decodes a measure and a limits block; prefix is "" for the
// spec's own blocks and "profiles.NAME." for a profile's.
func (s *Spec) decodeSettings(prefix string, m *rawMeasure, l *rawLimits) (Override, error) {
	var o Override
	if m != nil {
		for _, f := range []struct {
			name string
			v    *int
			min  int
			dst  **int
		}{
			{"repetitions", m.Repetitions, 1, &o.Repetitions},
			{"warmup", m.Warmup, 0, &o.Warmup},
			{"threads", m.Threads, 1, &o.Threads},
		} {
			if f.v == nil {
				continue
			}
			if *f.v < f.min || *f.v > 1000 {
				return o, s.errf(prefix+"measure."+f.name, "%d out of range [%d, 1000]", *f.v, f.min)
			}
			*f.dst = f.v
		}
		o.Reuse = m.Reuse
	}
	if l != nil {
		if l.Time != nil {
			d, err := parseDuration(*l.Time)
			if err != nil {
				return o, s.errf(prefix+"limits.time", "%v", err)
			}
			o.Time = &d
		}
		if l.Memory != nil {
			b, err := parseBytes(*l.Memory)
			if err != nil {
				return o, s.errf(prefix+"limits.memory", "%v", err)
			}
			o.Memory = &b
		}
	}
	return o, nil
}

// apply sets the measurement settings and limits that o names.
func (o Override) apply(m *Measure, l *Limits) {
	if o.Repetitions != nil {
		m.Repetitions = *o.Repetitions
	}
	if o.Warmup != nil {
		m.Warmup = *o.Warmup
	}
	if o.Threads != nil {
		m.Threads = *o.Threads
	}
	if o.Reuse != nil {
		m.Reuse = *o.Reuse
	}
	if o.Time != nil {
		l.Time = *o.Time
	}
	if o.Memory != nil {
		l.Memory = *o.Memory
	}
}

// merge returns base with the axes of o replaced, keeping base's order.
func (o Override) merge(base []Axis) []Axis {
	out := slices.Clone(base)
	for _, a := range o.Grid {
		for i := range out {
			if out[i].Name == a.Name {
				out[i] = a
			}
		}
	}
	return out
}

// parseDuration accepts Go durations ("90s", "24h") and "none" or "0" for
// no limit.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "none" || s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (e.g. 90s, 10m, 24h, or none)", s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q: must be > 0 (or none for no limit)", s)
	}
	return d, nil
}

// parseBytes accepts a byte count with an optional unit: B, KiB, MiB, GiB,
// TiB, or the decimal kB, MB, GB, TB; "none" or "0" means no limit.
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "none" || s == "0" {
		return 0, nil
	}
	i := strings.IndexFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	units := map[string]float64{"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
		"kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}
	mul, ok := units[unit]
	v, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || num == "" {
		return 0, fmt.Errorf("%q is not a memory size (e.g. 512MiB, 16GiB, or none)", s)
	}
	b := v * mul
	if b < 1<<20 || b > 1<<50 {
		return 0, fmt.Errorf("%q out of range [1MiB, 1PiB]", s)
	}
	return int64(b), nil
}

// nameList is one name or a list of names.
type nameList []string

// UnmarshalYAML accepts a scalar or a sequence of scalars.
func (l *nameList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*l = nameList{n.Value}
		return nil
	case yaml.SequenceNode:
		var names []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: want a data set name", c.Line)}}
			}
			names = append(names, c.Value)
		}
		if len(names) == 0 {
			return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: empty list of data sets", n.Line)}}
		}
		*l = names
		return nil
	}
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: want a data set name or a list of names", n.Line)}}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
