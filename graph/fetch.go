package graph

import (
	"archive/zip"
	"bufio"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// dataSums is the table of datasums.txt. It is only ever parsed into fresh
// Sums values, never changed.
//
//go:embed datasums.txt
var dataSums string

// maxZipSize bounds a download. The six recorded TU archives are below
// 10 MB; anything beyond this is a wrong address or a hostile server, and
// must not fill the disk before the checksums could reject it.
const maxZipSize = 256 << 20

// defaultTimeout bounds a whole download when the caller gives no client,
// so that a server that stops sending does not hang the program forever.
const defaultTimeout = 10 * time.Minute

// DefaultBaseURLs returns the download addresses of the TU Dortmund graph
// collection, in the order Fetch tries them: the current host first, then
// the university page the collection moved from, which still mirrors it.
func DefaultBaseURLs() []string {
	return []string{
		"https://www.chrsmrrs.com/graphkerneldatasets",
		"https://ls11-www.cs.tu-dortmund.de/people/morris/graphkerneldatasets",
	}
}

// FileSum is the recorded size and SHA-256 of one file of a data set.
type FileSum struct {
	Size   int64  // in bytes
	SHA256 string // lower-case hex

	// Optional marks documentation (README.txt) that not every archive
	// has: a missing optional file is not an error, a different one is.
	Optional bool
}

// Sums maps a data set name to its files, by base name, and their
// recorded sums.
type Sums map[string]map[string]FileSum

// ErrNoSums is wrapped by the errors for data sets that have no recorded
// sums, so that callers can tell "cannot be verified" from "is broken".
var ErrNoSums = errors.New("no recorded checksums")

// Files returns the recorded files of data set name. For a name without
// sums the error wraps ErrNoSums and says what to do instead.
func (s Sums) Files(name string) (map[string]FileSum, error) {
	if files, ok := s[name]; ok && len(files) > 0 {
		return files, nil
	}
	known := make([]string, 0, len(s))
	for n := range s {
		known = append(known, n)
	}
	slices.Sort(known)
	// U251 gets its own message because the specs name it and users will
	// try it: it was converted for this project and exists nowhere to
	// download in TU form.
	if name == "U251" {
		return nil, fmt.Errorf("%w for U251: it is not part of the TU Dortmund collection "+
			"(it was converted for this project from the NCI GI50 screen, see shared/data/README.md); "+
			"copy the U251 folder from shared/data by hand, or use NCI1, the fallback the specs name", ErrNoSums)
	}
	return nil, fmt.Errorf("%w for data set %q, so a download could not be verified (recorded: %s)",
		ErrNoSums, name, strings.Join(known, ", "))
}

// RecordedSums returns the sums embedded from datasums.txt: those of
// MUTAG, ENZYMES, PROTEINS, SYNTHETICnew, Synthie and NCI1 as recorded in
// shared/data/README.md. Every call returns a new table, so callers may
// change it without affecting others.
func RecordedSums() (Sums, error) {
	s, err := parseSums(strings.NewReader(dataSums))
	if err != nil {
		return nil, fmt.Errorf("embedded datasums.txt: %w", err)
	}
	return s, nil
}

// parseSums reads lines "sha256 bytes NAME/file"; blank lines and lines
// starting with # are comments. README.txt files are optional.
func parseSums(r io.Reader) (Sums, error) {
	s := Sums{}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Fields(text)
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d: %d fields, want 3 (sha256 bytes NAME/file)", line, len(f))
		}
		if b, err := hex.DecodeString(f[0]); err != nil || len(b) != sha256.Size || strings.ToLower(f[0]) != f[0] {
			return nil, fmt.Errorf("line %d: %q is not a lower-case hex SHA-256", line, f[0])
		}
		size, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("line %d: invalid size %q", line, f[1])
		}
		name, file, ok := strings.Cut(f[2], "/")
		if !ok || !validName(name) || !validName(file) {
			return nil, fmt.Errorf("line %d: path %q is not NAME/file", line, f[2])
		}
		if s[name] == nil {
			s[name] = map[string]FileSum{}
		}
		if _, dup := s[name][file]; dup {
			return nil, fmt.Errorf("line %d: %s listed twice", line, f[2])
		}
		s[name][file] = FileSum{Size: size, SHA256: f[0], Optional: file == "README.txt"}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	return s, nil
}

