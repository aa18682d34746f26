// report_history_test.go: attest-engine report --state-dir DIR --html FILE, in process (golden) and through the binary.

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"attest-engine/reportcmd"
	"attest-engine/watch"

	"github.com/google/go-cmp/cmp"
)

const historyGolden = "testdata/watch/history.golden.html"

// TestReportHistoryGolden: the history page of the state dir a watch run
// over the committed drift input leaves is pinned: two keys, the pass-rate
// alert marked on mentions-refund's trend and listed with its window.
func TestReportHistoryGolden(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	in, err := os.Open(driftTraces)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var errb bytes.Buffer
	if code := watch.Run(context.Background(), []string{"--suite", driftSuite, "--deterministic", "--state-dir", dir, "--log-level", "error"},
		in, io.Discard, &errb); code != 0 {
		t.Fatalf("watch: exit %d: %s", code, errb.String())
	}
	var page bytes.Buffer
	if code := reportcmd.Run(context.Background(), []string{"--state-dir", dir, "--html", "-", "--deterministic"}, nil, &page, &errb); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errb.String())
	}
	if *update {
		if err := os.WriteFile(historyGolden, page.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(historyGolden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), page.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, s := range []string{"2 assertion keys, 1 drift alert.", "<li><pre>traces 1021–1040: pass rate fell from 0.9500", `class="c-alert"`} {
		if !strings.Contains(page.String(), s) {
			t.Errorf("the page lacks %q", s)
		}
	}
}

// TestReportHistoryBinary: the command over the built binary writes the
// golden page to a file, also beside a server holding the state dir's lock
// (the dir is read, not locked, and left as it was); usage errors exit 2, a
// dir that is not a state dir 1.
func TestReportHistoryBinary(t *testing.T) {
	bin := buildEngine(t)
	root := t.TempDir()
	dir := filepath.Join(root, "state")
	if _, code := runWatch(t, bin, nil, nil, "--suite", driftSuite, "--in", driftTraces, "--deterministic", "--state-dir", dir); code != 0 {
		t.Fatalf("watch: exit %d", code)
	}
	want, err := os.ReadFile(historyGolden)
	if err != nil {
		t.Fatal(err)
	}
	e := start(t, bin, "--log-level=warn", "--state-dir", dir) // holds the lock
	e.send(t, initLine)
	e.answer(t)
	before := dirFiles(t, dir)
	page := filepath.Join(root, "history.html")
	if out, err := exec.Command(bin, "report", "--state-dir", dir, "--html", page, "--deterministic").CombinedOutput(); err != nil {
		t.Fatalf("report beside a server: %v: %s", err, out)
	}
	if diff := cmp.Diff(before, dirFiles(t, dir)); diff != "" {
		t.Errorf("report changed the state dir (-before +after):\n%s", diff)
	}
	e.stdin.Close()
	e.wait(t)
	got, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("(-golden +binary):\n%s", diff)
	}
	// without --deterministic the page says when it was generated
	if out, err := exec.Command(bin, "report", "--state-dir", dir, "--html", "-").Output(); err != nil || !strings.Contains(string(out), "generated 20") {
		t.Errorf("report without --deterministic: %v, no generation time", err)
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"report", "--html", page}, 2},
		{[]string{"report", "--state-dir", dir}, 2},
		{[]string{"report", "--state-dir", dir, "--html", page, "extra"}, 2},
		{[]string{"report", "--state-dir", root, "--html", filepath.Join(root, "x.html")}, 1},
		{[]string{"report", "--state-dir", dir, "--html", filepath.Join(page, "under-a-file.html")}, 1}, // a missing parent dir is made; one that is a file cannot be
	} {
		if code := exitCode(exec.Command(bin, tc.args...).Run()); code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.args, code, tc.code)
		}
	}
}

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
