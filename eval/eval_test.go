// eval_test.go: golden runs of the eval command, in process: args in; exit status, stdout and stderr out.

package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"attest-engine/trace"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

const cliDir = "../testdata/cli"

// cliCases run `attest-engine eval` with args; "@x" names testdata/cli/x,
// and "$OUT" a temporary --output file whose content joins the golden.
var cliCases = []struct {
	name   string
	args   []string
	stdin  string // a testdata/cli file fed to stdin
	want   int
	reason string
}{
	{"pretty_single", []string{"--trace", "@refund.json", "--assertions", "@assertions.json"}, "", 0,
		"one pretty-printed trace and the spec's layer 1–4 assertions: all pass, the soft one too, exit 0"},
	{"ndjson_text", []string{"--trace", "@traces.ndjson", "--assertions", "@assertions.json"}, "", 1,
		"NDJSON traces (a blank line skipped), one list for all: a hard_fail, an invalid trace and a schema_version 0 warning; exit 1"},
	{"ndjson_json", []string{"--trace", "@traces.ndjson", "--assertions", "@assertions.json", "--format", "json"}, "", 1,
		"the same run as one JSON document"},
	{"ndjson_junit", []string{"--trace", "@traces.ndjson", "--assertions", "@assertions.json", "--format", "junit", "--jobs", "1"}, "", 1,
		"the same run as JUnit XML, with one worker"},
	{"per_trace_ndjson", []string{"--trace", "@traces.ndjson", "--assertions", "@per_trace.ndjson"}, "", 1,
		"NDJSON assertions: line i for trace i, [] only validates"},
	{"per_trace_lists", []string{"--trace", "@traces.ndjson", "--assertions", "@per_trace_lists.json", "--format", "json"}, "", 1,
		"a list of lists: list i for trace i, the same results as NDJSON"},
	{"validate_only", []string{"--trace", "@traces.ndjson", "--assertions", "@empty_list.json"}, "", 1,
		"[] evaluates nothing; the invalid trace still fails the run"},
	{"assertion_error", []string{"--trace", "@refund.json", "--assertions", "@bad_regex.json", "--format", "junit"}, "", 1,
		"an invalid regex is ASSERTION_ERROR, an <error> on the assertion at fault; exit 1"},
	{"missing_type", []string{"--trace", "@refund.json", "--assertions", "@missing_type.json"}, "", 1,
		"an assertion object evaluate_batch rejects is an ASSERTION_ERROR of the trace, as on the wire"},
	{"lax_step_types", []string{"--trace", "@custom_step.ndjson", "--assertions", "@assertions.json"}, "", 0,
		"unknown step types are tolerated by default (spec §6)"},
	{"strict_step_types", []string{"--trace", "@custom_step.ndjson", "--assertions", "@assertions.json", "--config", "@strict.config.json"}, "", 1,
		"--config strict_step_types rejects them, as the server does (spec §7)"},
	{"stdin_trace", []string{"--trace", "-", "--assertions", "@assertions.json"}, "refund.json", 0,
		"--trace - reads stdin"},
	{"output_file", []string{"--trace", "@traces.ndjson", "--assertions", "@assertions.json", "--format", "junit", "--output", "$OUT"}, "", 1,
		"--output writes the report to a file; stdout stays empty"},
	{"ndjson_html", []string{"--trace", "@traces.ndjson", "--assertions", "@assertions.json", "--format", "html", "--deterministic", "--output", "$OUT"}, "", 1,
		"the same run as one HTML page, with no timestamp and every duration 0 (--deterministic): failures first"},
	{"timeout", []string{"--trace", "@refund.json", "--assertions", "@assertions.json", "--eval-timeout", "1ns"}, "", 1,
		"an expired --eval-timeout is a TIMEOUT error entry (spec §5)"},
	{"bad_trace_json", []string{"--trace", "@not_json.txt", "--assertions", "@assertions.json"}, "", 2,
		"a trace file that is neither NDJSON nor one document is bad input"},
	{"broken_pretty", []string{"--trace", "@broken_pretty.json", "--assertions", "@assertions.json"}, "", 2,
		"a multi-line document broken past its first line: both readings are reported, with their lines"},
	{"bad_ndjson_line", []string{"--trace", "@bad_line.ndjson", "--assertions", "@assertions.json", "--format", "junit"}, "", 1,
		"a later NDJSON line that is not JSON is an INVALID_TRACE entry naming its line; the traces after it are evaluated; exit 1"},
	{"repeated_key_line", []string{"--trace", "@repeated_key.ndjson", "--assertions", "@assertions.json"}, "", 1,
		"a line with a repeated key (spec §7) is an INVALID_TRACE entry with its line number; the trace after it is evaluated"},
	{"repeated_key_first_line", []string{"--trace", "@repeated_key_first.ndjson", "--assertions", "@assertions.json"}, "", 1,
		"the same on the first line: a line that is a whole JSON value but for its repeated key makes the file NDJSON, not one document broken"},
	{"dry_run", []string{"--trace", "@traces.ndjson", "--assertions", "@judge_assertions.json", "--config", "@offline.config.json", "--dry-run"}, "", 0,
		"--dry-run makes no call: the paid calls and largest cost per provider and model, an invalid trace counted as not evaluable"},
	{"dry_run_output", []string{"--trace", "@traces.ndjson", "--assertions", "@judge_assertions.json", "--config", "@offline.config.json", "--dry-run", "--output", "$OUT"}, "", 2,
		"--dry-run writes no report file: --output is refused, not ignored"},
	{"dry_run_junit", []string{"--trace", "@traces.ndjson", "--assertions", "@judge_assertions.json", "--config", "@offline.config.json", "--dry-run", "--format", "junit"}, "", 2,
		"--dry-run prints text or json: junit is refused, not answered with text"},
	{"dry_run_json", []string{"--trace", "@traces.ndjson", "--assertions", "@judge_assertions.json", "--config", "@offline.config.json", "--dry-run", "--format", "json"}, "", 0,
		"the same as one JSON object"},
	{"isolated_text", []string{"--trace", "@refund.json", "--assertions", "@judge_assertions.json", "--config", "@offline.config.json"}, "", 1,
		"an offline cache miss fails its assertion only: the trace's other results are reported, exit 1"},
	{"isolated_json", []string{"--trace", "@refund.json", "--assertions", "@judge_assertions.json", "--config", "@offline.config.json", "--format", "json"}, "", 1,
		"the same as JSON: the result's status is error, with its error object"},
	{"isolated_junit", []string{"--trace", "@refund.json", "--assertions", "@judge_assertions.json", "--config", "@offline.config.json", "--format", "junit"}, "", 1,
		"the same as JUnit: an <error> on the failing testcase, the others as they are"},
	{"isolated_html", []string{"--trace", "@refund.json", "--assertions", "@judge_assertions.json", "--config", "@offline.config.json", "--format", "html", "--deterministic", "--output", "$OUT"}, "", 1,
		"the same as HTML"},
	{"bad_assertions_json", []string{"--trace", "@refund.json", "--assertions", "@not_json.txt"}, "", 2,
		"an assertions file that is not JSON is bad input"},
	{"assertions_object", []string{"--trace", "@refund.json", "--assertions", "@object.json"}, "", 2,
		"an assertions file must hold lists, not an object"},
	{"assertions_mixed", []string{"--trace", "@refund.json", "--assertions", "@mixed.json"}, "", 2,
		"a list mixing lists and assertion objects is ambiguous"},
	{"too_few_lists", []string{"--trace", "@traces.ndjson", "--assertions", "@too_few.ndjson", "--format", "json"}, "", 2,
		"fewer assertion lists than traces: the report so far is closed whole, then exit 2"},
	{"too_many_lists", []string{"--trace", "@refund.json", "--assertions", "@per_trace.ndjson"}, "", 2,
		"more assertion lists than traces is bad input too"},
	{"missing_file", []string{"--trace", "@nope.ndjson", "--assertions", "@assertions.json"}, "", 2,
		"an unreadable file is bad input"},
	{"bad_config", []string{"--trace", "@refund.json", "--assertions", "@assertions.json", "--config", "@bad.config.json"}, "", 2,
		"the config is checked as for the server: an unknown key is named"},
	{"no_trace_flag", []string{"--assertions", "@assertions.json"}, "", 2, "--trace is required"},
	{"no_assertions_flag", []string{"--trace", "@refund.json"}, "", 2, "--assertions is required"},
	{"bad_format", []string{"--trace", "@refund.json", "--assertions", "@assertions.json", "--format", "xml"}, "", 2,
		"the format is text, json, junit or html"},
	{"bad_jobs", []string{"--trace", "@refund.json", "--assertions", "@assertions.json", "--jobs", "0"}, "", 2, "at least one worker"},
	{"too_many_jobs", []string{"--trace", "@refund.json", "--assertions", "@assertions.json", "--jobs", "2000000000"}, "", 2,
		"at most MaxInFlight workers: a huge count exhausted memory sizing the queue"},
	{"extra_arg", []string{"--trace", "@refund.json", "--assertions", "@assertions.json", "extra"}, "", 2, "no positional arguments"},
	{"both_stdin", []string{"--trace", "-", "--assertions", "-"}, "", 2, "stdin can feed only one of the files"},
}

