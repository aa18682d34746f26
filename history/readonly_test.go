package history

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// dirFiles lists dir's files with their sizes.
func dirFiles(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]int64{}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = fi.Size()
	}
	return m
}

// TestOpenReadOnly: beside a writer holding the dir, a read-only store sees
// what was recorded (summaries and log tail) with the writer's drift and
// series, changes no file, and refuses Add.
func TestOpenReadOnly(t *testing.T) {
	stream := driftStream(newPRNG("history/readonly/v1"), 3000, 1800)
	dir := t.TempDir()
	w, err := Open(dir, Options{Sync: SyncNever, SegmentBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, r := range stream {
		if err := w.Record(r); err != nil {
			t.Fatal(err)
		}
	}
	before := dirFiles(t, dir)
	r, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatalf("OpenReadOnly beside the writer: %v", err)
	}
	if diff := cmp.Diff(before, dirFiles(t, dir)); diff != "" {
		t.Errorf("OpenReadOnly changed the dir (-before +after):\n%s", diff)
	}
	if !slices.Equal(r.Keys(), w.Keys()) || len(r.Keys()) == 0 {
		t.Fatalf("keys %v, the writer's %v", r.Keys(), w.Keys())
	}
	if got, want := r.summarized(), w.summarized(); got != want {
		t.Errorf("read %d results, the writer holds %d", got, want)
	}
	for _, k := range w.Keys() {
		wd, _ := w.Drift(k, 50)
		rd, ok := r.Drift(k, 50)
		if !ok {
			t.Fatalf("%s: no drift report", k)
		}
		if diff := cmp.Diff(wd, rd); diff != "" {
			t.Errorf("%s: drift (-writer +read-only):\n%s", k, diff)
		}
		ws, _ := w.Series(k)
		rs, _ := r.Series(k)
		if diff := cmp.Diff(ws, rs); diff != "" {
			t.Errorf("%s: series (-writer +read-only):\n%s", k, diff)
		}
	}
	if _, err := r.Add(stream[0]); err != ErrReadOnly {
		t.Errorf("Add: %v, want ErrReadOnly", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := OpenReadOnly(filepath.Join(dir, "missing")); err == nil {
		t.Error("OpenReadOnly of a dir that is not a state dir succeeded")
	}
}
