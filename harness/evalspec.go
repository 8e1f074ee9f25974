package harness

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/gkbench/gkbench/kernels"
)

// Evaluation is a spec's accuracy protocol: the nested cross-validation of
// Section 5.1 of the paper, run on the kernel matrix of every cell after
// its timings, and on extra kernels evaluated for accuracy only.
type Evaluation struct {
	// Reps, Folds and InnerFolds shape the nested cross-validation; the
	// paper's protocol is 10 × 10 with an inner 10-fold CV.
	Reps, Folds, InnerFolds int
	// Method is the method whose matrices are evaluated; empty means each
	// cell's first method. With Dirac kernels both methods give the same
	// matrix, with approximate explicit maps they do not.
	Method kernels.Method
	// Select lists kernel parameters chosen inside the cross-validation,
	// with their candidate values, e.g. δ of the hat kernel.
	Select []Axis
	// Extra lists kernels evaluated once per data coordinate for accuracy
	// only, e.g. the geometric random walk kernel beside the walk kernel.
	Extra []ExtraKernel
}

// ExtraKernel is a kernel of the evaluation only.
type ExtraKernel struct {
	Name   string
	Params kernels.Params
	Select []Axis
}

type rawEvaluation struct {
	Reps       *int       `yaml:"reps"`
	Folds      *int       `yaml:"folds"`
	InnerFolds *int       `yaml:"inner_folds"`
	Method     string     `yaml:"method"`
	Select     yaml.Node  `yaml:"select"`
	Extra      []rawExtra `yaml:"extra"`
}

type rawExtra struct {
	Name   string            `yaml:"name"`
	Params map[string]string `yaml:"params"`
	Select yaml.Node         `yaml:"select"`
}

// rawEvalCounts is what a profile may change of the evaluation: the
// counts, and the values of selected parameters.
type rawEvalCounts struct {
	Reps       *int      `yaml:"reps"`
	Folds      *int      `yaml:"folds"`
	InnerFolds *int      `yaml:"inner_folds"`
	Select     yaml.Node `yaml:"select"`
}

// evalCounts sets the counts of e that r names, checking their ranges.
func (s *Spec) evalCounts(path string, r *rawEvalCounts, e *Evaluation) error {
	for _, f := range []struct {
		name string
		v    *int
		min  int
		dst  *int
	}{
		{"reps", r.Reps, 1, &e.Reps},
		{"folds", r.Folds, 2, &e.Folds},
		{"inner_folds", r.InnerFolds, 2, &e.InnerFolds},
	} {
		if f.v == nil {
			continue
		}
		if *f.v < f.min || *f.v > 100 {
			return s.errf(path+"."+f.name, "%d out of range [%d, 100]", *f.v, f.min)
		}
		*f.dst = *f.v
	}
	return nil
}

// decodeSelect reads the map of selected parameters at path; each must be
// a parameter of kernel (or, for name "", of every kernel of the spec).
func (s *Spec) decodeSelect(path string, n *yaml.Node, kernel string) ([]Axis, error) {
	if n.Kind == 0 {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, s.errf(path, "want a mapping of kernel parameters to candidate values")
	}
	var axes []Axis
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		apath := path + "." + k.Value
		if kernel != "" && !kernelHasParam(kernel, k.Value) {
			return nil, s.errf(apath, "kernel %s has no parameter %q to select", kernel, k.Value)
		}
		// A selection for the spec's kernels applies to those with the
		// parameter, like a grid axis: h is selected for GI only.
		if kernel == "" && !slices.ContainsFunc(s.Kernels, func(ks KernelSpec) bool { return kernelHasParam(ks.Name, k.Value) }) {
			return nil, s.errf(apath, "no kernel of the spec has a parameter %q to select", k.Value)
		}
		for _, a := range s.Grid {
			if a.Name == k.Value && kernel == "" {
				return nil, s.errf(apath, "%s is a grid axis; a parameter is either timed along an axis or selected inside the evaluation", k.Value)
			}
		}
		vals, err := s.decodeValues(apath, v)
		if err != nil {
			return nil, err
		}
		axes = append(axes, Axis{Name: k.Value, Target: KernelAxis, Values: vals, path: apath})
	}
	return axes, nil
}

