package graph

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DataEnv is the environment variable that points the harness at the data
// sets when they are not in one of the default places. It may hold several
// folders separated by os.PathListSeparator.
const DataEnv = "GKBENCH_DATA"

// DataDirs returns the folders searched for data sets, in order: the entries
// of $GKBENCH_DATA, then "../shared/data" (where the shared data live when a
// command runs from the module root) and "./data" (a local copy), both
// relative to the working directory. It reads the environment on every call
// so that tests and callers can change it.
func DataDirs() []string {
	dirs, _ := dataDirs()
	return dirs
}

// dataDirs returns DataDirs and how many of them come from $GKBENCH_DATA.
func dataDirs() (dirs []string, fromEnv int) {
	for _, d := range filepath.SplitList(os.Getenv(DataEnv)) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	return append(dirs, "../shared/data", "./data"), len(dirs)
}

// FindDataset returns the folder dir/name, for the first dir of DataDirs
// that holds name/name_A.txt. A data set is recognised by its A.txt because
// that is the one file every TU data set has and WriteTU writes last. When
// no folder qualifies, the error lists every place searched and how to fix
// the search path, since a bare "not found" leaves the user guessing where
// the program looked.
func FindDataset(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", fmt.Errorf("find data set: invalid name %q", name)
	}
	dirs, envDirs := dataDirs()
	var tried []string
	for i, d := range dirs {
		cand := filepath.Join(d, name)
		a := tuPath(cand, name, "A")
		st, err := os.Stat(a)
		if err == nil && st.Mode().IsRegular() {
			return cand, nil
		}
		place := a
		if abs, err := filepath.Abs(a); err == nil && abs != a {
			place += " (" + abs + ")"
		}
		if i < envDirs {
			place += " [from " + DataEnv + "]"
		}
		switch {
		case err == nil:
			place += ": not a regular file"
		case errors.Is(err, fs.ErrNotExist):
			place += ": missing"
		default:
			place += ": " + err.Error()
		}
		tried = append(tried, place)
	}
	return "", notFoundError(fmt.Sprintf("data set %s not found; looked for %s in:\n\t%s\n"+
		"set %s to the folder that contains the %s/ folder (several folders may be separated by %q)",
		name, name+"_A.txt", strings.Join(tried, "\n\t"), DataEnv, name, string(os.PathListSeparator)))
}

// notFoundError is a complete, self-explaining message that still matches
// errors.Is(err, fs.ErrNotExist), so callers can tell "missing" from
// "broken" without parsing text.
type notFoundError string

func (e notFoundError) Error() string { return string(e) }

func (e notFoundError) Is(target error) bool { return target == fs.ErrNotExist }

// LoadDataset finds the data set name with FindDataset and reads it, which
// is what commands need to go from a name on the command line to graphs.
func LoadDataset(name string) (*Dataset, error) {
	dir, err := FindDataset(name)
	if err != nil {
		return nil, err
	}
	return ReadTU(dir, name)
}
