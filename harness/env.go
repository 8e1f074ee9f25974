package harness

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// newMeta describes a run of p on this machine, as it starts.
func newMeta(ctx context.Context, p *Plan, sh Shard) *Meta {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	methods := make([]string, len(p.Spec.Methods))
	for i, m := range p.Spec.Methods {
		methods[i] = string(m)
	}
	tl := "none"
	if p.Limits.Time > 0 {
		tl = p.Limits.Time.String()
	}
	return &Meta{
		SchemaVersion: SchemaVersion,
		Spec:          p.Spec.Name,
		SpecFile:      p.Spec.File,
		SpecSHA256:    p.Spec.Hash,
		Profile:       p.Profile,
		Seed:          p.Spec.Seed,
		Axes:          p.AxisNames(),
		Methods:       methods,
		Cells:         len(p.Cells),
		Repetitions:   p.Measure.Repetitions,
		Warmup:        p.Measure.Warmup,
		Threads:       p.Measure.Threads,
		Reuse:         p.Measure.Reuse,
		TimeLimit:     tl,
		MemoryLimit:   p.Limits.Memory,
		Shard:         sh.String(),
		GoVersion:     runtime.Version(),
		CPUModel:      cpuModel(),
		GOMAXPROCS:    runtime.GOMAXPROCS(0),
		Hostname:      host,
		GitCommit:     gitCommit(ctx),
		Started:       time.Now().UTC(),
		Invocations:   1,
		Status:        "running",
	}
}

// cpuModel returns the first "model name" of /proc/cpuinfo, or "unknown"
// where there is none (not Linux, or an ARM kernel that omits it).
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// MachineMemory returns the machine's memory in bytes, MemTotal of
// /proc/meminfo, or 0 where that cannot be read (systems other than
// Linux).
func MachineMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	return memTotal(f)
}

// memTotal parses MemTotal, in kB, from the text of /proc/meminfo; 0 if
// it is missing or malformed.
func memTotal(r io.Reader) int64 {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != "MemTotal" {
			continue
		}
		num, unit, _ := strings.Cut(strings.TrimSpace(v), " ")
		kb, err := strconv.ParseInt(num, 10, 64)
		if err != nil || unit != "kB" || kb <= 0 {
			return 0
		}
		return kb << 10
	}
	return 0
}

// gitCommit returns the commit of the working directory's repository, or
// "unknown" when there is no git, no repository or no commit yet.
func gitCommit(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
