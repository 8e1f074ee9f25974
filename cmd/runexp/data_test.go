package main

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
)

// fakeSet returns the files of a two-vertex, one-edge, one-graph data set
// "T" in TU format, the least ReadTU accepts, plus a README.txt.
func fakeSet() map[string]string {
	return map[string]string{
		"T_A.txt":               "1, 2\n2, 1\n",
		"T_graph_indicator.txt": "1\n1\n",
		"T_graph_labels.txt":    "1\n",
		"README.txt":            "fake\n",
	}
}

// fakeDataSums returns the sums of fakeSet, computed here so that they are
// right by construction.
func fakeDataSums() graph.Sums {
	files := map[string]graph.FileSum{}
	for n, c := range fakeSet() {
		h := sha256.Sum256([]byte(c))
		files[n] = graph.FileSum{Size: int64(len(c)), SHA256: hex.EncodeToString(h[:]), Optional: n == "README.txt"}
	}
	return graph.Sums{"T": files}
}

// fakeServer serves fakeSet as /T.zip, laid out like the TU archives, and
// counts the requests.
func fakeServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for n, c := range fakeSet() {
		f, err := w.Create("T/" + n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/T.zip" {
			http.NotFound(rw, r)
			return
		}
		rw.Write(buf.Bytes())
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// runData runs the data command with env and returns the exit status that
// run would give, and the outputs.
func runData(t *testing.T, env dataEnv, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := env.run(context.Background(), args, &out, &errb)
	code := 0
	if err != nil {
		code = 1
		if _, ok := err.(usageError); ok {
			code = 2
		}
		errb.WriteString(err.Error())
	}
	return code, out.String(), errb.String()
}

// TestDataUsage checks the bad invocations: one line and exit status 2.
func TestDataUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"no subcommand", []string{"data"}, "usage: runexp data fetch"},
		{"unknown subcommand", []string{"data", "get", "MUTAG"}, `unknown data command "get"`},
		{"fetch without names", []string{"data", "fetch"}, "no data set named"},
		{"bad flag", []string{"data", "fetch", "-bogus", "MUTAG"}, "flag provided but not defined: -bogus"},
		{"bad url", []string{"data", "fetch", "-url", "ftp://x", "MUTAG"}, "want http:// or https://"},
		// U251 is not in the TU collection (shared/data/README.md); NCI1
		// is the fallback the specs name.
		{"fetch U251", []string{"data", "fetch", "U251"}, "use NCI1"},
		{"fetch unknown", []string{"data", "fetch", "MUTAG", "Nope"}, `no recorded checksums for data set "Nope"`},
		{"verify unknown", []string{"data", "verify", "Nope"}, `no recorded checksums for data set "Nope"`},
	}
	for _, tc := range tests {
		code, stdout, stderr := runCmd(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", tc.name, code, stderr, tc.msg)
		}
		if strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stdout != "" {
			t.Errorf("%s: stdout %q, stderr %q; want one line on stderr only", tc.name, stdout, stderr)
		}
	}
	if code, _, stderr := runCmd(t, "data", "help"); code != 0 || !strings.Contains(stderr, "runexp data verify") {
		t.Errorf("data help: exit %d, stderr %q; want 0 and the usage", code, stderr)
	}
}

func TestDataFetch(t *testing.T) {
	srv, hits := fakeServer(t)
	env := dataEnv{sums: fakeDataSums(), client: srv.Client()}
	dir := filepath.Join(t.TempDir(), "data")
	fetch := []string{"fetch", "-dir", dir, "-url", srv.URL, "T"}
	steps := []struct {
		name   string
		before func(t *testing.T)
		args   []string
		code   int
		stdout string // substring
		stderr string // substring
		hits   int64  // requests so far
	}{
		{"first fetch", nil, fetch, 0, "fetched " + filepath.Join(dir, "T"), "saved in", 1},
		// Present and intact: no second download.
		{"again", nil, fetch, 0, "present " + filepath.Join(dir, "T"), "present and verified, skipped", 1},
		{"name twice", nil, append(fetch, "T"), 0, "present", "skipped", 1},
		{"present but changed", func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, "T", "T_graph_labels.txt"), []byte("2\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, fetch, 1, "", "differs from the recorded sums; remove it to download again", 1},
		{"404", func(t *testing.T) {
			if err := os.RemoveAll(filepath.Join(dir, "T")); err != nil {
				t.Fatal(err)
			}
		}, []string{"fetch", "-dir", dir, "-url", srv.URL + "/nothing", "T"}, 1, "", "HTTP status 404", 2},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before(t)
		}
		code, stdout, stderr := runData(t, env, s.args...)
		if code != s.code || !strings.Contains(stdout, s.stdout) || !strings.Contains(stderr, s.stderr) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d, %q and %q",
				s.name, code, stdout, stderr, s.code, s.stdout, s.stderr)
		}
		if n := hits.Load(); n != s.hits {
			t.Errorf("%s: %d requests so far, want %d", s.name, n, s.hits)
		}
	}
	if got, _ := os.ReadDir(dir); len(got) != 0 {
		t.Errorf("%s holds %d entries after the failed fetch, want none", dir, len(got))
	}
}

