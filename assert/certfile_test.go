//go:build unix

// certfile_test.go: a require_calibration certificate path that names no regular file is an uncalibrated verdict at once, never a hang.

package assert

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCertificateNotRegular: a certificate path naming a FIFO (opening
// one for reading waits for a writer, for ever) or a directory gives an
// uncalibrated soft_fail that says so, within the batch's time; the
// watchdog fails the test in 10 s rather than hanging.
func TestCertificateNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "cert.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	f := newFake(t)
	e := fakeEngine(t, f, nil)
	tr := encoded(t, refund56(t))
	for _, path := range []string{fifo, dir} {
		done := make(chan []Result, 1)
		go func() {
			rs, err := e.EvaluateValue(context.Background(), tr, []Assertion{{ID: "j", Type: "llm_judge",
				Spec: map[string]any{"rubric": "helpfulness", "require_calibration": map[string]any{"certificate": path}}}})
			if err != nil {
				t.Errorf("%s: %v", path, err)
			}
			done <- rs
		}()
		select {
		case rs := <-done:
			if len(rs) != 1 || rs[0].Status != SoftFail || rs[0].Judge == nil || rs[0].Judge.Calibrated == nil || *rs[0].Judge.Calibrated ||
				!strings.Contains(rs[0].Explanation, "not a regular file") {
				t.Errorf("%s: %+v", path, rs)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the judge still waits on its certificate after 10 s", path)
		}
	}
}