var cliTimes = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`"duration_ms":\d+`), `"duration_ms":0`},
	{regexp.MustCompile(`time="\d+\.\d{3}"`), `time="0.000"`},
	{regexp.MustCompile(`\b\d+\.\d{3}s\b`), `0.000s`},
	{regexp.MustCompile(`\b\d+ms\b`), `0ms`},
}

// normalizeTimes zeroes wall-clock times, the only thing that varies.
func normalizeTimes(s string) string {
	for _, n := range cliTimes {
		s = n.re.ReplaceAllString(s, n.repl)
	}
	return s
}

func TestCLIGolden(t *testing.T) {
	for _, tc := range cliCases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "report.out")
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				switch {
				case strings.HasPrefix(a, "@"):
					args[i] = filepath.Join(cliDir, a[1:])
				case a == "$OUT":
					args[i] = out
				default:
					args[i] = a
				}
			}
			var stdin []byte
			if tc.stdin != "" {
				var err error
				if stdin, err = os.ReadFile(filepath.Join(cliDir, tc.stdin)); err != nil {
					t.Fatal(err)
				}
			}
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), args, bytes.NewReader(stdin), &stdout, &stderr)
			if code != tc.want {
				t.Errorf("exit status %d, want %d: %s\nstderr: %s", code, tc.want, tc.reason, stderr.String())
			}
			var b strings.Builder
			fmt.Fprintf(&b, "# %s\n$ attest-engine eval %s\nexit %d\n--- stdout\n%s--- stderr\n%s", tc.reason, strings.Join(tc.args, " "), code, stdout.String(), stderr.String())
			if report, err := os.ReadFile(out); err == nil {
				fmt.Fprintf(&b, "--- $OUT\n%s", report)
			}
			checkGolden(t, filepath.Join(cliDir, tc.name+".golden"), normalizeTimes(b.String()), tc.reason)
		})
	}
}