func TestDataVerify(t *testing.T) {
	data := t.TempDir()
	t.Setenv(graph.DataEnv, data)
	set := filepath.Join(data, "T")
	if err := os.Mkdir(set, 0o755); err != nil {
		t.Fatal(err)
	}
	for n, c := range fakeSet() {
		if n == "README.txt" {
			continue // optional: reported as absent, not as an error
		}
		if err := os.WriteFile(filepath.Join(set, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sums := fakeDataSums()
	// U is recorded but nowhere on the data path.
	sums["U"] = map[string]graph.FileSum{"U_A.txt": {Size: 1, SHA256: strings.Repeat("0", 64)}}
	env := dataEnv{sums: sums}

	code, stdout, stderr := runData(t, env, "verify", "T")
	// One line per recorded file of fakeSet, sorted by name.
	want := "absent   " + filepath.Join(set, "README.txt") + " (optional)\n" +
		"OK       " + filepath.Join(set, "T_A.txt") + "\n" +
		"OK       " + filepath.Join(set, "T_graph_indicator.txt") + "\n" +
		"OK       " + filepath.Join(set, "T_graph_labels.txt") + "\n"
	if code != 0 || stdout != want {
		t.Errorf("verify T: exit %d, stdout\n%s\nwant exit 0 and\n%s\nstderr: %s", code, stdout, want, stderr)
	}

	// Without names, a recorded set that is absent is skipped.
	code, stdout, stderr = runData(t, env, "verify")
	if code != 0 || stdout != want || !strings.Contains(stderr, "data verify U: not on the data path, skipped") {
		t.Errorf("verify: exit %d, stdout %q, stderr %q; want exit 0, T's lines and U skipped", code, stdout, stderr)
	}
	// Named, it is a failure.
	if code, _, stderr = runData(t, env, "verify", "U"); code != 1 || !strings.Contains(stderr, "data set U not found") {
		t.Errorf("verify U: exit %d, stderr %q; want exit 1 and not found", code, stderr)
	}

	// One byte changed: "1\n" becomes "2\n".
	if err := os.WriteFile(filepath.Join(set, "T_graph_labels.txt"), []byte("2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256([]byte("2\n"))
	code, stdout, stderr = runData(t, env, "verify", "T")
	wantLine := "MISMATCH " + filepath.Join(set, "T_graph_labels.txt") + ": sha256 " + hex.EncodeToString(h[:]) +
		" (2 bytes), want " + sums["T"]["T_graph_labels.txt"].SHA256 + " (2 bytes)\n"
	if code != 1 || !strings.Contains(stdout, wantLine) || !strings.Contains(stderr, "1 of 4 files differ") {
		t.Errorf("verify T after a change: exit %d, stdout\n%s\nstderr %q; want exit 1 and\n%s", code, stdout, stderr, wantLine)
	}

	// Not T_A.txt: without it FindDataset does not see the set at all.
	if err := os.Remove(filepath.Join(set, "T_graph_indicator.txt")); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = runData(t, env, "verify", "T")
	if code != 1 || !strings.Contains(stdout, "MISSING  "+filepath.Join(set, "T_graph_indicator.txt")) {
		t.Errorf("verify T without T_graph_indicator.txt: exit %d, stdout\n%s\nwant exit 1 and a MISSING line", code, stdout)
	}

	// Nothing recorded is on the data path.
	t.Setenv(graph.DataEnv, t.TempDir())
	if code, _, stderr = runData(t, env, "verify"); code != 1 || !strings.Contains(stderr, "none of the recorded data sets") {
		t.Errorf("verify with no data: exit %d, stderr %q; want exit 1 and none found", code, stderr)
	}
}

// TestDataVerifyReal runs 'runexp data verify' on the shared data with the
// embedded sums, the way a user checks a machine.
func TestDataVerifyReal(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			t.Fatal("go.mod not found above the test folder")
		}
		root = parent
	}
	data := filepath.Join(root, "..", "shared", "data")
	if _, err := os.Stat(filepath.Join(data, "MUTAG", "MUTAG_A.txt")); err != nil {
		t.Skipf("shared data not found: %v", err)
	}
	t.Setenv(graph.DataEnv, data)
	code, stdout, stderr := runCmd(t, "data", "verify")
	// 32 files: the rows of graph/datasums.txt, all present in shared/data.
	n := 0
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "OK ") {
			n++
		}
	}
	if code != 0 || n != 32 {
		t.Errorf("data verify: exit %d, %d OK lines; want 0 and 32\nstdout:\n%s\nstderr:\n%s", code, n, stdout, stderr)
	}
}

// TestDataEnsure checks that ensure uses a set on the data path as it is
// and replaces U251, which the TU collection lacks, by NCI1.
func TestDataEnsure(t *testing.T) {
	dir := graphtest.DataDir()
	if dir == "" {
		t.Skip("no data folder")
	}
	only := t.TempDir()
	for _, n := range []string{"MUTAG", "NCI1"} {
		if err := os.Symlink(filepath.Join(dir, n), filepath.Join(only, n)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GKBENCH_DATA", only)
	t.Chdir(t.TempDir())
	code, stdout, stderr := runCmd(t, "data", "ensure", "MUTAG", "U251")
	// Both found on the path, U251 through its fallback NCI1; nothing
	// is downloaded.
	if code != 0 || !strings.Contains(stdout, "found "+filepath.Join(only, "MUTAG")) ||
		!strings.Contains(stdout, "found "+filepath.Join(only, "NCI1")) || !strings.Contains(stderr, "use NCI1 instead") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}
