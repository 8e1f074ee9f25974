package graph

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// fakeReadme is the optional documentation of the fake data set "T".
const fakeReadme = "T: the fixture of tu_test.go\n"

// fakeFiles returns the files of the fake data set "T" by base name: the
// TU fixture of tu_test.go, whose parsed form is tuFixtureDataset, plus a
// README.txt.
func fakeFiles() map[string]string {
	files := map[string]string{"README.txt": fakeReadme}
	for suffix, content := range tuFixture() {
		files["T_"+suffix+".txt"] = content
	}
	return files
}

// fakeSums returns the sums of fakeFiles, computed here so that they are
// right by construction, in the form FetchOptions.Sums takes.
func fakeSums() Sums {
	files := map[string]FileSum{}
	for name, content := range fakeFiles() {
		h := sha256.Sum256([]byte(content))
		files[name] = FileSum{Size: int64(len(content)), SHA256: hex.EncodeToString(h[:]), Optional: name == "README.txt"}
	}
	return Sums{"T": files}
}

type zipEntry struct{ name, body string }

// fakeEntries returns the entries of a well-formed archive of "T", laid
// out like the TU archives: everything inside the folder T/.
func fakeEntries() []zipEntry {
	files := fakeFiles()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	var es []zipEntry
	for _, n := range names {
		es = append(es, zipEntry{"T/" + n, files[n]})
	}
	return es
}

