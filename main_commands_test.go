// main_commands_test.go: every command answers -h alike, and an unknown one is a usage error.

package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestCommandsHelp: -h and --help print the command's usage on stderr and
// exit 0, stdout untouched, for the server and every subcommand (the rule
// is cli.Parse's; version has no flags and answers it itself).
func TestCommandsHelp(t *testing.T) {
	for _, cmd := range []string{"", "eval", "watch", "merge", "report", "diff", "calibrate", "version"} {
		for _, h := range []string{"-h", "--help"} {
			args := []string{h}
			if cmd != "" {
				args = []string{cmd, h}
			}
			var out, errb bytes.Buffer
			code := run(args, strings.NewReader(""), &out, &errb)
			if code != 0 || out.Len() != 0 || !strings.Contains(errb.String(), "usage") {
				t.Errorf("%q: exit %d, stdout %q, stderr %.80q; want 0, nothing, the usage", args, code, out.String(), errb.String())
			}
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"serve"}, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), `unknown command "serve"`) {
		t.Errorf("an unknown command: exit %d, stderr %q; want 2 and its name", code, errb.String())
	}
}