// buildEvaluation decodes and validates the evaluation block.
func (s *Spec) buildEvaluation(raw *rawEvaluation) error {
	e := &Evaluation{Reps: 10, Folds: 10, InnerFolds: 10}
	if err := s.evalCounts("evaluation", &rawEvalCounts{Reps: raw.Reps, Folds: raw.Folds, InnerFolds: raw.InnerFolds}, e); err != nil {
		return err
	}
	if raw.Method != "" {
		m, err := kernels.ParseMethod(raw.Method)
		if err != nil {
			return s.errf("evaluation.method", "%v", err)
		}
		if !slices.Contains(s.Methods, m) {
			return s.errf("evaluation.method", "method %s is not among the spec's methods", m)
		}
		e.Method = m
	}
	var err error
	if e.Select, err = s.decodeSelect("evaluation.select", &raw.Select, ""); err != nil {
		return err
	}
	for _, k := range s.Kernels {
		if err := s.checkCandidates("evaluation.select", k.Name, s.representative(k, s.Grid), selectionOf(k.Name, e.Select)); err != nil {
			return err
		}
	}
	for i, x := range raw.Extra {
		path := fmt.Sprintf("evaluation.extra[%d]", i)
		if _, _, err := kernels.Describe(x.Name); err != nil {
			return s.errf(path+".name", "%v", err)
		}
		ek := ExtraKernel{Name: x.Name, Params: kernels.Params{}}
		for k, v := range x.Params {
			ek.Params[k] = canonical(v)
		}
		if ek.Select, err = s.decodeSelect(path+".select", &x.Select, x.Name); err != nil {
			return err
		}
		if err := s.checkCandidates(path, x.Name, ek.Params, ek.Select); err != nil {
			return err
		}
		e.Extra = append(e.Extra, ek)
	}
	s.Evaluation = e
	return nil
}

// checkCandidates builds kernel with every selected value, the others at
// their first, so that a bad candidate is reported before a run.
func (s *Spec) checkCandidates(path, kernel string, base kernels.Params, sel []Axis) error {
	for _, c := range candidates(base, sel) {
		if _, err := kernels.New(kernel, c); err != nil {
			var pe *kernels.ParamError
			for _, a := range sel {
				if errors.As(err, &pe) && pe.Param == a.Name {
					return s.errf(a.path, "%v", err)
				}
			}
			return s.errf(path, "%v", err)
		}
	}
	return nil
}

// candidates returns base combined with every combination of the selected
// values, in axis order with the last varying fastest.
func candidates(base kernels.Params, sel []Axis) []kernels.Params {
	out := []kernels.Params{cloneParams(base)}
	for _, a := range sel {
		var next []kernels.Params
		for _, p := range out {
			for _, v := range a.Values {
				q := cloneParams(p)
				q[a.Name] = v
				next = append(next, q)
			}
		}
		out = next
	}
	return out
}

// selectionLabel names a candidate by its selected values, e.g.
// "delta=0.2,h=3".
func selectionLabel(p kernels.Params, sel []Axis) string {
	parts := make([]string, len(sel))
	for i, a := range sel {
		parts[i] = a.Name + "=" + p[a.Name]
	}
	return strings.Join(parts, ",")
}

// selectionOf returns the selected parameters that kernel has.
func selectionOf(kernel string, sel []Axis) []Axis {
	var out []Axis
	for _, a := range sel {
		if kernelHasParam(kernel, a.Name) {
			out = append(out, a)
		}
	}
	return out
}

// profileEvaluation returns the spec's evaluation with a profile's counts
// and selected values.
func (s *Spec) profileEvaluation(path string, r *rawEvalCounts) (*Evaluation, error) {
	e := *s.Evaluation
	if err := s.evalCounts(path, r, &e); err != nil {
		return nil, err
	}
	if r.Select.Kind == 0 {
		return &e, nil
	}
	sel, err := s.decodeSelect(path+".select", &r.Select, "")
	if err != nil {
		return nil, err
	}
	e.Select = slices.Clone(e.Select)
	for _, a := range sel {
		i := slices.IndexFunc(e.Select, func(b Axis) bool { return b.Name == a.Name })
		if i < 0 {
			return nil, s.errf(a.path, "not selected by the spec's evaluation; a profile may only change the values")
		}
		e.Select[i].Values = a.Values
	}
	for _, k := range s.Kernels {
		if err := s.checkCandidates(path+".select", k.Name, s.representative(k, s.Grid), selectionOf(k.Name, e.Select)); err != nil {
			return nil, err
		}
	}
	return &e, nil
}
