package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/kernels"
)

// newFlagSet returns a flag set that reports errors to the caller instead of
// printing the whole usage: a bad flag is one line and exit status 2.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("runexp "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args; -h prints the flags to stderr and returns
// errHelp, which callers return as a successful exit.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stderr)
		fmt.Fprintf(stderr, "usage of %s:\n", fs.Name())
		fs.PrintDefaults()
		return errHelp
	}
	if err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// errHelp stops a command after -h without an error status.
var errHelp = errors.New("help shown")

// paramFlag collects repeated -p key=value flags into kernel parameters.
type paramFlag struct{ p kernels.Params }

func (f *paramFlag) String() string {
	var parts []string
	for k, v := range f.p {
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}

func (f *paramFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return fmt.Errorf("parameter %q: want key=value", s)
	}
	if f.p == nil {
		f.p = kernels.Params{}
	}
	if _, dup := f.p[k]; dup {
		return fmt.Errorf("parameter %q given twice", k)
	}
	f.p[k] = strings.TrimSpace(v)
	return nil
}

// loadData reads the data set named by -data: a folder holding TU files, or
// the name of a data set found on the search path (GKBENCH_DATA,
// ../shared/data, ./data).
func loadData(spec string) (*graph.Dataset, error) {
	if spec == "" {
		return nil, usagef("-data is required (a TU folder or a data set name such as MUTAG)")
	}
	if st, err := os.Stat(spec); err == nil && st.IsDir() {
		return graph.ReadTUDir(spec)
	}
	if strings.ContainsRune(spec, os.PathSeparator) {
		return nil, fmt.Errorf("data folder %s does not exist", spec)
	}
	return graph.LoadDataset(spec)
}
