package harness

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Progress follows a run. Begin gets the number of cells and runs to do in
// this invocation (resumed ones excluded); Row is called for every recorded
// row and CellDone after each cell.
type Progress interface {
	Begin(p *Plan, cells, runs int)
	Row(c *Cell, r *Row)
	CellDone(c *Cell)
	End()
}

type nopProgress struct{}

func (nopProgress) Begin(*Plan, int, int) {}
func (nopProgress) Row(*Cell, *Row)       {}
func (nopProgress) CellDone(*Cell)        {}
func (nopProgress) End()                  {}

// cellLabel names a cell by its coordinates, and its kernel when the spec
// has several.
func cellLabel(p *Plan, c *Cell) string {
	parts := make([]string, 0, len(p.Axes)+1)
	for i, a := range p.Axes {
		parts = append(parts, a.Name+"="+c.Coords[i])
	}
	if len(p.Spec.Kernels) > 1 || len(parts) == 0 {
		parts = append(parts, "kernel="+c.Kernel)
	}
	return strings.Join(parts, " ")
}

// LogProgress writes one plain line per recorded row, for logs and CI
// where a progress bar would be noise.
type LogProgress struct {
	W     io.Writer
	p     *Plan
	cells int
	done  int
	start time.Time
}

// Begin implements Progress.
func (l *LogProgress) Begin(p *Plan, cells, runs int) {
	l.p, l.cells, l.start = p, cells, time.Now()
	fmt.Fprintf(l.W, "%s: %d cells, %d runs to do\n", p, cells, runs)
}

// Row implements Progress.
func (l *LogProgress) Row(c *Cell, r *Row) {
	fmt.Fprintf(l.W, "%s cell %d/%d [%s] %s rep %d/%d: %s %.3fs\n",
		time.Now().Format("15:04:05"), l.done+1, l.cells, cellLabel(l.p, c), r.Method, r.Rep,
		l.p.Measure.Repetitions, r.Status, r.Total)
}

// CellDone implements Progress.
func (l *LogProgress) CellDone(*Cell) { l.done++ }

// End implements Progress.
func (l *LogProgress) End() {
	fmt.Fprintf(l.W, "%s: %d/%d cells in %v\n", l.p.Spec.Name, l.done, l.cells, time.Since(l.start).Round(time.Millisecond))
}

// BarProgress draws a progress bar of cells with elapsed time and ETA, for
// a terminal.
type BarProgress struct {
	W   io.Writer
	p   *Plan
	bar *progressbar.ProgressBar
}

// Begin implements Progress.
func (b *BarProgress) Begin(p *Plan, cells, runs int) {
	b.p = p
	b.bar = progressbar.NewOptions(cells,
		progressbar.OptionSetWriter(b.W),
		progressbar.OptionSetDescription(p.Spec.Name),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(b.W) }),
	)
}

// Row implements Progress.
func (b *BarProgress) Row(c *Cell, r *Row) {
	b.bar.Describe(fmt.Sprintf("%s [%s] %s %s", b.p.Spec.Name, cellLabel(b.p, c), r.Method, r.Status))
}

// CellDone implements Progress.
func (b *BarProgress) CellDone(*Cell) { _ = b.bar.Add(1) }

// End implements Progress.
func (b *BarProgress) End() {
	if !b.bar.IsFinished() {
		_ = b.bar.Exit()
		fmt.Fprintln(b.W)
	}
}
