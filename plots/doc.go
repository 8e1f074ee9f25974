// Package plots draws the figures of a results folder: running-time contour
// plots over two grid axes with the phase transition between explicit and
// implicit computation, running time by one axis split into the phases of
// each method with the accuracy on a second axis, and the cost figures
// (feature non-zeros, product-graph edges) that explain the times.
//
// Figures come from the results files alone (meta.json, cells.jsonl and
// accuracy.jsonl, as written by package harness); nothing is recomputed.
// Each figure is written as PNG, SVG and PDF into the folder's figures/
// subfolder, next to a Markdown caption that names the cells it was made
// of and those it lacks.
//
// Which figures a folder supports is inferred from its axes: two numeric
// axes with at least three values each give a contour set; one numeric
// axis gives line figures, with one file per value of the categorical axes
// (data set, kernel) and one series per value of the series axes (such as
// the Weisfeiler-Lehman iterations). An optional figures.json in the
// results folder overrides the choice; see FigureSpec.
package plots
