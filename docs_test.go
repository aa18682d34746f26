// docs_test.go: every command block of README.md and docs/*.md runs as printed, and prints what the page shows.

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A page's code blocks, in the doc test's terms (docs/layout.md, "Docs
// that stay true"):
//
//	```sh            commands: run with bash -e -o pipefail, must exit 0
//	```sh exit=N     commands that exit N (under -e, the first that fails
//	                 ends the block)
//	```sh skip       shown, not run (the reason on the line before the
//	                 block: a network call, a cluster, the test itself)
//	```output        what the sh block just before it prints on stdout,
//	                 compared exactly but for the timings of protocol
//	                 answers ("duration_ms": the clock's, shown as 0)
//	```console       a transcript (commands after "$ ", then what they
//	                 printed): shown, not run
//
// Any other block (```json, ```text, indented) is data, and must not look
// like a command: one that does fails the test until it is fenced as sh.
// The blocks of a page run in order in one scratch directory, in which
// ./attest-engine is the engine built from this tree and testdata and
// scripts are this tree's.

// answerTimes are the members of a protocol answer that the clock decides.
var answerTimes = regexp.MustCompile(`"(total_)?duration_ms":[0-9]+`)

// untimed is a command's output with the timings of protocol answers set
// to 0, as the pages show them: a server answer has no --deterministic, and
// a check may take a millisecond on a loaded machine.
func untimed(s string) string { return answerTimes.ReplaceAllString(s, `"${1}duration_ms":0`) }

// docBlock is one code block of a page.
type docBlock struct {
	line int    // of its first line of text, 1-based
	info string // the fence's info string; "" for an indented block
	text string
}

// docBlocks reads the code blocks of a Markdown page: fenced (```) and
// indented by four spaces after a blank line.
func docBlocks(page string) []docBlock {
	var out []docBlock
	lines := strings.Split(page, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if info, ok := strings.CutPrefix(l, "```"); ok {
			b := docBlock{line: i + 2, info: strings.TrimSpace(info)}
			var body []string
			for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
				body = append(body, lines[i])
			}
			b.text = strings.Join(body, "\n")
			out = append(out, b)
			continue
		}
		if strings.HasPrefix(l, "    ") && strings.TrimSpace(l) != "" && (i == 0 || strings.TrimSpace(lines[i-1]) == "") && !inList(lines, i) {
			b := docBlock{line: i + 1}
			var body []string
			for ; i < len(lines) && (strings.HasPrefix(lines[i], "    ") || strings.TrimSpace(lines[i]) == ""); i++ {
				body = append(body, strings.TrimPrefix(lines[i], "    "))
			}
			i--
			b.text = strings.TrimRight(strings.Join(body, "\n"), "\n")
			out = append(out, b)
		}
	}
	return out
}

// inList reports whether the indented line i continues a list item (the
// text of "- " or "1. " above it), not a code block.
func inList(lines []string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		t := strings.TrimSpace(lines[j])
		if t == "" {
			continue
		}
		return strings.HasPrefix(lines[j], "- ") || strings.HasPrefix(lines[j], "  ") || regexp.MustCompile(`^\d+\. `).MatchString(lines[j])
	}
	return false
}

// looksLikeCommand matches the first line of a block that runs something.
var looksLikeCommand = regexp.MustCompile(`^(\$ |\./|attest-engine |go (build|test|run|vet|install) |curl |CGO_ENABLED=|[A-Z][A-Z0-9_]*=\S* \S|sbatch |srun |kubectl |kcat |bash |sh |scripts/|hyperfine |printf |echo |#!/)`)

// docPages are the pages whose blocks the test runs.
func docPages(t *testing.T) []string {
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md"}, pages...)
}

// TestDocBlocks: every command block of every page runs as printed, with
// the exit status it shows, and prints the output block under it.
func TestDocBlocks(t *testing.T) {
	bin := buildEngine(t)
	repo, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range docPages(t) {
		t.Run(page, func(t *testing.T) {
			data, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			for _, name := range []string{"testdata", "scripts"} {
				if err := os.Symlink(filepath.Join(repo, name), filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(bin, filepath.Join(dir, "attest-engine")); err != nil {
				t.Fatal(err)
			}
			blocks := docBlocks(string(data))
			var last *docBlock // the sh block an output block belongs to
			var lastOut string
			for i := range blocks {
				b := &blocks[i]
				where := page + ":" + strconv.Itoa(b.line)
				kind, arg, _ := strings.Cut(b.info, " ")
				switch {
				case kind == "sh" && strings.HasPrefix(arg, "skip"):
					last = nil
				case kind == "sh":
					want := 0
					if n, ok := strings.CutPrefix(arg, "exit="); ok {
						if want, err = strconv.Atoi(n); err != nil {
							t.Fatalf("%s: bad %q", where, b.info)
						}
					}
					out, code, stderr := runDocBlock(t, dir, b.text)
					if code != want {
						t.Errorf("%s: exit %d, want %d\n%s\nstdout:\n%s\nstderr:\n%s", where, code, want, b.text, out, stderr)
					}
					last, lastOut = b, out
				case kind == "console":
					last = nil
				case kind == "output":
					if last == nil {
						t.Errorf("%s: an output block with no sh block run just before it", where)
						continue
					}
					if got, want := untimed(strings.TrimRight(lastOut, "\n")), untimed(strings.TrimRight(b.text, "\n")); got != want {
						t.Errorf("%s: the commands above print other output than the page shows:\n%s\n--- page:\n%s\n--- got:\n%s", where, last.text, want, got)
					}
					last = nil
				default:
					if first, _, _ := strings.Cut(strings.TrimSpace(b.text), "\n"); looksLikeCommand.MatchString(first) {
						t.Errorf("%s: a command block that is not fenced as sh (run) or sh skip: %q", where, first)
					}
					last = nil
				}
			}
		})
	}
}

// runDocBlock runs a block's commands in dir with bash, its own process
// group (a command sent to the background is ended with it), and a time
// bound; it returns stdout, the exit status and stderr.
func runDocBlock(t *testing.T, dir, script string) (string, int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what the block left running
	}
	if ctx.Err() != nil {
		t.Errorf("a block still ran after 60s:\n%s", script)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running a block: %v", err)
	}
	return stdout.String(), code, stderr.String()
}

// TestDocBlocksParse: the reader of pages finds fenced and indented blocks
// and leaves list continuations alone.
func TestDocBlocksParse(t *testing.T) {
	page := "text\n\n    ./attest-engine version\n\n```sh exit=1\nfalse\n```\n\n- item\n\n    more of the item\n\n```output\nx\n```\n"
	got := docBlocks(page)
	if len(got) != 3 || got[0].info != "" || got[0].text != "./attest-engine version" || got[1].info != "sh exit=1" || got[1].text != "false" || got[2].info != "output" {
		t.Errorf("blocks %+v", got)
	}
}
