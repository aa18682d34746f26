package history

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRestartKeepsAlarms: a writer stopped and restarted at any point
// raises the alerts of one uninterrupted run: no alert repeated after the
// restart, none lost.
func TestRestartKeepsAlarms(t *testing.T) {
	stream := driftStream(newPRNG("history/merge-drift/v1"), 3000, 1800)
	want := record(t, t.TempDir(), stream)
	for _, cut := range []int{1, 3000, 5400, 5700, 6000, 8999} {
		dir := t.TempDir()
		got := record(t, dir, stream[:cut])
		got = append(got, record(t, dir, stream[cut:])...)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("restart after %d results: alerts (-one run +restarted):\n%s", cut, d)
		}
	}
}

// TestConcurrentRecord: Record is safe from many goroutines (run with -race).
func TestConcurrentRecord(t *testing.T) {
	s, err := Open(t.TempDir(), Options{Sync: SyncNever, NoAlertFile: true, SegmentBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				if err := s.Record(crashResult(g*500 + i)); err != nil {
					t.Error(err)
					return
				}
				s.Drift("assertion-1", 50)
			}
		}()
	}
	wg.Wait()
	if got := s.summarized(); got != 2000 {
		t.Errorf("%d results summarized, want 2000", got)
	}
	s.Close()
	if err := s.Record(crashResult(0)); err != ErrClosed {
		t.Errorf("Record after Close: %v, want ErrClosed", err)
	}
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		status, ts string
		want       Result
		err        string
	}{
		{"pass", "", Result{TraceID: "t", Assertion: "a", Type: "content", Status: Pass, Score: 1, Seq: 7, ResultID: "r"}, ""},
		{"soft_fail", "2026-11-24T03:00:00.5Z", Result{TraceID: "t", Assertion: "a", Type: "content", Status: SoftFail, Score: 1, Seq: 7, ResultID: "r",
			Timestamp: time.Date(2026, 11, 24, 3, 0, 0, 5e8, time.UTC)}, ""},
		{"failed", "", Result{}, `unknown status "failed"`},
		{"pass", "yesterday", Result{}, `timestamp "yesterday"`},
	}
	for _, tc := range tests {
		got, err := ParseLine("t", "a", "content", tc.status, 1, tc.ts, 7, "r")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %s: err = %v, want %q", tc.status, tc.ts, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s %s (-want +got):\n%s", tc.status, tc.ts, d)
		}
	}
}

// TestTimeWindows: with WindowDuration, results fall in windows by their
// timestamp, and a dir refuses to reopen with other windows.
func TestTimeWindows(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	s, err := Open(dir, Options{WindowDuration: time.Minute, NoAlertFile: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		r := crashResult(i)
		r.Seq = 0
		r.Timestamp = t0.Add(time.Duration(i) * 20 * time.Second)
		if err := s.Record(r); err != nil {
			t.Fatal(err)
		}
	}
	var windows []int64
	for _, w := range s.keys["assertion-0"].Windows {
		windows = append(windows, w.Window-t0.Unix()/60)
	}
	s.Close()
	// assertion-0 holds results 0, 3, 6, 9: at 0 s, 60 s, 120 s, 180 s
	if d := cmp.Diff([]int64{0, 1, 2, 3}, windows); d != "" {
		t.Errorf("windows (-want +got):\n%s", d)
	}
	if _, err := Open(dir, Options{NoAlertFile: true}); err == nil || !strings.Contains(err.Error(), fmt.Sprint("uses 1m0s windows")) {
		t.Errorf("reopen with count windows: err = %v", err)
	}
}

func TestThreshold(t *testing.T) {
	s, err := Open(t.TempDir(), Options{Sync: SyncNever, NoAlertFile: true, Drift: DriftConfig{BaselineN: 40}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	add := func(n int, score float64) {
		for i := range n {
			if err := s.Record(Result{TraceID: fmt.Sprint(i), Assertion: "judge", Type: "llm_judge", Status: Pass, Score: score}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, _, err := s.Threshold("judge"); err == nil || !strings.Contains(err.Error(), `"judge" has 0 earlier scored results, a dynamic threshold needs 30`) {
		t.Errorf("no history: err = %v", err)
	}
	add(10, 0.9)
	add(10, 0.7)
	if _, _, err := s.Threshold("judge"); err == nil {
		t.Error("20 results: want ErrNoHistory")
	}
	add(20, 0.8)
	add(100, 0.1) // after the 40-result baseline: not the reference
	thr, why, err := s.Threshold("judge")
	if err != nil {
		t.Fatal(err)
	}
	// 40 results: 10×0.9, 10×0.7, 20×0.8: mean 0.8, sd sqrt(0.2/39)
	// (the exact value lowered by its rounding slack, 0.5 + 2 × 0.5 × √(40/39)
	// millionths, and floored to millionths: atResolution)
	if want := 0.656775; math.Abs(thr-want) > 1e-12 {
		t.Errorf("threshold %v, want %v (%s)", thr, want, why)
	}
	if want := "dynamic threshold 0.6568 = mean 0.8000 − 2 × sd 0.0716 over 40 earlier results"; why != want {
		t.Errorf("explanation %q, want %q", why, want)
	}
}

func TestSeries(t *testing.T) {
	dir := t.TempDir()
	stream := driftStream(newPRNG("history/merge-drift/v1"), 3000, 1800)
	alerts := record(t, dir, stream)
	s, err := Open(dir, Options{NoAlertFile: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sr, ok := s.Series("refund-policy")
	if !ok || sr.Type != "constraint" || len(sr.Windows) != 150 || sr.WindowTraces != DefaultWindowTraces {
		t.Fatalf("series: ok %v, type %q, %d windows, %d traces each", ok, sr.Type, len(sr.Windows), sr.WindowTraces)
	}
	var want []Alert
	for _, a := range alerts {
		if a.Assertion == "refund-policy" {
			want = append(want, a)
		}
	}
	if d := cmp.Diff(want, sr.Alerts); d != "" {
		t.Errorf("alerts (-raised +series):\n%s", d)
	}
	if _, ok := s.Series("nothing"); ok {
		t.Error("a key with no history has a series")
	}
}
