package report

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/csv"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gkbench/gkbench/harness"
)

//go:embed paper/deviations.csv
var deviationsCSV string

// LoadFolders reads every results folder under root that has a meta.json,
// by spec name.
func LoadFolders(root string) (map[string]*Folder, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	out := map[string]*Folder{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		meta, err := harness.ReadMeta(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", dir, err)
		}
		rows, err := readRows(dir)
		if err != nil {
			return nil, err
		}
		acc, _, err := harness.ReadAccuracy(dir)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", dir, err)
		}
		out[meta.Spec] = &Folder{Dir: dir, Meta: meta, Rows: rows, Accuracy: acc}
	}
	return out, nil
}

// block is one element of the report, rendered to Markdown and HTML alike.
type block struct {
	heading int        // 1..3 for a heading, else 0
	text    string     // heading or paragraph text
	table   [][]string // first row is the header
	image   string     // path of a PNG figure
	caption string
	pre     string // preformatted text
}

// Report is the reproduction report: what ran where, the claims checklist,
// Table 3, the accuracies and every figure, beside the paper's values.
type Report struct {
	blocks []block
}

func (r *Report) h(level int, s string) { r.blocks = append(r.blocks, block{heading: level, text: s}) }
func (r *Report) p(s string)            { r.blocks = append(r.blocks, block{text: s}) }
func (r *Report) table(rows [][]string) { r.blocks = append(r.blocks, block{table: rows}) }
func (r *Report) pre(s string)          { r.blocks = append(r.blocks, block{pre: s}) }
func (r *Report) figure(path, cap string) {
	r.blocks = append(r.blocks, block{image: path, caption: cap})
}

// Build compiles the report from the folders under root.
func Build(root string) (*Report, error) {
	folders, err := LoadFolders(root)
	if err != nil {
		return nil, err
	}
	r := &Report{}
	r.h(1, "gkbench reproduction report")
	r.p("Kriege, Neumann, Morris, Kersting, Mutzel: A Unifying View of Explicit and Implicit Feature Maps of Graph Kernels (DMKD 2019), regenerated from the results folders under " + root + ". Every number below is read from those folders; nothing is recomputed.")

	names := make([]string, 0, len(folders))
	for n := range folders {
		names = append(names, n)
	}
	slices.Sort(names)

	r.h(2, "Machine and software")
	rows := [][]string{{"spec", "profile", "status", "rows", "CPU", "GOMAXPROCS", "Go", "commit", "started", "finished"}}
	for _, n := range names {
		m := folders[n].Meta
		rows = append(rows, []string{n, m.Profile, m.Status, fmt.Sprint(m.Rows), m.CPUModel, fmt.Sprint(m.GOMAXPROCS), m.GoVersion,
			short(m.GitCommit), m.Started.Format("2006-01-02 15:04"), m.Finished.Format("2006-01-02 15:04")})
	}
	if len(names) == 0 {
		r.p("No results folders were found.")
	} else {
		r.table(rows)
	}

	r.h(2, "Claims checklist")
	outcomes, err := CheckClaims(folders)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	rows = [][]string{{"claim", "section", "status", "evidence"}}
	for _, o := range outcomes {
		counts[o.Status]++
		rows = append(rows, []string{o.Claim.Sentence, o.Claim.Section, o.Status, o.Evidence})
	}
	r.p(fmt.Sprintf("%d claims of Section 5: %d reproduced, %d not reproduced, %d not run. Each is checked by a rule in report/claims.go on the spec named in report/paper/claims.yaml.",
		len(outcomes), counts[Reproduced], counts[NotReproduced], counts[NotRun]))
	r.table(rows)

	r.h(2, "Table 3")
	if f := folders["table3-discrete"]; f != nil {
		t, err := ReadTable3(f.Dir)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := t.WriteMarkdown(&b); err != nil {
			return nil, err
		}
		r.pre(b.String())
	} else {
		r.p("Not run: no results of the table3-discrete spec.")
	}

	r.h(2, "Accuracy")
	if f := folders["fig-walk-length-mutag-enzymes"]; f != nil && len(f.Accuracy) > 0 {
		rows = [][]string{{"data set", "kernel", "parameters", "accuracy (%)", "paper (%)", "CV"}}
		paper := map[string]string{"MUTAG": "87.3", "ENZYMES": "31.6"}
		for _, a := range f.Accuracy {
			d := a.Coords["dataset"]
			pv := ""
			if a.Kernel == "grw" {
				pv = paper[d]
			}
			acc := a.Status
			if a.Status == harness.StatusOK {
				acc = fmt.Sprintf("%.2f ± %.2f", a.Mean, a.Std)
			}
			rows = append(rows, []string{d, a.Kernel, a.Params, acc, pv, fmt.Sprintf("%d×%d-fold", a.Reps, a.Folds)})
		}
		r.table(rows)
	} else {
		r.p("Not run: no accuracy rows of the fig-walk-length-mutag-enzymes spec.")
	}

	r.h(2, "Attributed graphs: accuracy of Figure 3")
	r.attributedSection(folders["fig-attributed"])

	r.h(2, "Automatic choice of the method")
	r.autoSection(folders)

	r.h(2, "Figures")
	for _, n := range names {
		dir := filepath.Join(folders[n].Dir, "figures")
		pngs, _ := filepath.Glob(filepath.Join(dir, "*.png"))
		if len(pngs) == 0 {
			continue
		}
		r.h(3, n)
		for _, png := range pngs {
			cap, _ := os.ReadFile(strings.TrimSuffix(png, ".png") + ".md")
			r.figure(png, strings.TrimSpace(string(cap)))
		}
	}

	r.h(2, "Known deviations from the paper")
	dv := csv.NewReader(strings.NewReader(deviationsCSV))
	dv.Comment = '#'
	recs, err := dv.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("deviations: %w", err)
	}
	// Data sets replaced by their fallback in this run.
	seen := map[string]bool{}
	for _, n := range names {
		for _, row := range folders[n].Rows {
			for asked, used := range harness.Fallbacks() {
				note := harness.FallbackNote(asked, used)
				if strings.Contains(row.Note, note) && !seen[n+note] {
					seen[n+note] = true
					recs = append(recs, []string{asked + " in " + n, asked, used + " (" + note + ")",
						"The " + asked + " results of this spec are " + used + "'s; " + asked + " is not in the TU Dortmund collection."})
				}
			}
		}
	}
	r.table(recs)
	return r, nil
}

