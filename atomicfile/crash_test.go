// crash_test.go: a writer killed with SIGKILL at seeded moments leaves the old content or the new, never a part.

package atomicfile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The crash test re-executes the test binary as a writer (TestMain): it
// replaces the file with generation g+1, g+2, … (g the file's generation),
// printing each generation once Write has returned, until it is killed.
const (
	crashChildEnv = "ATOMICFILE_CRASH_CHILD"
	crashSyncEnv  = "ATOMICFILE_CRASH_SYNC"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		sync, _ := strconv.Atoi(os.Getenv(crashSyncEnv))
		os.Exit(crashChild(path, Sync(sync)))
	}
	os.Exit(m.Run())
}

// seeded is a number from SHA-256 of the test's name and i: the moments
// of the kills, the same on every run.
func seeded(i, n int) int {
	h := sha256.Sum256(fmt.Appendf(nil, "atomicfile/crash/v1/%d", i))
	return int(binary.BigEndian.Uint64(h[:8]) % uint64(n))
}

// generation g's content: a header line naming it, then 64–512 KiB of one
// letter, so that any mix of two generations, or a cut one, is told apart.
func generation(g int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "generation %d\n", g)
	b.Write(bytes.Repeat([]byte{byte('a' + g%26)}, 64<<10+seeded(-g-1, 448<<10)))
	return b.Bytes()
}

// parseGeneration is the generation the file holds whole, or an error.
func parseGeneration(b []byte) (int, error) {
	line, _, ok := bytes.Cut(b, []byte("\n"))
	if !ok {
		return 0, fmt.Errorf("no header line in %d bytes", len(b))
	}
	g, err := strconv.Atoi(strings.TrimPrefix(string(line), "generation "))
	if err != nil {
		return 0, fmt.Errorf("header %q", line)
	}
	if !bytes.Equal(b, generation(g)) {
		return 0, fmt.Errorf("generation %d is not whole: %d bytes, want %d", g, len(b), len(generation(g)))
	}
	return g, nil
}

func crashChild(path string, sync Sync) int {
	b, err := os.ReadFile(path)
	if err == nil {
		var g int
		if g, err = parseGeneration(b); err == nil {
			for g++; ; g++ {
				content := generation(g)
				err = Write(path, 0o644, sync, func(w io.Writer) error {
					for rest := content; len(rest) > 0; rest = rest[min(len(rest), 4096):] {
						if _, err := w.Write(rest[:min(len(rest), 4096)]); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					break
				}
				os.Stdout.WriteString(strconv.Itoa(g) + "\n")
			}
		}
	}
	fmt.Fprintln(os.Stderr, err)
	return 2
}

// TestCrash kills a writer with SIGKILL at seeded moments, 30 times over
// one file, and checks after each kill that the file holds one generation
// whole, the last acknowledged or the one in flight; that killed writes left
// temporary files, which RemoveTemps clears; and the permissions asked.
func TestCrash(t *testing.T) {
	runs := 30
	if testing.Short() {
		runs = 6
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "file")
	if err := os.WriteFile(path, generation(0), 0o644); err != nil {
		t.Fatal(err)
	}
	last := 0
	for run := range runs {
		sync := Sync(run % 3)
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+path, crashSyncEnv+"="+strconv.Itoa(int(sync)))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		acked := last
		done, first := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if g, err := strconv.Atoi(sc.Text()); err == nil {
					if acked == last {
						close(first)
					}
					acked = g
				}
			}
		}()
		select {
		case <-first:
		case <-done:
		}
		time.Sleep(time.Duration(seeded(run, 20_000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
		cmd.Wait()

		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		g, err := parseGeneration(b)
		if err != nil {
			t.Fatalf("run %d (sync %d): the file is torn: %v (child: %s)", run, sync, err, stderr.Bytes())
		}
		if g != acked && g != acked+1 {
			t.Fatalf("run %d: the file holds generation %d; %d was acknowledged", run, g, acked)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
			t.Fatalf("run %d: permissions %v (%v), want 0644", run, fi.Mode().Perm(), err)
		}
		last = g
	}
	leftovers := len(names(t, dir)) - 1
	if err := RemoveTemps(path); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("after RemoveTemps the directory holds %q, want only the file", got)
	}
	t.Logf("%d runs: generation %d in the end, %d temporary files left by kills", runs, last, leftovers)
	if runs == 30 && leftovers == 0 {
		t.Error("no kill landed in a write: the test no longer exercises a torn write")
	}
}
