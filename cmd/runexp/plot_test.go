package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeResults writes a small results folder: walk length 0..3 on one data
// set, both methods, one repetition.
func writeResults(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "fig-walk-length")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	meta := `{"schema_version": 1, "spec": "fig-walk-length", "profile": "quick", "axes": ["length"],
		"methods": ["explicit", "implicit"], "cells": 4, "repetitions": 1, "status": "complete"}`
	var rows strings.Builder
	for l := 0; l < 4; l++ {
		for _, m := range []string{"explicit", "implicit"} {
			rows.WriteString(`{"cell": "c` + string(rune('0'+l)) + `", "coords": {"length": "` + string(rune('0'+l)) +
				`"}, "method": "` + m + `", "status": "ok", "t_total": ` + string(rune('1'+l)) + `, "kernel": "walk"}` + "\n")
		}
	}
	for name, text := range map[string]string{"meta.json": meta, "cells.jsonl": rows.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestPlotCommand(t *testing.T) {
	dir := writeResults(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"draws", []string{"plot", dir}, 0},
		{"no folder", []string{"plot"}, 2},
		{"bad flag", []string{"plot", "-x", dir}, 2},
		{"missing folder", []string{"plot", filepath.Join(dir, "nope")}, 1},
		{"help", []string{"plot", "-h"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), tc.args, &stdout, &stderr); code != tc.code {
				t.Fatalf("runexp %v: exit %d, want %d; stderr: %s", tc.args, code, tc.code, stderr.String())
			}
		})
	}
	for _, ext := range []string{"png", "svg", "pdf", "md"} {
		if _, err := os.Stat(filepath.Join(dir, "figures", "length_time."+ext)); err != nil {
			t.Errorf("runexp plot wrote no length_time.%s: %v", ext, err)
		}
	}
}