func short(s string) string { return s[:min(len(s), 12)] }

// Markdown renders the report; figure paths are made relative to dir.
func (r *Report) Markdown(dir string) string {
	var b strings.Builder
	cell := func(s string) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
	}
	for _, bl := range r.blocks {
		switch {
		case bl.heading > 0:
			fmt.Fprintf(&b, "%s %s\n\n", strings.Repeat("#", bl.heading), bl.text)
		case bl.table != nil:
			for i, row := range bl.table {
				cells := make([]string, len(row))
				for j, c := range row {
					cells[j] = cell(c)
				}
				b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
				if i == 0 {
					b.WriteString("|" + strings.Repeat("---|", len(row)) + "\n")
				}
			}
			b.WriteString("\n")
		case bl.image != "":
			rel, err := filepath.Rel(dir, bl.image)
			if err != nil {
				rel = bl.image
			}
			fmt.Fprintf(&b, "![%s](%s)\n\n%s\n\n", filepath.Base(bl.image), filepath.ToSlash(rel), bl.caption)
		case bl.pre != "":
			b.WriteString(bl.pre + "\n")
		default:
			b.WriteString(bl.text + "\n\n")
		}
	}
	return b.String()
}

// HTML renders the report as one self-contained page with the figures
// embedded.
func (r *Report) HTML() (string, error) {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gkbench reproduction report</title>\n" +
		"<style>body{font-family:sans-serif;max-width:1200px;margin:auto;padding:1em}table{border-collapse:collapse;margin:1em 0}" +
		"td,th{border:1px solid #bbb;padding:3px 6px;vertical-align:top}img{max-width:100%}pre{white-space:pre-wrap}</style></head><body>\n")
	for _, bl := range r.blocks {
		switch {
		case bl.heading > 0:
			fmt.Fprintf(&b, "<h%d>%s</h%d>\n", bl.heading, html.EscapeString(bl.text), bl.heading)
		case bl.table != nil:
			b.WriteString("<table>\n")
			for i, row := range bl.table {
				tag := "td"
				if i == 0 {
					tag = "th"
				}
				b.WriteString("<tr>")
				for _, c := range row {
					fmt.Fprintf(&b, "<%s>%s</%s>", tag, html.EscapeString(c), tag)
				}
				b.WriteString("</tr>\n")
			}
			b.WriteString("</table>\n")
		case bl.image != "":
			data, err := os.ReadFile(bl.image)
			if err != nil {
				return "", fmt.Errorf("embed %s: %w", bl.image, err)
			}
			fmt.Fprintf(&b, "<figure><img alt=\"%s\" src=\"data:image/png;base64,%s\"><figcaption>%s</figcaption></figure>\n",
				html.EscapeString(filepath.Base(bl.image)), base64.StdEncoding.EncodeToString(data), html.EscapeString(bl.caption))
		case bl.pre != "":
			fmt.Fprintf(&b, "<pre>%s</pre>\n", html.EscapeString(bl.pre))
		default:
			fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(bl.text))
		}
	}
	b.WriteString("</body></html>\n")
	return b.String(), nil
}

// Write builds the report from root and writes path (Markdown) and its HTML
// twin beside it (path with .html), each through a temporary file.
func Write(root, path string) error {
	rep, err := Build(root)
	if err != nil {
		return err
	}
	htmlText, err := rep.HTML()
	if err != nil {
		return err
	}
	twin := strings.TrimSuffix(path, filepath.Ext(path)) + ".html"
	for _, f := range []struct{ path, text string }{{path, rep.Markdown(filepath.Dir(path))}, {twin, htmlText}} {
		if err := writeAtomic(f.path, f.text); err != nil {
			return err
		}
	}
	return nil
}

func writeAtomic(path, text string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := tmp.WriteString(text)
	if err := errors.Join(werr, tmp.Sync(), tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
