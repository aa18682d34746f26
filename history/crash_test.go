package history

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The crash test re-executes the test binary as a writer (TestMain): it
// records results 0, 1, 2, … into a state dir and prints each index once
// Record has returned, until it is killed.
const crashChildEnv = "HISTORY_CRASH_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		os.Exit(crashChild(dir, os.Getenv("HISTORY_CRASH_SYNC")))
	}
	os.Exit(m.Run())
}

// crashOptions: small segments, so that kills land in rolls and snapshot
// writes too; no retention, so every record stays readable.
func crashOptions(sync SyncPolicy) Options {
	return Options{Sync: sync, SyncEvery: time.Millisecond, SegmentBytes: 4 << 10, MaxBytes: -1, MaxAge: -1, NoAlertFile: true}
}

// crashResult is record i of the crash test.
func crashResult(i int) Result {
	r := Result{
		TraceID: fmt.Sprintf("trace-%08d", i), Assertion: fmt.Sprintf("assertion-%d", i%3), Type: "constraint",
		Status: []Status{Pass, Pass, Pass, HardFail, SoftFail, Error, Skipped}[i%7], Score: float64(i%5) / 4,
		Seq: uint64(i + 1), ResultID: fmt.Sprintf("r%064d", i),
	}
	if i%3 == 0 { // a labelled key: version 3 frames beside version 2 ones
		r.Label = "constraint {\"field\":\"metadata.cost_usd\"}"
	}
	return r
}

func crashChild(dir, sync string) int {
	policy, err := ParseSync(sync)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	s, err := Open(dir, crashOptions(policy))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	s.log.splitPause = 50 * time.Microsecond // two write calls per frame: a kill can tear one
	n := 0
	if err := Scan(dir, func(Result) error { n++; return nil }); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	for i := n; ; i++ {
		if err := s.Record(crashResult(i)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		os.Stdout.WriteString(strconv.Itoa(i) + "\n")
	}
}

// TestCrashRecovery kills a writer with SIGKILL at seeded random moments, 100
// times over one state dir, and checks after each kill that every record
// acknowledged before it is there, whole and in order, that at most the one
// record in flight is beyond them, and that the summaries count every record
// exactly once.
func TestCrashRecovery(t *testing.T) {
	runs := 100
	if testing.Short() {
		runs = 10
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := newPRNG("history/crash/v1")
	policies := []string{"always", "interval", "never"}
	torn, total := 0, 0
	for run := range runs {
		policy := policies[run%3]
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+dir, "HISTORY_CRASH_SYNC="+policy)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		acked := total - 1 // nothing new acknowledged yet
		done, first := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if i, err := strconv.Atoi(sc.Text()); err == nil {
					if acked == total-1 {
						close(first)
					}
					acked = i
				}
			}
		}()
		// One run in four is killed 0–40 ms after the start, often while the
		// child still recovers the previous run's tail; the others 0–30 ms
		// after the first record, while writing.
		if r.Intn(4) == 0 {
			time.Sleep(time.Duration(r.Intn(40_000)) * time.Microsecond)
		} else {
			select {
			case <-first:
			case <-done:
			}
			time.Sleep(time.Duration(r.Intn(30_000)) * time.Microsecond)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
		cmd.Wait()

		s, err := Open(dir, crashOptions(SyncNever))
		if err != nil {
			t.Fatalf("run %d: reopen: %v", run, err)
		}
		if s.rec.TruncatedBytes > 0 {
			torn++
		}
		if len(s.rec.Corrupt) > 0 {
			t.Errorf("run %d: corrupt sealed segments: %v", run, s.rec.Corrupt)
		}
		n := 0
		err = Scan(dir, func(got Result) error {
			if d := cmp.Diff(crashResult(n), got); d != "" {
				return fmt.Errorf("record %d differs (-want +got):\n%s", n, d)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if n < acked+1 || n > acked+2 {
			t.Fatalf("run %d (%s): %d records after the kill; %d were acknowledged", run, policy, n, acked+1)
		}
		if got := s.summarized(); got != uint64(n) {
			t.Fatalf("run %d: summaries count %d results, the log holds %d", run, got, n)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		total = n
	}
	t.Logf("%d runs: %d records in the end, %d reopenings cut a torn tail", runs, total, torn)
	if runs == 100 && torn == 0 {
		t.Error("no run tore a record: the test no longer exercises recovery")
	}
}
