package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/gkbench/gkbench/kernels"
)

// costsEnv names the environment variable that points to a costs file
// when no -costs flag is given.
const costsEnv = "GKBENCH_COSTS"

// cmdCalibrate measures the cost constants of every kernel whose advisor
// has them and writes them to a costs file.
func cmdCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fset := newFlagSet("calibrate")
	out := fset.String("o", "", "costs file to write (default: gkbench/costs.json in the user's config folder, where gram, advise and run look)")
	quick := fset.Bool("quick", false, "a smaller design, timed once: a few seconds instead of about fifteen, and noisier")
	if err := parseFlags(fset, args, stderr); err != nil {
		return err
	}
	path := *out
	if path == "" {
		p, err := userCostsPath()
		if err != nil {
			return usagef("no user config folder for the costs file (%v); give -o FILE", err)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("create the folder of %s: %w", p, err)
		}
		path = p
	}
	costs := kernels.Costs{}
	for _, name := range kernels.Names() {
		k, err := kernels.New(name, calibrationParams(name))
		if err != nil {
			fmt.Fprintf(stderr, "calibrate: %s skipped: %v\n", name, err)
			continue
		}
		c, ok := k.(kernels.Calibrator)
		if !ok {
			continue
		}
		start := time.Now()
		var got kernels.Costs
		if q, ok := k.(kernels.QuickCalibrator); ok && *quick {
			got, err = q.CalibrateQuick(ctx)
		} else {
			got, err = c.Calibrate(ctx)
		}
		if err != nil {
			return fmt.Errorf("calibrate %s: %w", name, err)
		}
		fmt.Fprintf(stderr, "calibrate: %s: %d constants in %.1f s\n", name, len(got), time.Since(start).Seconds())
		maps.Copy(costs, got)
	}
	if len(costs) == 0 {
		return errors.New("no kernel has cost constants to calibrate")
	}
	host, _ := os.Hostname()
	f := &kernels.CostsFile{
		Host:     host,
		Platform: runtime.GOOS + "/" + runtime.GOARCH,
		Go:       runtime.Version(),
		CPUs:     runtime.NumCPU(),
		Written:  time.Now().UTC().Truncate(time.Second),
		Quick:    *quick,
		Costs:    costs,
	}
	data, err := f.Marshal()
	if err != nil {
		return err
	}
	if err := writeFileAtomic(path, func(w *bufio.Writer) { w.Write(data) }); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(costs)) {
		fmt.Fprintf(stdout, "%-45s %g\n", name, costs[name])
	}
	fmt.Fprintf(stdout, "wrote %s\n", path)
	return nil
}

// calibrationParams returns the parameters a kernel needs to be built for
// calibration: its constants do not depend on them, but some kernels
// cannot be built without their required ones.
func calibrationParams(name string) kernels.Params {
	switch name {
	case "walk":
		return kernels.Params{"length": "1"}
	}
	return nil
}

// userCostsPath returns the costs file in the user's config folder,
// $XDG_CONFIG_HOME/gkbench/costs.json or ~/.config/gkbench/costs.json on
// Linux.
func userCostsPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "gkbench", "costs.json"), nil
}

// loadCosts reads the cost constants for the automatic method's advice
// from the first of: the file of the -costs flag (flagPath), the file
// named by $GKBENCH_COSTS, and the user's costs file if it exists. With
// none of them it returns nil, the kernels' defaults. It also returns a
// description of the source, for the output. A file that was named but
// is missing or malformed is an error naming it.
func loadCosts(flagPath string) (kernels.Costs, string, error) {
	path, from := flagPath, "-costs"
	if path == "" {
		path, from = os.Getenv(costsEnv), "$"+costsEnv
	}
	if path == "" {
		p, err := userCostsPath()
		if err != nil {
			return nil, fmt.Sprintf("built-in defaults (no user config folder: %v)", err), nil
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Sprintf("built-in defaults (no %s; runexp calibrate writes it)", p), nil
		}
		path, from = p, "the user's config folder"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is in the message already
		}
		return nil, "", usagef("costs file %s (from %s): %v", path, from, err)
	}
	f, err := kernels.ParseCostsFile(data)
	if err != nil {
		return nil, "", usagef("costs file %s: %v", path, err)
	}
	src := fmt.Sprintf("costs file %s (from %s", path, from)
	if f.Host != "" {
		src += ", calibrated on " + f.Host
	}
	if !f.Written.IsZero() {
		src += " " + f.Written.Format(time.DateOnly)
	}
	return f.Costs, src + ")", nil
}
