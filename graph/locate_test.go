package graph

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestDataDirs(t *testing.T) {
	sep := string(os.PathListSeparator)
	cases := []struct {
		env  string
		want []string
	}{
		// The defaults come after the environment, per the DataDirs contract.
		{"", []string{"../shared/data", "./data"}},
		{"/a", []string{"/a", "../shared/data", "./data"}},
		{"/a" + sep + "/b", []string{"/a", "/b", "../shared/data", "./data"}},
		// Empty list entries (a stray separator) are ignored, not "." .
		{sep + "/a" + sep + sep, []string{"/a", "../shared/data", "./data"}},
	}
	for _, c := range cases {
		t.Setenv(DataEnv, c.env)
		if got := DataDirs(); !slices.Equal(got, c.want) {
			t.Errorf("%s=%q: DataDirs() = %q, want %q", DataEnv, c.env, got, c.want)
		}
	}
}

// writeSet writes the fixture data set "T" into root/T.
func writeSet(t *testing.T, root string) {
	t.Helper()
	if err := WriteTU(filepath.Join(root, "T"), tuFixtureDataset(t)); err != nil {
		t.Fatal(err)
	}
}

func TestFindDatasetEnv(t *testing.T) {
	empty, first, second := t.TempDir(), t.TempDir(), t.TempDir()
	writeSet(t, first)
	writeSet(t, second)
	// A folder named T without T_A.txt must not count as the data set.
	if err := os.Mkdir(filepath.Join(empty, "T"), 0o755); err != nil {
		t.Fatal(err)
	}
	sep := string(os.PathListSeparator)
	cases := []struct {
		env  string
		want string
	}{
		{first, filepath.Join(first, "T")},
		{empty + sep + second, filepath.Join(second, "T")},        // skips a folder without T_A.txt
		{second + sep + first, filepath.Join(second, "T")},        // first match wins
		{"/nonexistent" + sep + first, filepath.Join(first, "T")}, // missing folders are skipped
	}
	for _, c := range cases {
		t.Setenv(DataEnv, c.env)
		got, err := FindDataset("T")
		if err != nil || got != c.want {
			t.Errorf("%s=%q: FindDataset = %q, %v; want %q", DataEnv, c.env, got, err, c.want)
		}
		d, err := LoadDataset("T")
		if err != nil {
			t.Fatal(err)
		}
		if want := tuFixtureDataset(t); !reflect.DeepEqual(d, want) {
			t.Errorf("LoadDataset = %+v, want %+v", d, want)
		}
	}
}

func TestFindDatasetMissing(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(b, "NOPE"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(DataEnv, a+string(os.PathListSeparator)+b)
	_, err := FindDataset("NOPE")
	if err == nil {
		t.Fatal("FindDataset found a data set that does not exist")
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v does not wrap fs.ErrNotExist", err)
	}
	msg := err.Error()
	// Every place of DataDirs, and the fix.
	for _, d := range DataDirs() {
		if p := filepath.Join(d, "NOPE", "NOPE_A.txt"); !strings.Contains(msg, p) {
			t.Errorf("error does not name %s:\n%s", p, msg)
		}
	}
	for _, want := range []string{"data set NOPE not found", "set " + DataEnv, "[from " + DataEnv + "]"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not say %q:\n%s", want, msg)
		}
	}
	// The relative defaults are also shown as absolute paths, since the
	// working directory is often not what the user thinks.
	abs, _ := filepath.Abs(filepath.Join("./data", "NOPE", "NOPE_A.txt"))
	if !strings.Contains(msg, abs) {
		t.Errorf("error does not name %s:\n%s", abs, msg)
	}
	if _, err := LoadDataset("NOPE"); err == nil || err.Error() != msg {
		t.Errorf("LoadDataset error %v, want the FindDataset error", err)
	}
	for _, name := range []string{"", ".", "..", "a/b"} {
		if _, err := FindDataset(name); err == nil || !strings.Contains(err.Error(), "invalid name") {
			t.Errorf("FindDataset(%q) error %v, want invalid name", name, err)
		}
	}
}

// TestLoadDatasetReal loads a real data set through the search path, set up
// the way a user would: pointing GKBENCH_DATA at the shared data folder.
func TestLoadDatasetReal(t *testing.T) {
	dir := realDataSet(t, "MUTAG")
	t.Setenv(DataEnv, filepath.Dir(dir))
	d, err := LoadDataset("MUTAG")
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "MUTAG" || d.Len() != 188 { // 188 graphs: README table
		t.Errorf("LoadDataset(MUTAG): name %q, %d graphs; want MUTAG, 188", d.Name, d.Len())
	}
}