func makeZip(t testing.TB, entries []zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		f, err := w.Create(e.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// zipServer serves body at /T.zip and 404 elsewhere, counting requests so
// that tests can check that Fetch did (or did not) download.
func zipServer(t testing.TB, body []byte) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/T.zip" {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// statusServer answers every request with status code.
func statusServer(t testing.TB, code int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, http.StatusText(code), code)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// deadURL returns the address of a server that is already closed, which
// gives a network error (connection refused) without leaving the machine.
func deadURL(t testing.TB) string {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	return u
}

// listDir returns the names in dir, or nil if it does not exist.
func listDir(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestFetch(t *testing.T) {
	good := fakeEntries()
	with := func(extra ...zipEntry) []zipEntry { return append(slices.Clone(good), extra...) }
	without := func(name string) []zipEntry {
		return slices.DeleteFunc(slices.Clone(good), func(e zipEntry) bool { return e.name == name })
	}
	replace := func(name, body string) []zipEntry {
		es := slices.Clone(good)
		for i := range es {
			if es[i].name == name {
				es[i].body = body
			}
		}
		return es
	}
	a := tuFixture()["A"]
	// One byte changed: the first "1" of the edge list becomes "9".
	corruptA := "9" + a[1:]
	sums := fakeSums()
	sumOf := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

	cases := []struct {
		name    string
		entries []zipEntry
		// wantFiles are the files of dest/T after a success; nil means
		// the fetch must fail and leave dest empty.
		wantFiles []string
		wantErr   []string // substrings of the error
	}{
		{
			name:    "good",
			entries: good,
			// Every file of fakeFiles.
			wantFiles: []string{"README.txt", "T_A.txt", "T_edge_labels.txt", "T_graph_indicator.txt",
				"T_graph_labels.txt", "T_node_attributes.txt", "T_node_labels.txt"},
		},
		{
			name: "artefacts and unknown files skipped",
			// An editor backup as in PROTEINS.zip, macOS metadata, and a
			// file the sums do not record: none may reach dest/T.
			entries: with(zipEntry{"T/README.txt~", "old"}, zipEntry{"__MACOSX/T/._T_A.txt", "x"},
				zipEntry{"T/T_extra.txt", "1\n"}, zipEntry{"T/", ""}),
			wantFiles: []string{"README.txt", "T_A.txt", "T_edge_labels.txt", "T_graph_indicator.txt",
				"T_graph_labels.txt", "T_node_attributes.txt", "T_node_labels.txt"},
		},
		{
			name: "optional README missing",
			// README.txt is Optional in fakeSums, like in datasums.txt.
			entries: without("T/README.txt"),
			wantFiles: []string{"T_A.txt", "T_edge_labels.txt", "T_graph_indicator.txt",
				"T_graph_labels.txt", "T_node_attributes.txt", "T_node_labels.txt"},
		},
		{
			name: "corrupt file",
			// The message names the file, its actual and its expected sum.
			entries: replace("T/T_A.txt", corruptA),
			wantErr: []string{"T_A.txt: sha256 " + sumOf(corruptA), "want " + sums["T"]["T_A.txt"].SHA256},
		},
		{
			name:    "corrupt optional file",
			entries: replace("T/README.txt", "edited\n"),
			wantErr: []string{"README.txt: sha256 " + sumOf("edited\n"), "want " + sums["T"]["README.txt"].SHA256},
		},
		{
			name:    "missing file",
			entries: without("T/T_graph_labels.txt"),
			wantErr: []string{"T_graph_labels.txt: missing", sums["T"]["T_graph_labels.txt"].SHA256},
		},
		{
			name: "too large",
			// The recorded size of T_A.txt is len(a); one more byte is
			// refused from the header, before inflating.
			entries: replace("T/T_A.txt", a+"x"),
			wantErr: []string{"T_A.txt: " + strconv.Itoa(len(a)+1) + " bytes in the archive, want " + strconv.Itoa(len(a))},
		},
		{
			name:    "zip slip",
			entries: with(zipEntry{"T/../../evil.txt", "x"}),
			wantErr: []string{`entry "T/../../evil.txt" leaves the data set folder`},
		},
		{
			name:    "absolute path",
			entries: with(zipEntry{"/tmp/evil.txt", "x"}),
			wantErr: []string{`entry "/tmp/evil.txt" leaves the data set folder`},
		},
		{
			name:    "duplicate entry",
			entries: with(zipEntry{"T/T_A.txt", a}),
			wantErr: []string{"T_A.txt twice"},
		},
		{
			name:    "not a zip",
			entries: nil, // served as a plain text body below
			wantErr: []string{"not a valid zip archive"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := []byte("<html>not found</html>")
			if c.entries != nil {
				body = makeZip(t, c.entries)
			}
			srv, _ := zipServer(t, body)
			root := t.TempDir()
			dest := filepath.Join(root, "data")
			var progress bytes.Buffer
			dir, err := Fetch(context.Background(), "T", dest,
				FetchOptions{BaseURLs: []string{srv.URL}, Client: srv.Client(), Progress: &progress, Sums: fakeSums()})
			if c.wantFiles == nil {
				if err == nil {
					t.Fatalf("Fetch succeeded, want an error with %q", c.wantErr)
				}
				for _, w := range c.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error does not say %q:\n%v", w, err)
					}
				}
				if !strings.Contains(err.Error(), srv.URL+"/T.zip") {
					t.Errorf("error does not name the address:\n%v", err)
				}
				if got := listDir(t, dest); len(got) != 0 {
					t.Errorf("dest holds %q after a failure, want nothing", got)
				}
				if got := listDir(t, root); !slices.Equal(got, []string{"data"}) {
					t.Errorf("%s holds %q, want only data", root, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(dest, "T"); dir != want {
				t.Errorf("Fetch = %q, want %q", dir, want)
			}
			if got := listDir(t, dest); !slices.Equal(got, []string{"T"}) {
				t.Errorf("dest holds %q, want only T (no temporary folder)", got)
			}
			if got := listDir(t, dir); !slices.Equal(got, c.wantFiles) {
				t.Errorf("dest/T holds %q, want %q", got, c.wantFiles)
			}
			st, err := os.Stat(dir)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm()&0o005 != 0o005 {
				t.Errorf("dest/T has mode %v, want it readable by others like a MkdirAll folder", st.Mode())
			}
			d, err := ReadTU(dir, "T")
			if err != nil {
				t.Fatal(err)
			}
			if want := tuFixtureDataset(t); !reflect.DeepEqual(d, want) {
				t.Errorf("ReadTU after Fetch = %+v, want %+v", d, want)
			}
			if !strings.Contains(progress.String(), "saved in "+dir) {
				t.Errorf("progress does not report where the set went:\n%s", progress.String())
			}
		})
	}
}

func TestFetchBaseURLs(t *testing.T) {
	srv, hits := zipServer(t, makeZip(t, fakeEntries()))
	notFound := statusServer(t, http.StatusNotFound)
	broken := statusServer(t, http.StatusInternalServerError)
	dead := deadURL(t)
	cases := []struct {
		name    string
		bases   []string
		ok      bool
		wantErr []string
		hits    int64 // requests that reach srv
	}{
		// The first address answers 404, the second has the archive.
		{"404 then good", []string{notFound.URL, srv.URL + "/"}, true, nil, 1},
		// A refused connection is a network error: the next one is tried.
		{"dead then good", []string{dead, srv.URL}, true, nil, 1},
		{"good first", []string{srv.URL, notFound.URL}, true, nil, 1},
		// srv has no archive under /sub/, so it answers 404 there too.
		{"all fail", []string{notFound.URL, broken.URL, dead, srv.URL + "/sub"}, false, []string{
			"all 4 download addresses failed",
			notFound.URL + "/T.zip: HTTP status 404 Not Found",
			broken.URL + "/T.zip: HTTP status 500 Internal Server Error",
			dead + "/T.zip: ",
			srv.URL + "/sub/T.zip: HTTP status 404",
		}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hits.Store(0)
			dest := t.TempDir()
			dir, err := Fetch(context.Background(), "T", dest,
				FetchOptions{BaseURLs: c.bases, Client: srv.Client(), Sums: fakeSums()})
			if got := hits.Load(); got != c.hits {
				t.Errorf("%d requests reached the archive server, want %d", got, c.hits)
			}
			if c.ok {
				if err != nil {
					t.Fatal(err)
				}
				if _, err := ReadTU(dir, "T"); err != nil {
					t.Error(err)
				}
				return
			}
			if err == nil {
				t.Fatal("Fetch succeeded, want an error")
			}
			for _, w := range c.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q:\n%v", w, err)
				}
			}
			if got := listDir(t, dest); len(got) != 0 {
				t.Errorf("dest holds %q after a failure, want nothing", got)
			}
		})
	}
}

func TestFetchCancel(t *testing.T) {
	reached := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached <- struct{}{}
		// Send the headers and part of a body, then stall, so that the
		// cancellation hits the body copy, not only the request.
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte("PK"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	// A second address that must not be tried after a cancellation.
	second, hits := zipServer(t, makeZip(t, fakeEntries()))

	for _, early := range []bool{true, false} {
		ctx, cancel := context.WithCancel(context.Background())
		if early {
			cancel()
		} else {
			go func() { <-reached; cancel() }()
		}
		dest := t.TempDir()
		_, err := Fetch(ctx, "T", dest,
			FetchOptions{BaseURLs: []string{srv.URL, second.URL}, Client: srv.Client(), Sums: fakeSums()})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("early=%v: error %v, want context.Canceled", early, err)
		}
		if got := listDir(t, dest); len(got) != 0 {
			t.Errorf("early=%v: dest holds %q after cancellation, want nothing", early, got)
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("early=%v: %d requests to the second address after cancellation", early, n)
		}
	}
}

func TestFetchRefusedNames(t *testing.T) {
	srv, hits := zipServer(t, makeZip(t, fakeEntries()))
	recorded, err := RecordedSums()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		sums    Sums
		noSums  bool     // the error must wrap ErrNoSums
		wantErr []string // substrings of the error
	}{
		// U251 is in shared/data but not in the TU collection (README.md,
		// "U251 (converted)"); NCI1 is the fallback the specs name.
		{"U251", recorded, true, []string{"U251", "not part of the TU Dortmund collection", "NCI1"}},
		// Unknown names list the six recorded sets of datasums.txt.
		{"FOO", recorded, true, []string{`"FOO"`, "ENZYMES, MUTAG, NCI1, PROTEINS, SYNTHETICnew, Synthie"}},
		{"T", Sums{}, true, []string{`"T"`}},
		{"", fakeSums(), false, []string{"invalid data set name"}},
		{"..", fakeSums(), false, []string{"invalid data set name"}},
		{"a/T", fakeSums(), false, []string{"invalid data set name"}},
	}
	for _, c := range cases {
		dest := t.TempDir()
		_, err := Fetch(context.Background(), c.name, dest,
			FetchOptions{BaseURLs: []string{srv.URL}, Client: srv.Client(), Sums: c.sums})
		if err == nil {
			t.Errorf("Fetch(%q) succeeded, want an error", c.name)
			continue
		}
		if errors.Is(err, ErrNoSums) != c.noSums {
			t.Errorf("Fetch(%q): errors.Is(%v, ErrNoSums) = %v, want %v", c.name, err, !c.noSums, c.noSums)
		}
		for _, w := range c.wantErr {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Fetch(%q) error does not say %q:\n%v", c.name, w, err)
			}
		}
		if got := listDir(t, dest); len(got) != 0 {
			t.Errorf("Fetch(%q) left %q in dest", c.name, got)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests for names that cannot be verified, want 0", n)
	}
}

