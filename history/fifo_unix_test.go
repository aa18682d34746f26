//go:build unix

// fifo_unix_test.go: an alert file that is a named pipe is refused at Open, not written until it blocks the store.

package history

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
				if !strings.Contains(err.Error(), "alert file: "+fifo+" is a named pipe") {
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