// TestCLIOrderAndBounds runs many traces of uneven size through a pool and
// checks that the report keeps input order and stays one JSON document.
func TestCLIOrderAndBounds(t *testing.T) {
	dir := t.TempDir()
	var traces strings.Builder
	const n = 300
	for i := range n {
		pad := strings.Repeat("x", (i*7919)%20000)
		fmt.Fprintf(&traces, `{"schema_version":1,"trace_id":"trc_%03d","steps":[{"type":"tool_call","name":"t","result":{"pad":%q}}],"output":{"message":"refund %d"}}`+"\n", i, pad, i)
	}
	asserts := filepath.Join(dir, "a.json")
	if err := os.WriteFile(asserts, []byte(`[{"assertion_id":"a","type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, jobs := range []string{"1", "3", "16"} {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), []string{"--trace", "-", "--assertions", asserts, "--format", "json", "--jobs", jobs},
			strings.NewReader(traces.String()), &stdout, &stderr)
		if code != 0 {
			t.Fatalf("jobs %s: exit %d: %s", jobs, code, stderr.String())
		}
		var doc struct {
			Traces []struct{ Name string }
			Totals struct{ Traces, Pass int }
		}
		if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
			t.Fatalf("jobs %s: report is not one JSON document: %v", jobs, err)
		}
		if len(doc.Traces) != n || doc.Totals.Pass != n {
			t.Fatalf("jobs %s: %d traces, %d pass; want %d", jobs, len(doc.Traces), doc.Totals.Pass, n)
		}
		for i, tr := range doc.Traces {
			if want := fmt.Sprintf("trc_%03d", i); tr.Name != want {
				t.Fatalf("jobs %s: report position %d holds %s, want %s (input order)", jobs, i, tr.Name, want)
			}
		}
		if strings.Contains(stderr.String(), "\r") {
			t.Errorf("jobs %s: progress written to a stderr that is not a terminal: %q", jobs, stderr.String())
		}
	}
}

// xs reads as an endless run of 'x'.
type xs struct{}

func (xs) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestCLILineBound: a trace line over trace.MaxLineBytes (16 MiB, as the server's
// request lines) is that trace's error, read past without being held, and
// the traces around it are evaluated.
func TestCLILineBound(t *testing.T) {
	if trace.MaxLineBytes != 16<<20 {
		t.Fatalf("trace.MaxLineBytes %d, want 16 MiB", trace.MaxLineBytes)
	}
	asserts := filepath.Join(t.TempDir(), "a.json")
	if err := os.WriteFile(asserts, []byte(`[{"assertion_id":"a","type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := func(id string) string {
		return `{"schema_version":1,"trace_id":"` + id + `","steps":[],"output":{"message":"refund"}}` + "\n"
	}
	const long = trace.MaxLineBytes + 1
	in := io.MultiReader(strings.NewReader(ok("trc_before")), io.LimitReader(xs{}, long), strings.NewReader("\n"+ok("trc_after")))
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), []string{"--trace", "-", "--assertions", asserts, "--format", "json"}, in, &stdout, &stderr)
	var doc struct {
		Traces []struct {
			Name, Status string
			Error        *struct{ Message string }
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("exit %d, report is not JSON: %v\n%s", code, err, stderr.String())
	}
	want := fmt.Sprintf("trace line exceeds max size: %d > %d bytes", long, trace.MaxLineBytes)
	if code != 1 || len(doc.Traces) != 3 || doc.Traces[0].Name != "trc_before" || doc.Traces[2].Name != "trc_after" ||
		doc.Traces[0].Error != nil || doc.Traces[2].Error != nil || doc.Traces[1].Error == nil || doc.Traces[1].Error.Message != want {
		t.Errorf("exit %d, report %+v: want exit 1, the long line's entry an error %q between two evaluated traces", code, doc.Traces, want)
	}
}

func TestCLIInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // as if SIGINT arrived before the first trace was read
	var stdout, stderr bytes.Buffer
	code := Run(ctx, []string{"--trace", filepath.Join(cliDir, "traces.ndjson"), "--assertions", filepath.Join(cliDir, "assertions.json"), "--format", "json"},
		strings.NewReader(""), &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit %d, want 1: an interrupted run is not a pass", code)
	}
	if !json.Valid(stdout.Bytes()) {
		t.Errorf("the report of an interrupted run is not closed whole: %q", stdout.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr does not say the run was interrupted: %q", stderr.String())
	}
}

func TestConsoleNotATerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, tc := range []struct {
		name string
		w    *os.File
	}{{"file", f}, {"pipe", w}} {
		if newConsole(tc.w).tty {
			t.Errorf("a %s counts as a terminal: progress would garble it", tc.name)
		}
	}
}

// checkGolden compares got with a golden file, rewriting it under -update.
func checkGolden(t *testing.T, path, got, reason string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./eval -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s: %s\n(-want +got):\n%s", path, reason, diff)
	}
}

