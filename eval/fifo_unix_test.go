//go:build unix

// fifo_unix_test.go: a FIFO named by --trace, --assertions or --output with no other end: a signal ends the wait.

package eval

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fifoArgs is a run over the CLI testdata with flag's file replaced by (or,
// for --output, given as) path.
func fifoArgs(flag, path string) []string {
	args := []string{"--trace", filepath.Join(cliDir, "traces.ndjson"), "--assertions", filepath.Join(cliDir, "assertions.json"), "--format", "json", "--deterministic"}
	for i := range args {
		if args[i] == flag {
			args[i+1] = path
			return args
		}
	}
	return append(args, flag, path)
}

func mkfifo(t *testing.T) string {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	return fifo
}

// TestFIFOWaitEnds: a FIFO given as --trace or --assertions with no writer,
// or as --output with no reader, makes the open wait; a signal (the
// context) still ends the command, exit 2 with an error naming the flag,
// as the watch command does, instead of hanging (--trace, --assertions) or
// writing the report into a pipe nobody reads (--output).
func TestFIFOWaitEnds(t *testing.T) {
	for _, flag := range []string{"--trace", "--assertions", "--output"} {
		t.Run(flag, func(t *testing.T) {
			fifo := mkfifo(t)
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			done := make(chan int, 1)
			var out, errb bytes.Buffer
			go func() { done <- Run(ctx, fifoArgs(flag, fifo), strings.NewReader(""), &out, &errb) }()
			select {
			case code := <-done:
				if want := "attest-engine eval: " + flag + ": open " + fifo + ": stopped while waiting for the other end of the pipe\n"; code != 2 || errb.String() != want {
					t.Errorf("exit %d, stderr %q; want 2 and %q", code, errb.String(), want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("still waiting at the open after the context ended")
			}
		})
	}
}

// TestFIFOOtherEnd: with the other end there, a FIFO is read or written as
// a file is: the same report.
func TestFIFOOtherEnd(t *testing.T) {
	run := func(args []string) (int, string) {
		var out, errb bytes.Buffer
		code := Run(context.Background(), args, strings.NewReader(""), &out, &errb)
		return code, out.String()
	}
	wantCode, want := run(fifoArgs("--format", "json")) // the run from files
	for _, flag := range []string{"--trace", "--assertions", "--output"} {
		t.Run(flag, func(t *testing.T) {
			fifo := mkfifo(t)
			other := make(chan string, 1)
			go func() {
				if flag == "--output" { // a reader
					f, err := os.Open(fifo)
					if err != nil {
						other <- err.Error()
						return
					}
					defer f.Close()
					b, _ := io.ReadAll(f)
					other <- string(b)
					return
				}
				f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					other <- err.Error()
					return
				}
				src := map[string]string{"--trace": "traces.ndjson", "--assertions": "assertions.json"}[flag]
				b, _ := os.ReadFile(filepath.Join(cliDir, src))
				f.Write(b)
				f.Close()
				other <- ""
			}()
			code, got := run(fifoArgs(flag, fifo))
			if flag == "--output" {
				got = <-other
			} else {
				<-other
			}
			if code != wantCode || got != want {
				t.Errorf("exit %d, report %.200q; want exit %d and the report of the same run from files, %.200q", code, got, wantCode, want)
			}
		})
	}
}
