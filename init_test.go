// init_test.go: the engine's own packages build nothing sizeable at init: every process pays for it, a session's included.

package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
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

// TestNotLinked: packages whose initialization costs every start, a
// session's included, and that the engine can do without, stay out of the
// binary (docs/performance.md, "Start-up"): html/template compiles
// regular expressions at init, encoding/xml fills a map of 252 entities.
func TestNotLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, pkg := range []string{"html/template", "text/template", "encoding/xml"} {
		if slices.Contains(deps, pkg) {
			t.Errorf("the engine links %s: its package init runs at every start", pkg)
		}
	}
}
