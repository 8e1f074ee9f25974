package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
)

// cmdStats prints a data set's row of the paper's Table 2.
func cmdStats(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("stats")
	data := fs.String("data", "", "TU data folder, or data set name looked up on the data path")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	ds, err := loadData(*data)
	if err != nil {
		return err
	}
	s := ds.Stats()
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "data set\tgraphs\tclasses\tavg |V|\tavg |E|\tvertex labels\tedge labels\tattributes\t")
	fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.3f\t%d\t%d\t%d\t\n",
		ds.Name, s.Graphs, s.Classes, s.AvgV, s.AvgE, s.VertexLabels, s.EdgeLabels, s.AttrDim)
	return tw.Flush()
}
