// audit_test.go: the protocol path links none of the other commands' packages (docs/audit.md).

package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestProtocolPathImports: the server (package serve, what an SDK session
// runs) links none of the packages only the other commands use, so that
// a reviewer can audit the protocol path alone (docs/audit.md).
func TestProtocolPathImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./serve").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "attest-engine/rpc") {
		t.Fatalf("go list -deps ./serve does not list rpc: %q", deps)
	}
	for _, p := range []string{"watch", "ingest", "sample", "pool", "eval", "merge", "reportcmd", "rundiff", "calibrate", "suite", "spool"} {
		if slices.Contains(deps, "attest-engine/"+p) {
			t.Errorf("the server links %s, a package of the other commands (docs/audit.md)", p)
		}
	}
}
