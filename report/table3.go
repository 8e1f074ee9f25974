package report

import (
	_ "embed"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gkbench/gkbench/harness"
)

//go:embed paper/table3.csv
var paperTable3 string

// Time is one entry of a running-time table: seconds, or why there are
// none.
type Time struct {
	// Seconds is the mean time of the runs that finished.
	Seconds float64
	// Status is "ok", "oom", "timeout", "error" or "missing".
	Status string
	// Runs is the number of finished runs averaged; Graphs the data set
	// size they used (0 for the paper's values, which use all graphs).
	Runs, Graphs int
}

// Table3 is Table 3 of the paper with the reproduced times beside the
// paper's: one row per kernel and method, one column per data set.
type Table3 struct {
	Datasets []string
	Rows     []Table3Row
}

// Table3Row is one kernel and method of Table 3.
type Table3Row struct {
	// Kernel is the paper's row name: FLRW_0 … FLRW_9, SP, CSM or GL.
	Kernel, Method string
	Paper, Ours    map[string]Time
}

// PaperTable3 parses the paper's Table 3 from the embedded data file.
func PaperTable3() (*Table3, error) {
	r := csv.NewReader(strings.NewReader(paperTable3))
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("paper table 3: %w", err)
	}
	t := &Table3{Datasets: recs[0][2:]}
	for _, rec := range recs[1:] {
		row := Table3Row{Kernel: rec[0], Method: rec[1], Paper: map[string]Time{}, Ours: map[string]Time{}}
		for i, v := range rec[2:] {
			switch v {
			case "oom", "timeout":
				row.Paper[t.Datasets[i]] = Time{Status: v}
			default:
				x, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return nil, fmt.Errorf("paper table 3: %s %s %s: %w", rec[0], rec[1], t.Datasets[i], err)
				}
				row.Paper[t.Datasets[i]] = Time{Seconds: x, Status: "ok"}
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// paperRowName maps a results row to the paper's row name of Table 3.
func paperRowName(r *harness.Row) (string, bool) {
	switch r.Kernel {
	case "walk":
		l := r.Coords["length"]
		if l == "" {
			l = paramValue(r.Params, "length")
		}
		if l == "" {
			return "", false
		}
		return "FLRW_" + l, true
	case "sp":
		return "SP", true
	case "csm":
		return "CSM", true
	case "graphlet":
		return "GL", true
	}
	return "", false
}

// paramValue returns the value of key in a "k=v,k=v" parameter string.
func paramValue(params, key string) string {
	for _, kv := range strings.FieldsFunc(params, func(r rune) bool { return r == ',' || r == ' ' }) {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// datasetOf returns the data set a results row is about.
func datasetOf(r *harness.Row) string {
	for _, k := range []string{"dataset", "data"} {
		if v := r.Coords[k]; v != "" {
			return v
		}
	}
	name, _, _ := strings.Cut(r.Data, " ")
	name, _, _ = strings.Cut(name, "[")
	return name
}

// ReadTable3 fills the reproduced side of the paper's Table 3 from the
// results folder dir (the table3-discrete spec).
func ReadTable3(dir string) (*Table3, error) {
	t, err := PaperTable3()
	if err != nil {
		return nil, err
	}
	rows, err := readRows(dir)
	if err != nil {
		return nil, err
	}
	type key struct{ kernel, method, data string }
	type agg struct {
		sum              float64
		ok, graphs       int
		timeout, oom, bd int
	}
	acc := map[key]*agg{}
	for i := range rows {
		r := &rows[i]
		name, ok := paperRowName(r)
		if !ok {
			continue
		}
		k := key{name, r.Method, datasetOf(r)}
		a := acc[k]
		if a == nil {
			a = &agg{}
			acc[k] = a
		}
		a.graphs = max(a.graphs, r.Graphs)
		switch {
		case r.Status == harness.StatusOK:
			a.sum += r.Total
			a.ok++
		case r.Status == harness.StatusTimeout:
			a.timeout++
		case r.Status == harness.StatusOOM:
			a.oom++
		default:
			a.bd++
		}
	}
	for i := range t.Rows {
		row := &t.Rows[i]
		for _, d := range t.Datasets {
			a := acc[key{row.Kernel, row.Method, d}]
			switch {
			case a == nil:
				row.Ours[d] = Time{Status: "missing"}
			case a.ok > 0:
				row.Ours[d] = Time{Seconds: a.sum / float64(a.ok), Status: "ok", Runs: a.ok, Graphs: a.graphs}
			case a.oom > 0:
				row.Ours[d] = Time{Status: "oom", Graphs: a.graphs}
			case a.timeout > 0:
				row.Ours[d] = Time{Status: "timeout", Graphs: a.graphs}
			default:
				row.Ours[d] = Time{Status: "error", Graphs: a.graphs}
			}
		}
	}
	return t, nil
}

// FormatSeconds writes a time the way the paper does: seconds with four
// significant digits below a minute, then min/s and h/min/s.
func FormatSeconds(s float64) string {
	switch {
	case s < 60:
		return strconv.FormatFloat(s, 'g', 4, 64)
	case s < 3600:
		m := math.Floor(s / 60)
		return fmt.Sprintf("%.0fmin%.0fs", m, math.Floor(s-60*m))
	}
	h := math.Floor(s / 3600)
	m := math.Floor((s - 3600*h) / 60)
	return fmt.Sprintf("%.0fh%.0fmin%.0fs", h, m, math.Floor(s-3600*h-60*m))
}

func (c Time) String() string {
	switch c.Status {
	case "ok":
		return FormatSeconds(c.Seconds)
	case "oom":
		return "OOM"
	case "timeout":
		return ">limit"
	case "missing":
		return "–"
	}
	return c.Status
}

// ratio returns the explicit/implicit ratio of a kernel row pair for d.
func ratio(expl, impl Time) string {
	if expl.Status != "ok" || impl.Status != "ok" || impl.Seconds == 0 {
		return "–"
	}
	return strconv.FormatFloat(expl.Seconds/impl.Seconds, 'g', 3, 64)
}

// subsetNote says when our runs used fewer graphs than the full data set,
// since such times are not comparable with the paper's.
func (t *Table3) subsetNotes() []string {
	var notes []string
	for _, d := range t.Datasets {
		sizes := map[int]bool{}
		for _, r := range t.Rows {
			if c := r.Ours[d]; c.Graphs > 0 {
				sizes[c.Graphs] = true
			}
		}
		var ns []int
		for n := range sizes {
			ns = append(ns, n)
		}
		slices.Sort(ns)
		if len(ns) > 0 {
			notes = append(notes, fmt.Sprintf("%s: %v graphs", d, ns))
		}
	}
	return notes
}

// pairs lists the kernel rows that have both methods, or are each other's
// counterpart (GL explicit against CSM implicit), for the ratio table.
func (t *Table3) pairs() [][3]string {
	var out [][3]string
	seen := map[string]bool{}
	for _, r := range t.Rows {
		if r.Method != "explicit" || seen[r.Kernel] {
			continue
		}
		seen[r.Kernel] = true
		impl := r.Kernel
		if r.Kernel == "GL" {
			impl = "CSM"
		}
		out = append(out, [3]string{r.Kernel, impl, r.Kernel + " / " + impl})
	}
	return out
}

func (t *Table3) find(kernel, method string) *Table3Row {
	for i := range t.Rows {
		if t.Rows[i].Kernel == kernel && t.Rows[i].Method == method {
			return &t.Rows[i]
		}
	}
	return nil
}

// WriteMarkdown writes the table: every time as "ours (paper)", then the
// explicit/implicit ratios of both.
func (t *Table3) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("Running times to compute the kernel matrix, ours (paper), in seconds unless stated.\n\n")
	b.WriteString("| kernel | method | " + strings.Join(t.Datasets, " | ") + " |\n")
	b.WriteString("|---|---|" + strings.Repeat("---|", len(t.Datasets)) + "\n")
	for _, r := range t.Rows {
		fmt.Fprintf(&b, "| %s | %s |", r.Kernel, r.Method)
		for _, d := range t.Datasets {
			fmt.Fprintf(&b, " %s (%s) |", r.Ours[d], r.Paper[d])
		}
		b.WriteString("\n")
	}
	b.WriteString("\nExplicit / implicit time, ours (paper); below 1 means explicit is faster.\n\n")
	b.WriteString("| ratio | " + strings.Join(t.Datasets, " | ") + " |\n")
	b.WriteString("|---|" + strings.Repeat("---|", len(t.Datasets)) + "\n")
	for _, p := range t.pairs() {
		e, i := t.find(p[0], "explicit"), t.find(p[1], "implicit")
		if e == nil || i == nil {
			continue
		}
		fmt.Fprintf(&b, "| %s |", p[2])
		for _, d := range t.Datasets {
			fmt.Fprintf(&b, " %s (%s) |", ratio(e.Ours[d], i.Ours[d]), ratio(e.Paper[d], i.Paper[d]))
		}
		b.WriteString("\n")
	}
	if notes := t.subsetNotes(); len(notes) > 0 {
		b.WriteString("\nOur data set sizes: " + strings.Join(notes, "; ") +
			". Times on subsets are not comparable with the paper's full data sets. OOM: out of memory; >limit: the cell's time limit was exceeded (the paper's >24h).\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteLaTeX writes the table as a LaTeX tabular in the layout of the
// paper, each cell "ours (paper)".
func (t *Table3) WriteLaTeX(w io.Writer) error {
	var b strings.Builder
	b.WriteString("\\begin{tabular}{@{}ll" + strings.Repeat("c", len(t.Datasets)) + "@{}}\\toprule\n")
	b.WriteString("Kernel & Method")
	for _, d := range t.Datasets {
		b.WriteString(" & \\textsc{" + d + "}")
	}
	b.WriteString(" \\\\\\midrule\n")
	esc := func(s string) string {
		s = strings.ReplaceAll(s, "_", "$_")
		if strings.Contains(s, "$_") {
			s += "$"
		}
		return strings.ReplaceAll(s, ">", "$>$")
	}
	for _, r := range t.Rows {
		fmt.Fprintf(&b, "%s & %s", esc(r.Kernel), r.Method)
		for _, d := range t.Datasets {
			fmt.Fprintf(&b, " & %s (%s)", esc(r.Ours[d].String()), esc(r.Paper[d].String()))
		}
		b.WriteString(" \\\\\n")
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	_, err := io.WriteString(w, b.String())
	return err
}
