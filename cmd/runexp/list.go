package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gkbench/gkbench/harness"
)

// cmdList shows the specs of a folder with their grid sizes and estimated
// running times per profile.
func cmdList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("list")
	results := fs.String("results", "results", "results root whose measured times refine the estimates")
	dirs, err := parseInterspersed(fs, args, stderr)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	dir := "experiments"
	switch len(dirs) {
	case 0:
	case 1:
		dir = dirs[0]
	default:
		return usagef("usage: runexp list [DIR] (one folder, default experiments)")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	more, _ := filepath.Glob(filepath.Join(dir, "*.yml"))
	files = append(files, more...)
	slices.Sort(files)
	if len(files) == 0 {
		return usagef("no specs (*.yaml) in %s", dir)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SPEC\tPROFILE\tCELLS\tRUNS\tEST. TIME\tBASIS")
	data := &harness.StdData{}
	bad := 0
	for _, f := range files {
		s, err := harness.LoadSpec(f)
		if err != nil {
			bad++
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\tinvalid: %v\n", filepath.Base(f), err)
			continue
		}
		for _, prof := range harness.Profiles() {
			if !s.Defines(prof) {
				continue
			}
			p, err := s.Plan(prof, 0)
			if err != nil {
				bad++
				fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\tinvalid: %v\n", s.Name, prof, err)
				continue
			}
			rows := priorRows(filepath.Join(*results, s.Name), prof)
			est, err := harness.EstimateCost(ctx, p, data, rows)
			estText, basis := "?", ""
			if err != nil {
				basis = "no estimate: " + err.Error()
			} else {
				estText = "~" + roundDuration(est.Seconds)
				basis = "model (crude estimate)"
				if est.Measured > 0 {
					basis = fmt.Sprintf("measured %d/%d cell methods, model for the rest", est.Measured, est.Total)
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", s.Name, prof, len(p.Cells), p.Runs(), estText, basis)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "times are estimates of one core's wall time, warm-ups included; measured results in the results folder make them better")
	if bad > 0 {
		return usagef("%d specs in %s have errors (run runexp validate for details)", bad, dir)
	}
	return nil
}

// priorRows returns the rows of earlier runs of a spec's profile: the
// folder's own and its shards'.
func priorRows(specDir, profile string) []harness.Row {
	dirs := []string{specDir}
	shards, _ := filepath.Glob(filepath.Join(specDir, "shard-*"))
	var rows []harness.Row
	for _, d := range append(dirs, shards...) {
		m, err := harness.ReadMeta(d)
		if err != nil || m.Profile != profile {
			continue
		}
		rs, _, err := harness.ReadRows(d)
		if err == nil {
			rows = append(rows, rs...)
		}
	}
	return rows
}

// roundDuration formats seconds to two significant units.
func roundDuration(sec float64) string {
	d := time.Duration(sec * float64(time.Second))
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < 48*time.Hour:
		return strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
	}
	return fmt.Sprintf("%.0fd", d.Hours()/24)
}