func TestFetchExisting(t *testing.T) {
	srv, hits := zipServer(t, makeZip(t, fakeEntries()))
	dest := t.TempDir()
	if err := os.Mkdir(filepath.Join(dest, "T"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Fetch(context.Background(), "T", dest,
		FetchOptions{BaseURLs: []string{srv.URL}, Client: srv.Client(), Sums: fakeSums()})
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("Fetch over an existing folder: error %v, want already exists", err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests although the destination is taken, want 0", n)
	}
}

func TestEnsure(t *testing.T) {
	srv, hits := zipServer(t, makeZip(t, fakeEntries()))
	data := t.TempDir()
	t.Setenv(DataEnv, data+string(os.PathListSeparator)+t.TempDir())
	opt := FetchOptions{BaseURLs: []string{srv.URL}, Client: srv.Client(), Sums: fakeSums()}
	// Into the first $GKBENCH_DATA folder, per the Ensure contract; the
	// second call finds it there and does not download again.
	for i, wantHits := range []int64{1, 1} {
		dir, err := Ensure(context.Background(), "T", opt)
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(data, "T"); dir != want {
			t.Errorf("call %d: Ensure = %q, want %q", i, dir, want)
		}
		if n := hits.Load(); n != wantHits {
			t.Errorf("call %d: %d downloads, want %d", i, n, wantHits)
		}
	}

	// Not found and not downloadable: both reasons, and still "not found".
	_, err := Ensure(context.Background(), "MISSING", opt)
	if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, ErrNoSums) {
		t.Errorf("Ensure(MISSING) error %v, want fs.ErrNotExist and ErrNoSums", err)
	}
	if err != nil && !strings.Contains(err.Error(), "data set MISSING not found") {
		t.Errorf("Ensure(MISSING) error does not carry the FindDataset message:\n%v", err)
	}
}

func TestVerifyDataset(t *testing.T) {
	sums := fakeSums()
	write := func(t *testing.T, files map[string]string) string {
		dir := t.TempDir()
		for n, c := range files {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	edit := func(f func(map[string]string)) map[string]string {
		files := fakeFiles()
		f(files)
		return files
	}
	cases := []struct {
		name    string
		files   map[string]string
		bad     []string // files whose check fails
		missing []string // files reported missing
	}{
		{"all match", fakeFiles(), nil, nil},
		// Extra files are not recorded and not checked.
		{"extra file", edit(func(m map[string]string) { m["notes.txt"] = "x" }), nil, nil},
		{"optional missing", edit(func(m map[string]string) { delete(m, "README.txt") }), nil, []string{"README.txt"}},
		{"required missing", edit(func(m map[string]string) { delete(m, "T_A.txt") }), []string{"T_A.txt"}, []string{"T_A.txt"}},
		{"changed", edit(func(m map[string]string) { m["T_graph_labels.txt"] = "1\n1\n" }), []string{"T_graph_labels.txt"}, nil},
		{"changed optional", edit(func(m map[string]string) { m["README.txt"] = "x" }), []string{"README.txt"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := write(t, c.files)
			checks, err := VerifyDataset(dir, "T", sums)
			if len(checks) != len(sums["T"]) {
				t.Fatalf("%d checks, want one per recorded file (%d)", len(checks), len(sums["T"]))
			}
			var bad, missing []string
			for _, ch := range checks {
				if ch.Want != sums["T"][ch.File] {
					t.Errorf("%s: Want %+v, want the recorded %+v", ch.File, ch.Want, sums["T"][ch.File])
				}
				if ch.Err != nil {
					bad = append(bad, ch.File)
				} else if !ch.Missing && ch.Got.SHA256 != ch.Want.SHA256 {
					t.Errorf("%s passes with sum %s, want %s", ch.File, ch.Got.SHA256, ch.Want.SHA256)
				}
				if ch.Missing {
					missing = append(missing, ch.File)
				}
			}
			if !slices.Equal(bad, c.bad) || !slices.Equal(missing, c.missing) {
				t.Errorf("failing %q, missing %q; want %q, %q", bad, missing, c.bad, c.missing)
			}
			if (err != nil) != (len(c.bad) > 0) {
				t.Errorf("error %v, want one iff files fail", err)
			}
			for _, b := range c.bad {
				if err != nil && !strings.Contains(err.Error(), b) {
					t.Errorf("error does not name %s:\n%v", b, err)
				}
			}
		})
	}
}

func TestParseSums(t *testing.T) {
	const sum = "d9656ca7493f3445d737c711710bb36fd432dddd1c0ea32e1d4713c86ebd28e2" // MUTAG_A.txt, README.md
	cases := []struct {
		in      string
		want    Sums
		wantErr string
	}{
		{"# comment\n\n" + sum + " 76940 MUTAG/MUTAG_A.txt\n" + sum + " 1 MUTAG/README.txt\n",
			Sums{"MUTAG": {"MUTAG_A.txt": {76940, sum, false}, "README.txt": {1, sum, true}}}, ""},
		{sum + " 76940\n", nil, "line 1: 2 fields"},
		{strings.ToUpper(sum) + " 1 A/B\n", nil, "not a lower-case hex SHA-256"},
		{sum[:62] + " 1 A/B\n", nil, "not a lower-case hex SHA-256"},
		{sum + " -1 A/B\n", nil, `invalid size "-1"`},
		{sum + " 1 A\n", nil, `path "A" is not NAME/file`},
		{sum + " 1 A/B/C\n", nil, `path "A/B/C" is not NAME/file`},
		{sum + " 1 ../B\n", nil, `path "../B" is not NAME/file`},
		{sum + " 1 A/B\n" + sum + " 2 A/B\n", nil, "line 2: A/B listed twice"},
	}
	for _, c := range cases {
		got, err := parseSums(strings.NewReader(c.in))
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("parseSums(%q) error %v, want %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseSums(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestSumsRecorded(t *testing.T) {
	s, err := RecordedSums()
	if err != nil {
		t.Fatal(err)
	}
	// File counts: the tables of shared/data/README.md ("Files and SHA-256").
	want := map[string]int{"MUTAG": 6, "ENZYMES": 6, "PROTEINS": 6, "SYNTHETICnew": 4, "Synthie": 5, "NCI1": 5}
	got := map[string]int{}
	for name, files := range s {
		got[name] = len(files)
		for f, sum := range files {
			if sum.Optional != (f == "README.txt") {
				t.Errorf("%s/%s: Optional = %v, want it only for README.txt", name, f, sum.Optional)
			}
			if f != "README.txt" && !strings.HasPrefix(f, name+"_") {
				t.Errorf("%s/%s: not a file of data set %s", name, f, name)
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("recorded files per set %v, want %v", got, want)
	}
	// Each call is independent, so that no caller can change another's.
	s["MUTAG"]["MUTAG_A.txt"] = FileSum{}
	if s2, _ := RecordedSums(); s2["MUTAG"]["MUTAG_A.txt"].Size != 76940 { // README.md
		t.Error("changing one RecordedSums result changed the next")
	}
}

// TestSumsMatchReadme compares the embedded table with the one it was
// copied from, so that a later edit of either is noticed.
func TestSumsMatchReadme(t *testing.T) {
	var readme []byte
	for _, d := range testDataDirs(t) {
		if b, err := os.ReadFile(filepath.Join(d, "README.md")); err == nil {
			readme = b
			break
		}
	}
	if readme == nil {
		t.Skipf("README.md not found in %s", strings.Join(testDataDirs(t), ", "))
	}
	// Rows like "| `MUTAG/MUTAG_A.txt` | 76940 | `d965...` |".
	row := regexp.MustCompile("^\\| `([^`/]+)/([^`/]+)` \\| ([0-9]+) \\| `([0-9a-f]{64})`")
	fromReadme := Sums{}
	sc := bufio.NewScanner(bytes.NewReader(readme))
	for sc.Scan() {
		m := row.FindStringSubmatch(sc.Text())
		if m == nil || m[1] == "U251" { // U251 is not downloadable.
			continue
		}
		size, _ := strconv.ParseInt(m[3], 10, 64)
		if fromReadme[m[1]] == nil {
			fromReadme[m[1]] = map[string]FileSum{}
		}
		fromReadme[m[1]][m[2]] = FileSum{Size: size, SHA256: m[4], Optional: m[2] == "README.txt"}
	}
	s, err := RecordedSums()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, fromReadme) {
		t.Errorf("embedded sums differ from README.md:\nembedded %v\nREADME   %v", s, fromReadme)
	}
}

// TestSumsRealFiles checks the embedded sums against the shared data, the
// files they describe.
func TestSumsRealFiles(t *testing.T) {
	s, err := RecordedSums()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"MUTAG", "ENZYMES", "PROTEINS", "SYNTHETICnew", "Synthie", "NCI1"} {
		t.Run(name, func(t *testing.T) {
			dir := realDataSet(t, name)
			checks, err := VerifyDataset(dir, name, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(checks) != len(s[name]) {
				t.Errorf("%d checks, want %d", len(checks), len(s[name]))
			}
			for _, c := range checks {
				if c.Missing {
					t.Errorf("%s is missing from %s", c.File, dir)
				}
			}
		})
	}
}
