//go:build unix

// fifo_unix_test.go: an alert file that is a named pipe is refused at Open, not written until it blocks the store.

package history

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"attest-engine/safedir"
)

// TestAlertFileFIFORefused: Open refuses a state dir whose alerts.ndjson
// (or an Options.AlertFile) is a named pipe. It used to open it read-write
// at once, and with no reader the 65th KiB of alerts blocked Add, holding
// the store's lock, for good.
func TestAlertFileFIFORefused(t *testing.T) {
	tests := []struct {
		name string
		opts func(dir string) (fifo string, o Options)
	}{
		{"the dir's alerts.ndjson", func(dir string) (string, Options) { return filepath.Join(dir, "alerts.ndjson"), Options{} }},
		{"Options.AlertFile", func(dir string) (string, Options) {
			f := filepath.Join(t.TempDir(), "alerts")
			return f, Options{AlertFile: f}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			fifo, opts := tt.opts(dir)
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			opened := make(chan error, 1)
			go func() {
				s, err := Open(dir, opts)
				if err == nil {
					s.Close()
					err = errors.New("<nil>")
				}
				opened <- err
			}()
			select {
			case err := <-opened:
				if !strings.Contains(err.Error(), "alert file: "+fifo+" is a named pipe") && !strings.Contains(err.Error(), "alert file: "+fifo+" is not a regular file (a named pipe?") {
					t.Errorf("Open's error: %v; want the alert file named a named pipe", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Open still waiting after 10s")
			}
			// The dir is released: a store without an alert file opens it.
			s, err := Open(dir, Options{NoAlertFile: true})
			if err != nil {
				t.Fatalf("reopening the dir: %v", err)
			}
			s.Close()
		})
	}
}

// TestStateDirFIFO: a state dir whose summaries file or a log segment is a
// named pipe is an error for Open, OpenReadOnly and Merge, at once. Their
// opens for reading used to wait for a writer, for good.
func TestStateDirFIFO(t *testing.T) {
	tests := []struct {
		name string
		file func(t *testing.T, dir string) string
	}{
		{"summaries", func(t *testing.T, dir string) string { return filepath.Join(dir, snapshotFile) }},
		{"segment", func(t *testing.T, dir string) string {
			segs, err := listSegmentsAt(dir)
			if err != nil || len(segs) == 0 {
				t.Fatalf("segments %v, %v", segs, err)
			}
			return filepath.Join(dir, segName(segs[0]))
		}},
	}
	opens := []struct {
		name string
		open func(dir string) error
	}{
		{"Open", func(dir string) error {
			s, err := Open(dir, Options{NoAlertFile: true})
			if err == nil {
				s.Close()
			}
			return err
		}},
		{"OpenReadOnly", func(dir string) error {
			_, err := OpenReadOnly(dir)
			return err
		}},
		{"Merge", func(dir string) error {
			return Merge(filepath.Join(t.TempDir(), "merged"), dir)
		}},
	}
	for _, tt := range tests {
		for _, o := range opens {
			t.Run(tt.name+"/"+o.name, func(t *testing.T) {
				dir := t.TempDir()
				s, err := Open(dir, Options{NoAlertFile: true})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.Add(crashResult(1)); err != nil {
					t.Fatal(err)
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				fifo := tt.file(t, dir)
				if err := os.Remove(fifo); err != nil {
					t.Fatal(err)
				}
				if err := syscall.Mkfifo(fifo, 0o600); err != nil {
					t.Skip("no FIFOs here:", err)
				}
				done := make(chan error, 1)
				go func() { done <- o.open(dir) }()
				select {
				case err := <-done:
					if !errors.Is(err, safedir.ErrNotRegular) || !strings.Contains(err.Error(), fifo) {
						t.Errorf("error %v; want the named pipe named", err)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("still waiting after 10s") // the goroutine stays blocked in the open
				}
			})
		}
	}
}
