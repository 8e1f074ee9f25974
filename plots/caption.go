package plots

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// caption writes the Markdown caption of a figure: what it shows, and
// which cells made it, which were not ok and which are missing, so that a
// figure can be traced back to its rows.
func caption(r *Results, title, what string, pts []*Point, panel map[string]string, missing []string, notes ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", title, what)
	m := r.Meta
	profile := m.Profile
	if profile == "" {
		profile = "(none)"
	}
	fmt.Fprintf(&b, "- Spec `%s`, profile `%s`, results folder `%s` (run status %q, %d rows in cells.jsonl).\n",
		m.Spec, profile, r.Dir, m.Status, len(r.Rows))
	if len(panel) > 0 {
		fmt.Fprintf(&b, "- This panel: %s.\n", coordText(r, panel))
	}
	var fixed []string
	for _, a := range r.Axes {
		if len(a.Values) == 1 {
			fixed = append(fixed, a.Name+"="+a.Values[0])
		}
	}
	if len(fixed) > 0 {
		fmt.Fprintf(&b, "- Fixed for all cells: %s.\n", strings.Join(fixed, ", "))
	}
	cells := map[string]bool{}
	var methods []string
	reps, okReps := 0, 0
	var notOK []string
	for _, p := range pts {
		cells[coordText(r, p.Coords)] = true
		if !slices.Contains(methods, p.Method) {
			methods = append(methods, p.Method)
		}
		reps += p.Reps
		okReps += p.OK
		if p.Status != "ok" {
			notOK = append(notOK, fmt.Sprintf("%s, %s: %s (%d repetition(s))", coordText(r, p.Coords), p.Method, p.Status, p.Reps))
		}
	}
	fmt.Fprintf(&b, "- Made from %d cell(s) × method(s) %s: %d points, %d runs of which %d ok; "+
		"%d repetition(s) per cell planned (meta.json), each point the median of its ok repetitions.\n",
		len(cells), strings.Join(methods, ", "), len(pts), reps, okReps, m.Repetitions)
	if m.Cells > 0 {
		fmt.Fprintf(&b, "- The whole run plans %d cell(s) per method.\n", m.Cells)
	}
	list := func(name string, xs []string) {
		if len(xs) == 0 {
			fmt.Fprintf(&b, "- %s: none.\n", name)
			return
		}
		fmt.Fprintf(&b, "- %s (%d):\n", name, len(xs))
		for _, x := range xs {
			fmt.Fprintf(&b, "  - %s\n", x)
		}
	}
	list("Not ok (drawn as markers, never interpolated)", notOK)
	list("Missing (no row; drawn as markers, never interpolated)", missing)
	for _, n := range notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	return b.String()
}

// coordText formats coordinates in axis order, e.g. "pv=0.2, d=40".
func coordText(r *Results, coords map[string]string) string {
	var parts []string
	for _, a := range r.Axes {
		if v, ok := coords[a.Name]; ok {
			parts = append(parts, a.Name+"="+v)
		}
	}
	return strings.Join(parts, ", ")
}

// panelText is the panel's coordinates for an error message.
func panelText(panel map[string]string) string {
	if len(panel) == 0 {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(panel)) {
		parts = append(parts, k+"="+panel[k])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// panelTitle is the panel's coordinates for a figure title.
func panelTitle(panel map[string]string) string {
	if len(panel) == 0 {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(panel)) {
		if k == "dataset" || k == kernelAxis {
			parts = append(parts, panel[k])
		} else {
			parts = append(parts, k+" = "+panel[k])
		}
	}
	return ", " + strings.Join(parts, ", ")
}