// validName reports whether name can be used as one path element.
func validName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, `/\`)
}

// FileCheck is the outcome of checking one recorded file of a data set.
type FileCheck struct {
	File    string  // base name, e.g. MUTAG_A.txt
	Want    FileSum // the recorded sum
	Got     FileSum // what the file holds; zero if it is missing
	Missing bool

	// Err says why the file does not pass: it differs, is missing and
	// required, or cannot be read. It is nil for a match and for a missing
	// optional file.
	Err error
}

// VerifyDataset checks the files of data set name in dir against sums (the
// recorded sums if nil) and returns one FileCheck per recorded file, sorted
// by file name. The error is non-nil if a required file is missing or any
// file differs; it names each such file with the expected and actual sum.
// Files that are not recorded are ignored, since ReadTU reads only the
// files it knows and extra notes in the folder are harmless.
func VerifyDataset(dir, name string, sums Sums) ([]FileCheck, error) {
	if sums == nil {
		var err error
		if sums, err = RecordedSums(); err != nil {
			return nil, fmt.Errorf("verify %s: %w", name, err)
		}
	}
	files, err := sums.Files(name)
	if err != nil {
		return nil, fmt.Errorf("verify %s: %w", name, err)
	}
	checks, err := verifyFiles(dir, files)
	if err != nil {
		return checks, fmt.Errorf("verify %s in %s: %w", name, dir, err)
	}
	return checks, nil
}

// verifyFiles is VerifyDataset without the context in the error, which
// Fetch adds itself because its folder is only a temporary one.
func verifyFiles(dir string, files map[string]FileSum) ([]FileCheck, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	checks := make([]FileCheck, 0, len(names))
	var bad []string
	for _, n := range names {
		c := checkFile(filepath.Join(dir, n), n, files[n])
		if c.Err != nil {
			bad = append(bad, c.Err.Error())
		}
		checks = append(checks, c)
	}
	if len(bad) > 0 {
		return checks, errors.New(strings.Join(bad, "; "))
	}
	return checks, nil
}

// checkFile hashes the file at p and compares it with want.
func checkFile(p, file string, want FileSum) FileCheck {
	c := FileCheck{File: file, Want: want}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		c.Missing = true
		if !want.Optional {
			c.Err = fmt.Errorf("%s: missing (want sha256 %s, %d bytes)", file, want.SHA256, want.Size)
		}
		return c
	}
	if err != nil {
		c.Err = fmt.Errorf("%s: %w", file, err)
		return c
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		c.Err = fmt.Errorf("%s: %w", file, err)
		return c
	}
	c.Got = FileSum{Size: n, SHA256: hex.EncodeToString(h.Sum(nil)), Optional: want.Optional}
	if c.Got.SHA256 != want.SHA256 || n != want.Size {
		c.Err = fmt.Errorf("%s: sha256 %s (%d bytes), want %s (%d bytes)",
			file, c.Got.SHA256, n, want.SHA256, want.Size)
	}
	return c
}

// FetchOptions configures Fetch and Ensure. The zero value downloads from
// DefaultBaseURLs and checks against RecordedSums.
type FetchOptions struct {
	// BaseURLs are tried in order; NAME.zip is appended to each. Empty
	// means DefaultBaseURLs.
	BaseURLs []string

	// Client makes the requests. Nil means a client with a ten-minute
	// time limit per download.
	Client *http.Client

	// Progress receives one line per step. Nil discards them.
	Progress io.Writer

	// Sums are the files a download must hold. Nil means RecordedSums;
	// tests set it to the sums of small fake data sets.
	Sums Sums
}

// errExists marks a destination that is already taken. Trying another
// address cannot help then.
var errExists = errors.New("already exists")

// Fetch downloads data set name as <base>/<name>.zip from the first of
// opt.BaseURLs that works, unpacks it into dest/name (dest "" means
// "./data") and checks every file against the recorded sums. It returns
// the folder dest/name.
//
// The archive is unpacked into a temporary folder dest/.name.tmp-* that is
// renamed to dest/name only after every file has passed, so that neither a
// failure nor a crash leaves a partial data set where FindDataset would
// pick it up. An existing dest/name is never replaced. Only the recorded
// files are unpacked: editor backups, __MACOSX entries and files the
// record does not know are skipped, and an archive with an entry whose
// path leaves its folder is refused. A data set without recorded sums, such
// as U251, is an error wrapping ErrNoSums.
//
// When an address fails, for any reason other than the cancellation of
// ctx, the next is tried, since the mirrors are independent copies; the
// error then lists every address with its failure.
func Fetch(ctx context.Context, name, dest string, opt FetchOptions) (string, error) {
	if !validName(name) {
		return "", fmt.Errorf("fetch: invalid data set name %q", name)
	}
	sums := opt.Sums
	if sums == nil {
		var err error
		if sums, err = RecordedSums(); err != nil {
			return "", fmt.Errorf("fetch %s: %w", name, err)
		}
	}
	files, err := sums.Files(name)
	if err != nil {
		return "", fmt.Errorf("fetch %s: %w", name, err)
	}
	if dest == "" {
		dest = "./data"
	}
	final := filepath.Join(dest, name)
	if _, err := os.Lstat(final); err == nil {
		return "", fmt.Errorf("fetch %s: %s %w; remove it to download again", name, final, errExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("fetch %s: %w", name, err)
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return "", fmt.Errorf("fetch %s: %w", name, err)
	}
	bases := opt.BaseURLs
	if len(bases) == 0 {
		bases = DefaultBaseURLs()
	}
	client := opt.Client
	if client == nil {
		client = &http.Client{Timeout: defaultTimeout}
	}
	progress := opt.Progress
	if progress == nil {
		progress = io.Discard
	}
	f := fetcher{name: name, dest: dest, final: final, files: files, client: client, progress: progress}
	failed := &fetchError{name: name}
	for _, base := range bases {
		u := strings.TrimRight(base, "/") + "/" + url.PathEscape(name) + ".zip"
		err := f.from(ctx, u)
		if err == nil {
			return final, nil
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("fetch %s from %s: %w", name, u, context.Cause(ctx))
		}
		if errors.Is(err, errExists) {
			return "", fmt.Errorf("fetch %s: %w", name, err)
		}
		fmt.Fprintf(progress, "fetch %s: %s failed: %v\n", name, u, err)
		failed.urls = append(failed.urls, u)
		failed.errs = append(failed.errs, err)
	}
	return "", failed
}

// fetchError lists every address Fetch tried, so that the user can tell a
// moved collection from a local network problem.
type fetchError struct {
	name string
	urls []string
	errs []error
}

func (e *fetchError) Error() string {
	if len(e.urls) == 1 {
		return fmt.Sprintf("fetch %s from %s: %v", e.name, e.urls[0], e.errs[0])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "fetch %s: all %d download addresses failed:", e.name, len(e.urls))
	for i, u := range e.urls {
		fmt.Fprintf(&b, "\n\t%s: %v", u, e.errs[i])
	}
	return b.String()
}

func (e *fetchError) Unwrap() []error { return e.errs }

// fetcher holds what every download attempt of one Fetch shares.
type fetcher struct {
	name, dest, final string
	files             map[string]FileSum
	client            *http.Client
	progress          io.Writer
}

// from downloads, unpacks and verifies the archive at u, and moves the
// result into place. On failure it removes everything it wrote.
func (f *fetcher) from(ctx context.Context, u string) (err error) {
	tmp, err := os.MkdirTemp(f.dest, "."+f.name+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			if rmErr := os.RemoveAll(tmp); rmErr != nil {
				err = fmt.Errorf("%w (and cleaning up: %v)", err, rmErr)
			}
		}
	}()
	fmt.Fprintf(f.progress, "fetch %s: downloading %s\n", f.name, u)
	// The archive lives inside the temporary folder so that one RemoveAll
	// cleans up after any failure.
	zipPath := filepath.Join(tmp, ".download.zip")
	n, err := download(ctx, f.client, u, zipPath)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.progress, "fetch %s: %d bytes, unpacking\n", f.name, n)
	if err := f.unpack(zipPath, tmp); err != nil {
		return err
	}
	if err := os.Remove(zipPath); err != nil {
		return err
	}
	if _, err := verifyFiles(tmp, f.files); err != nil {
		return err
	}
	// MkdirTemp creates a private folder; the data set should be as
	// readable as one made by MkdirAll.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := os.Rename(tmp, f.final); err != nil {
		if _, statErr := os.Lstat(f.final); statErr == nil {
			return fmt.Errorf("%s %w (created while downloading)", f.final, errExists)
		}
		return err
	}
	fmt.Fprintf(f.progress, "fetch %s: %d files verified, saved in %s\n", f.name, len(f.files), f.final)
	return nil
}

// download saves the body of a GET of u in the new file p and returns its
// size.
func download(ctx context.Context, client *http.Client, u, p string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		// The caller names the address already; url.Error would repeat it.
		var ue *url.Error
		if errors.As(err, &ue) {
			return 0, ue.Err
		}
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("HTTP status %s", resp.Status)
	}
	if resp.ContentLength > maxZipSize {
		return 0, fmt.Errorf("archive of %d bytes exceeds the limit of %d", resp.ContentLength, maxZipSize)
	}
	out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(resp.Body, maxZipSize+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, fmt.Errorf("reading the archive: %w", err)
	}
	if n > maxZipSize {
		return n, fmt.Errorf("archive exceeds the limit of %d bytes", maxZipSize)
	}
	return n, nil
}

// unpack writes the recorded files of the archive at zipPath into dir.
func (f *fetcher) unpack(zipPath, dir string) error {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		if zr != nil {
			zr.Close()
		}
		if errors.Is(err, zip.ErrInsecurePath) {
			return fmt.Errorf("archive refused: %w", err)
		}
		return fmt.Errorf("not a valid zip archive: %w", err)
	}
	defer zr.Close()
	// Check every name before writing anything: an archive that tries to
	// escape its folder is hostile or broken, and nothing in it is trusted.
	for _, e := range zr.File {
		if !localZipName(e.Name) {
			return fmt.Errorf("archive refused: entry %q leaves the data set folder", e.Name)
		}
	}
	seen := make(map[string]bool, len(f.files))
	for _, e := range zr.File {
		if e.FileInfo().IsDir() || ignoredZipEntry(e.Name) {
			continue
		}
		// The TU archives hold a folder NAME/; tolerate files at the top
		// level too, since repacked copies sometimes drop the folder.
		clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(e.Name)))
		base, ok := strings.CutPrefix(clean, f.name+"/")
		if !ok {
			base = clean
		}
		want, known := f.files[base]
		if !known || strings.Contains(base, "/") {
			fmt.Fprintf(f.progress, "fetch %s: skipping %s: not a recorded file\n", f.name, e.Name)
			continue
		}
		if seen[base] {
			return fmt.Errorf("archive holds %s twice", base)
		}
		seen[base] = true
		// The header size can be checked before inflating anything, which
		// stops a decompression bomb early; extract enforces it again in
		// case the header lies.
		if e.UncompressedSize64 > uint64(want.Size) {
			return fmt.Errorf("%s: %d bytes in the archive, want %d bytes (sha256 %s)",
				base, e.UncompressedSize64, want.Size, want.SHA256)
		}
		if err := extract(e, filepath.Join(dir, base), want.Size); err != nil {
			return fmt.Errorf("%s: %w", base, err)
		}
	}
	return nil
}

// localZipName reports whether an archive entry name stays inside the
// folder it is unpacked into. Backslashes are refused too because they
// are separators on Windows.
func localZipName(name string) bool {
	return name != "" && !strings.Contains(name, `\`) && filepath.IsLocal(filepath.FromSlash(name))
}

// ignoredZipEntry reports whether an entry is an artefact of the tools that
// made the archive rather than part of the data set: macOS resource forks
// and editor backups such as PROTEINS/README.txt~.
func ignoredZipEntry(name string) bool {
	base := filepath.Base(filepath.FromSlash(name))
	return strings.HasPrefix(name, "__MACOSX/") || strings.HasPrefix(base, "._") ||
		base == ".DS_Store" || strings.HasSuffix(base, "~")
}

// extract writes entry e to the new file p, refusing more than limit bytes.
func extract(e *zip.File, p string, limit int64) error {
	rc, err := e.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, io.LimitReader(rc, limit+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if n > limit {
		return fmt.Errorf("more than the recorded %d bytes", limit)
	}
	return nil
}

// Ensure returns the folder of data set name: the one FindDataset finds,
// or else a fresh download by Fetch into the first $GKBENCH_DATA folder,
// or into ./data when that variable is unset. If both fail, the error
// holds both reasons and still matches fs.ErrNotExist.
func Ensure(ctx context.Context, name string, opt FetchOptions) (string, error) {
	dir, findErr := FindDataset(name)
	if findErr == nil {
		return dir, nil
	}
	if !errors.Is(findErr, fs.ErrNotExist) {
		return "", findErr
	}
	dest := "./data"
	if dirs, fromEnv := dataDirs(); fromEnv > 0 {
		dest = dirs[0]
	}
	if opt.Progress != nil {
		fmt.Fprintf(opt.Progress, "ensure %s: not on the data path, downloading it into %s\n", name, dest)
	}
	dir, err := Fetch(ctx, name, dest, opt)
	if err != nil {
		return "", fmt.Errorf("%w\nand downloading it failed: %w", findErr, err)
	}
	return dir, nil
}
