// init_test.go: the engine's own packages build nothing sizeable at init: every process pays for it, a session's included.

package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// initTraceLine is one line of GODEBUG=inittrace=1: a package's init, its clock
// time and what it allocated.
var initTraceLine = regexp.MustCompile(`^init (attest-engine\S*|main) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// TestInitCheap: each of the engine's packages allocates at most 8 KiB at
// init, as the built binary reports it (GODEBUG=inittrace=1; allocations,
// unlike clock times, do not depend on the machine's load). Templates,
// tables and clients are made on first use (sync.OnceValue): parsed at
// init, the report's templates took 135 KB and a third of a millisecond of
// every start (docs/performance.md, "Start-up").
func TestInitCheap(t *testing.T) {
	cmd := exec.Command(buildEngine(t), "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("--version: %v\n%s", err, stderr.String())
	}
	const limit = 8 << 10
	seen := 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		m := initTraceLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		seen++
		if n, _ := strconv.Atoi(m[2]); n > limit {
			t.Errorf("package %s allocates %d bytes (%s allocations) at init, more than %d: build it on first use", m[1], n, m[3], limit)
		}
	}
	if seen < 5 {
		t.Fatalf("inittrace reported %d of the engine's packages:\n%s", seen, stderr.String())
	}
}
