//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gkbench/gkbench/graph/graphtest"
)

// TestGramOutputNotRegular checks that -o writes a path that is not a
// regular file in place: a named pipe stays a pipe and its reader gets
// the matrix that standard output gets, where renaming the temporary
// file over it had replaced it (and, as root, /dev/null with a regular
// file); a link stays a link to the file that now holds the matrix; a
// folder is an error that names it.
func TestGramOutputNotRegular(t *testing.T) {
	graphtest.Dataset(t, "MUTAG")
	args := []string{"gram", "-data", filepath.Join(graphtest.DataDir(), "MUTAG"), "-kernel", "walk", "-method", "implicit", "-p", "length=1", "-subset", "6"}
	code, want, stderr := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("to standard output: exit %d: %s", code, stderr)
	}

	t.Run("pipe", func(t *testing.T) {
		pipe := filepath.Join(t.TempDir(), "matrix")
		if err := syscall.Mkfifo(pipe, 0o600); err != nil {
			t.Skipf("no named pipe: %v", err)
		}
		got := make(chan string, 1)
		go func() {
			f, err := os.Open(pipe) // blocks until the writer opens it
			if err != nil {
				got <- "open: " + err.Error()
				return
			}
			defer f.Close()
			b, err := io.ReadAll(f)
			if err != nil {
				got <- "read: " + err.Error()
				return
			}
			got <- string(b)
		}()
		code, _, stderr := runCmd(t, append(args, "-o", pipe)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		fi, err := os.Lstat(pipe)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("%s is now %v, want the named pipe it was", pipe, fi.Mode())
		}
		if s := <-got; s != want {
			t.Errorf("the pipe's reader got %q, want the matrix on standard output, %q", s, want)
		}
	})

	t.Run("link", func(t *testing.T) {
		dir := t.TempDir()
		file, link := filepath.Join(dir, "file"), filepath.Join(dir, "link")
		if err := os.WriteFile(file, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(file, link); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCmd(t, append(args, "-o", link)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a link: %v, %v", link, fi.Mode(), err)
		}
		if b, err := os.ReadFile(file); err != nil || string(b) != want {
			t.Errorf("the linked file holds %q (%v), want the matrix on standard output", b, err)
		}
	})

	t.Run("folder", func(t *testing.T) {
		dir := t.TempDir()
		code, _, stderr := runCmd(t, append(args, "-o", dir)...)
		// Above it, gram's line of timings.
		if last := lastLine(stderr); code == 0 || !strings.HasPrefix(last, "runexp gram: write "+dir+":") {
			t.Errorf("exit %d, last line of stderr %q: want a failure naming %s", code, last, dir)
		}
	})
}
