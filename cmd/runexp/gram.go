package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gkbench/gkbench/kernels"
	"gonum.org/v1/gonum/mat"
)

// cmdGram computes one kernel matrix and writes it as text.
func cmdGram(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gram")
	data := fs.String("data", "", "TU data folder, or data set name looked up on the data path")
	kname := fs.String("kernel", "", "kernel name: one of "+strings.Join(kernels.Names(), ", "))
	method := fs.String("method", "explicit", "explicit, implicit, or auto (the faster, predicted from cheap probes)")
	var params paramFlag
	fs.Var(&params, "p", "kernel parameter key=value (repeatable), e.g. -p length=3")
	subset := fs.Int("subset", 0, "use a random subset of this many graphs (0: all)")
	seed := fs.Uint64("seed", 1, "seed of the random subset")
	out := fs.String("o", "", "output file (default: standard output)")
	costsPath := fs.String("costs", "", "costs `file` of runexp calibrate for -method auto (default: $"+costsEnv+", else the user's, else built-in)")
	gcFloor := gcFloorFlag(fs, "the computation, as in run,")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	floor, err := gcFloorBytes(*gcFloor)
	if err != nil {
		return err
	}
	if *kname == "" {
		return usagef("-kernel is required (known: %v)", kernels.Names())
	}
	m, err := kernels.ParseMethod(*method)
	if err != nil {
		return usageError{err}
	}
	auto := m == kernels.Auto
	k, err := kernels.New(*kname, params.p)
	if err != nil {
		return usageError{err}
	}
	if auto && !kernels.Supports(k, m) {
		return usagef("kernel %s cannot choose its method (auto needs both methods and a cost model)", *kname)
	}
	if !kernels.Supports(k, m) {
		return usagef("kernel %s has no %s method", *kname, m)
	}
	if *subset < 0 {
		return usagef("-subset %d: must be ≥ 0", *subset)
	}
	var costs kernels.Costs
	var source string
	if auto {
		if costs, source, err = loadCosts(*costsPath); err != nil {
			return err
		}
	}
	ds, err := loadData(*data)
	if err != nil {
		return err
	}
	if *subset > 0 {
		if *subset > ds.Len() {
			return usagef("-subset %d: data set %s has only %d graphs", *subset, ds.Name, ds.Len())
		}
		if ds, err = ds.RandomSubset(*subset, *seed); err != nil {
			return err
		}
	}
	// A ballast that the collector counts as live, as run's runner holds
	// (see harness.Runner.GCFloor), so that the two time alike.
	ballast := make([]byte, floor)
	defer runtime.KeepAlive(ballast)
	var K *mat.SymDense
	var rep *kernels.Report
	// The crew's helpers are woken before the clock starts and held to
	// the end, as run times its runs (see kernels.Warm and kernels.Hold),
	// so that a matrix on more threads times alike here and there.
	threads := 1
	if s, ok := params.p["threads"]; ok {
		threads, _ = strconv.Atoi(s) // kernels.New has checked it
	}
	// The round trip between the cores, as run records it (harness's
	// t_c2c), before the helpers take the second core.
	c2c := ""
	if threads > 1 {
		if d, ok := kernels.CoreLatency(); ok {
			c2c = fmt.Sprintf(" c2c=%dns", d.Nanoseconds())
		}
	}
	if err := kernels.Warm(ctx, threads); err != nil {
		return err
	}
	release := kernels.Hold(ctx)
	// The report's phase times are CPU time where several threads share
	// a phase, and leave out auto's probes and a switch from one method
	// to the other: the wall time of the call is what the user waited, and
	// the CPU time over it the cores the call had (see harness's t_cpu).
	cpu0, cpuKnown := kernels.ProcessCPU()
	start := time.Now()
	if auto {
		var a *kernels.Advice
		K, rep, a, err = kernels.GramAuto(ctx, k, ds.Graphs, kernels.AdviseOptions{Seed: *seed, Costs: costs})
		if a != nil {
			fmt.Fprintf(stderr, "gram: constants: %s\n", source)
			fmt.Fprintf(stderr, "gram: %v\n", a)
		}
	} else {
		K, rep, err = k.Gram(ctx, ds.Graphs, m)
	}
	wall := time.Since(start)
	cpu1, _ := kernels.ProcessCPU()
	release()
	if err != nil {
		return err
	}
	cores := ""
	if cpuKnown && wall > 0 {
		cores = fmt.Sprintf(" cores=%.2f", (cpu1-cpu0).Seconds()/wall.Seconds())
	}
	fmt.Fprintf(stderr, "gram: %s n=%d kernel=%s wall=%v%s%s %v\n", ds.Name, ds.Len(), *kname, wall, cores, c2c, rep)
	if *out == "" {
		w := bufio.NewWriter(stdout)
		writeMatrix(w, K)
		return w.Flush()
	}
	return writeFileAtomic(*out, func(w *bufio.Writer) { writeMatrix(w, K) })
}

// writeMatrix writes K as n lines of n space-separated numbers, each in the
// shortest form that parses back to the same float64.
func writeMatrix(w *bufio.Writer, K *mat.SymDense) {
	n := K.SymmetricDim()
	var buf []byte
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if j > 0 {
				w.WriteByte(' ')
			}
			buf = strconv.AppendFloat(buf[:0], K.At(i, j), 'g', -1, 64)
			w.Write(buf)
		}
		w.WriteByte('\n')
	}
}

// writeFileAtomic writes a file through a temporary file in the same folder
// and renames it into place, so that readers never see half a file. Where
// path is a symbolic link, the file it names is replaced, not the link. A
// path that names something other than a regular file, such as /dev/null,
// /dev/stdout or a named pipe, is written in place: renamed over, it would
// be replaced by the file, and -o /dev/null, run as root, left a regular
// file of the matrix where the device had been.
func writeFileAtomic(path string, fill func(*bufio.Writer)) (err error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		// A link to a pipe, such as /dev/stdout, may not resolve
		// to a path.
		if target, err := filepath.EvalSymlinks(path); err == nil {
			path = target
		}
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return writeInPlace(path, fill)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriter(f)
	fill(w)
	if err := errors.Join(w.Flush(), f.Sync(), f.Close()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// writeInPlace writes to path, which exists and is not a regular file, as
// it is: a folder fails to open.
func writeInPlace(path string, fill func(*bufio.Writer)) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	w := bufio.NewWriter(f)
	fill(w)
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
