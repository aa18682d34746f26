//go:build linux

// main_reportpath_test.go: every report writer of the binary, pointed at a device, a FIFO or a symlink: written through, never replaced.

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// reportWriter is a command of the binary that writes a report to path;
// want is what the written bytes start with.
type reportWriter struct {
	name string
	cmd  func(path string) *exec.Cmd
	want string
}

func reportWriters(t *testing.T, bin string) []reportWriter {
	state := filepath.Join(t.TempDir(), "state")
	if _, code := runWatch(t, bin, nil, nil, "--suite", driftSuite, "--in", driftTraces, "--deterministic", "--state-dir", state); code != 0 {
		t.Fatalf("watch --state-dir: exit %d", code)
	}
	content := `{"assertion_id":"c","type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}}`
	session := strings.Join([]string{initLine, batch56("r1", refundMsg, content), `{"jsonrpc":"2.0","id":"bye","method":"shutdown","params":{}}`}, "\n") + "\n"
	return []reportWriter{
		{"eval --output", func(path string) *exec.Cmd {
			return exec.Command(bin, "eval", "--trace", "testdata/cli/refund.json", "--assertions", "testdata/cli/assertions.json",
				"--format", "json", "--deterministic", "--output", path)
		}, `{"format_version":1`},
		{"server --report", func(path string) *exec.Cmd {
			cmd := exec.Command(bin, "--log-level=error", "--report", path)
			cmd.Stdin = strings.NewReader(session)
			return cmd
		}, `{"format_version":1`},
		{"report --html", func(path string) *exec.Cmd {
			return exec.Command(bin, "report", "--state-dir", state, "--html", path, "--deterministic")
		}, "<!DOCTYPE html>"},
		{"diff --output", func(path string) *exec.Cmd {
			return exec.Command(bin, "diff", "--base", "testdata/rundiff/base.jsonl", "--head", "testdata/rundiff/head.jsonl", "--format", "json", "--output", path)
		}, `{"`},
		{"watch --out", func(path string) *exec.Cmd {
			return exec.Command(bin, "watch", "--suite", watchSuite, "--in", watchTraces, "--deterministic", "--out", path)
		}, `{"`},
	}
}

// runWriter runs cmd to its end within 20 s and returns its stdout.
func runWriter(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil && cmd.ProcessState.ExitCode() != 1 { // eval: 1 is a failed assertion; diff: a regression
			t.Fatalf("%v: %v\n%s", cmd.Args, err, errb.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%v did not end in 20 s", cmd.Args)
	}
	if strings.Contains(errb.String(), `"level":"ERROR"`) {
		t.Errorf("%v logged an error: %s", cmd.Args, errb.String())
	}
	return out.String()
}

func lstatKind(t *testing.T, path string) (os.FileMode, uint64) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return fi.Mode().Type(), fi.Sys().(*syscall.Stat_t).Ino
}

// TestBinaryReportPathKinds: each report writer (eval --output, the
// server's --report, report --html, diff --output, watch --out) pointed at a character
// device, a FIFO, a symlink to a file and a symlink to its own stdout (as
// /dev/stdout is): it writes through each as a shell's redirection would,
// and each stays what it was. (A write-then-rename turned the device, as it
// would /dev/null run as root, the FIFO and the links into regular files.)
// The device and FIFO are made in a temporary directory: mknod needs root,
// and the device case is skipped without it.
func TestBinaryReportPathKinds(t *testing.T) {
	bin := buildEngine(t)
	for _, w := range reportWriters(t, bin) {
		ext := ".json"
		if w.name == "report --html" {
			ext = ".html"
		}
		t.Run(w.name+"/char device", func(t *testing.T) {
			dev := filepath.Join(t.TempDir(), "null"+ext)
			if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
				t.Skipf("cannot make a character device (mknod needs root, CAP_MKNOD): %v", err)
			}
			_, ino := lstatKind(t, dev)
			runWriter(t, w.cmd(dev))
			if typ, after := lstatKind(t, dev); typ != os.ModeDevice|os.ModeCharDevice || after != ino {
				t.Errorf("the device was replaced: now %v (inode %d, was %d)", typ, after, ino)
			}
		})
		t.Run(w.name+"/FIFO", func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "pipe"+ext)
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
			got := make(chan string, 1)
			go func() {
				f, err := os.Open(fifo) // the writer's open waits for this one
				if err != nil {
					got <- err.Error()
					return
				}
				defer f.Close()
				b, _ := io.ReadAll(f)
				got <- string(b)
			}()
			runWriter(t, w.cmd(fifo))
			if typ, _ := lstatKind(t, fifo); typ != os.ModeNamedPipe {
				t.Fatalf("the FIFO was replaced: now %v", typ)
			}
			select {
			case s := <-got:
				if !strings.HasPrefix(s, w.want) {
					t.Errorf("the FIFO's reader got %.80q, want the report", s)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the FIFO's reader got nothing in 10 s")
			}
		})
		t.Run(w.name+"/symlink", func(t *testing.T) {
			dir := t.TempDir()
			target, link := filepath.Join(dir, "target"+ext), filepath.Join(dir, "link"+ext)
			if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			runWriter(t, w.cmd(link))
			if typ, _ := lstatKind(t, link); typ != os.ModeSymlink {
				t.Errorf("the link was replaced: now %v", typ)
			}
			if b, _ := os.ReadFile(target); !strings.Contains(string(b), w.want) {
				t.Errorf("the link's target holds %.80q, want the report", b)
			}
		})
		t.Run(w.name+"/stdout", func(t *testing.T) {
			link := filepath.Join(t.TempDir(), "stdout"+ext)
			if err := os.Symlink("/proc/self/fd/1", link); err != nil {
				t.Fatal(err)
			}
			out := runWriter(t, w.cmd(link))
			if typ, _ := lstatKind(t, link); typ != os.ModeSymlink {
				t.Errorf("the link was replaced: now %v", typ)
			}
			if !strings.Contains(out, w.want) {
				t.Errorf("stdout holds %.80q, want the report", out)
			}
		})
	}
}
