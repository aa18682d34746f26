//go:build unix

// statedir_binary_test.go: the built binary's report and merge open hostile state dirs within a stated memory and time, and the history page of the largest dir a reader takes stays under its 32 MiB bound.

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// spawnEnv makes the test binary a spawner: it runs the command JSON-encoded
// in the variable, then writes its exit code and peak resident memory to
// the file named by spawnOutEnv. The peak a parent reads of its child
// includes the parent's own peak (on Linux a child created sharing its
// parent's memory, as Go's os/exec does, starts its count there): the
// tests' parent has built files of tens of MiB, the spawner nothing.
const (
	spawnEnv    = "ATTEST_TEST_SPAWN"
	spawnOutEnv = "ATTEST_TEST_SPAWN_OUT"
)

func init() {
	spec := os.Getenv(spawnEnv)
	if spec == "" {
		return
	}
	var argv []string
	if err := json.Unmarshal([]byte(spec), &argv); err != nil || len(argv) == 0 {
		os.Exit(125)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err := cmd.Run()
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = int64(ru.Maxrss) << 10 // KiB on Linux
	}
	os.WriteFile(os.Getenv(spawnOutEnv), fmt.Appendf(nil, "%d %d", exitCode(err), rss), 0o644)
	os.Exit(0)
}

// hostileSummaries writes a state dir whose summaries.json has the given
// "keys" member body.
func hostileSummaries(t *testing.T, keys func(b *bytes.Buffer)) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString(`{"version":1,"id":"0123456789abcdef","window":{"traces":20},"checkpoint":{"segment":1,"offset":0},"keys":{`)
	keys(&b)
	b.WriteString("}}\n")
	if err := os.WriteFile(filepath.Join(dir, "summaries.json"), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runBounded runs the engine with args, through a spawner (spawnEnv),
// under a watchdog, and reports its exit code, stderr and peak resident
// memory.
func runBounded(t *testing.T, bin string, args ...string) (code int, stderr string, maxRSS int64) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := json.Marshal(append([]string{bin}, args...))
	out := filepath.Join(t.TempDir(), "spawn")
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), spawnEnv+"="+string(spec), spawnOutEnv+"="+out)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v still running after 60 s", args)
	}
	b, err := os.ReadFile(out)
	f := strings.Fields(string(b))
	if err != nil || len(f) != 2 {
		t.Fatalf("the spawner wrote %q (%v); stderr %s", b, err, errb.String())
	}
	code, _ = strconv.Atoi(f[0])
	maxRSS, _ = strconv.ParseInt(f[1], 10, 64)
	return code, errb.String(), maxRSS
}

// TestHostileStateDirBinary: report and merge of the built binary refuse a
// summaries file of 1,000,000 assertions (13 MB) at the 1,025th, within
// 128 MiB of resident memory and a minute (they take well under a second),
// and of 300,000 windows of one assertion at the 8,193rd. Decoding the
// whole file before checking its bounds, report of 1,000,000 keys takes
// ~720 MiB.
func TestHostileStateDirBinary(t *testing.T) {
	bin := buildEngine(t)
	dirs := []struct {
		name string
		keys func(b *bytes.Buffer)
		want string
	}{
		{"1,000,000 keys", func(b *bytes.Buffer) {
			for k := range 1_000_000 {
				if k > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(b, `"k%d":{}`, k)
			}
		}, "more than 1024 assertions"},
		{"300,000 windows", func(b *bytes.Buffer) {
			b.WriteString(`"k":{"windows":[`)
			for w := range 300_000 {
				if w > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(b, `{"window":%d,"passes":1,"fails":0,"errors":0,"skipped":0,"fractional":0,"score_sum":1000000,"score_sq":[0,1000000000000],"hist":[0,0,0,0,0,0,0,0,0,1]}`, w)
			}
			b.WriteString("]}")
		}, "more than 8192 windows"},
	}
	for _, d := range dirs {
		dir := hostileSummaries(t, d.keys)
		for _, args := range [][]string{
			{"report", "--state-dir", dir, "--html", filepath.Join(t.TempDir(), "page.html")},
			{"merge", filepath.Join(t.TempDir(), "merged"), dir},
		} {
			code, stderr, rss := runBounded(t, bin, args...)
			t.Logf("%s: %s: exit %d, max RSS %.1f MiB", d.name, args[0], code, float64(rss)/(1<<20))
			if code != 1 || !strings.Contains(stderr, d.want) {
				t.Errorf("%s: %s: exit %d, stderr %q; want 1 and %q", d.name, args[0], code, stderr, d.want)
			}
			if rss > 128<<20 {
				t.Errorf("%s: %s: max RSS %d bytes, over 128 MiB", d.name, args[0], rss)
			}
		}
	}
}

// TestHistoryPageBoundBinary: the largest state dir a reader takes (1,024
// assertions, names of 4,096 bytes of the character HTML escapes longest,
// each with windows) gives a history page under its stated 32 MiB.
func TestHistoryPageBoundBinary(t *testing.T) {
	bin := buildEngine(t)
	dir := hostileSummaries(t, func(b *bytes.Buffer) {
		for k := range 1024 {
			if k > 0 {
				b.WriteByte(',')
			}
			name := strings.Repeat(`\"`, 4096-8) + fmt.Sprintf("%08d", k)
			fmt.Fprintf(b, `"%s":{"type":"%s","windows":[`, name, name)
			for w := range 50 {
				if w > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(b, `{"window":%d,"passes":%d,"fails":%d,"errors":0,"skipped":0,"fractional":0,"score_sum":0,"score_sq":[0,0],"hist":[0,0,0,0,0,0,0,0,0,0]}`, w, 20-w%7, w%7)
			}
			b.WriteString("]}")
		}
	})
	page := filepath.Join(t.TempDir(), "page.html")
	code, stderr, _ := runBounded(t, bin, "report", "--state-dir", dir, "--html", page, "--deterministic")
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	fi, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the page of 1,024 keys: %d bytes (%.1f MiB)", fi.Size(), float64(fi.Size())/(1<<20))
	if fi.Size() > 32<<20 {
		t.Errorf("the page is %d bytes, over the stated 32 MiB", fi.Size())
	}
	b, _ := os.ReadFile(page)
	if !bytes.Contains(b, []byte("824 more keys, not drawn")) {
		t.Error("the page does not say 824 keys were not drawn")
	}
}

// TestStateDirNotPrivateBinary: the server and watch refuse a state dir
// that others can write, saying how to fix it, with a nonzero exit.
func TestStateDirNotPrivateBinary(t *testing.T) {
	bin := buildEngine(t)
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--state-dir", dir},
		{"watch", "--suite", driftSuite, "--state-dir", dir},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		code := exitCode(err)
		if code == 0 || !strings.Contains(string(out), "others can write it (mode 0777); chmod go-w "+dir) {
			t.Errorf("%v: exit %d, %q; want a refusal naming chmod go-w", args, code, out)
		}
	}
}