// TestDeterministic runs the same eval twice with --deterministic: every
// format gives the same bytes, with no time in them to normalize.
func TestDeterministic(t *testing.T) {
	for _, format := range []string{"text", "json", "junit", "html"} {
		var runs [2]string
		for i := range runs {
			var stdout, stderr bytes.Buffer
			Run(context.Background(), []string{"--trace", filepath.Join(cliDir, "traces.ndjson"), "--assertions", filepath.Join(cliDir, "assertions.json"),
				"--format", format, "--deterministic", "--jobs", "2"}, nil, &stdout, &stderr)
			runs[i] = stdout.String()
		}
		if runs[0] != runs[1] {
			t.Errorf("%s: two --deterministic runs differ", format)
		}
		if normalizeTimes(runs[0]) != runs[0] {
			t.Errorf("%s: a --deterministic report holds a duration that is not 0", format)
		}
		if strings.Contains(runs[0], "generated") {
			t.Errorf("%s: a --deterministic report holds a timestamp", format)
		}
	}
	var stdout bytes.Buffer
	Run(context.Background(), []string{"--trace", filepath.Join(cliDir, "refund.json"), "--assertions", filepath.Join(cliDir, "assertions.json"),
		"--format", "html"}, nil, &stdout, &bytes.Buffer{})
	if !strings.Contains(stdout.String(), "<p class=\"meta\">generated 2") {
		t.Errorf("without --deterministic the HTML report says when it was generated")
	}
}
