// command_test.go: the diff command on two committed runs with a planted regression: every output format
// against its golden file, the exit status, and bad input.

package rundiff

import (
	"bytes"
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

const dir = "../testdata/rundiff"

// writeRuns writes base.jsonl and head.jsonl (watch result lines), seeded: 300 cases of
// "refund-tools-in-order" whose pass rate drops from 90% to 70% in head (the planted regression), the same
// cases of "has-output" unchanged, of "tone" (a judge's graded score) unchanged, 12 cases of
// "latency-under-5s" (too few to tell), one case only in base and one only in head, and one pair whose head
// result is an error.
func writeRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 11))
	var base, head bytes.Buffer
	line := func(w *bytes.Buffer, trace, assertion, typ, status string, score float64) {
		id := sha256.Sum256([]byte(trace + "\x00" + assertion))
		fmt.Fprintf(w, `{"trace_id":%q,"assertion":%q,"type":%q,"status":%q,"score":%g,"explanation":"","result_id":"%x"}`+"\n", trace, assertion, typ, status, score, id[:16])
	}
	pf := func(pass bool) (string, float64) {
		if pass {
			return "pass", 1
		}
		return "hard_fail", 0
	}
	for i := range 300 {
		tr := fmt.Sprintf("trc_%03d", i)
		u := rng.Float64()
		s, sc := pf(u < 0.9)
		line(&base, tr, "refund-tools-in-order", "trace", s, sc)
		s, sc = pf(u < 0.7)
		line(&head, tr, "refund-tools-in-order", "trace", s, sc)
		ok := rng.Float64() < 0.95
		s, sc = pf(ok)
		line(&base, tr, "has-output", "schema", s, sc)
		if i == 7 {
			line(&head, tr, "has-output", "schema", "error", 0)
		} else {
			line(&head, tr, "has-output", "schema", s, sc)
		}
		quality := 0.5 + 0.4*rng.Float64()
		b, h := quality+0.1*(rng.Float64()-0.5), quality+0.1*(rng.Float64()-0.5)
		s, _ = pf(b >= 0.6)
		line(&base, tr, "tone", "llm_judge", s, float64(int(b*100))/100)
		s, _ = pf(h >= 0.6)
		line(&head, tr, "tone", "llm_judge", s, float64(int(h*100))/100)
		if i < 12 {
			s, sc = pf(rng.Float64() < 0.8)
			line(&base, tr, "latency-under-5s", "constraint", s, sc)
			s, sc = pf(rng.Float64() < 0.8)
			line(&head, tr, "latency-under-5s", "constraint", s, sc)
		}
	}
	line(&base, "trc_only_base", "has-output", "schema", "pass", 1)
	line(&head, "trc_only_head", "has-output", "schema", "pass", 1)
	for name, b := range map[string][]byte{"base.jsonl": base.Bytes(), "head.jsonl": head.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDiffGolden: the planted regression is the one key regressed (exit 1), in every format.
func TestDiffGolden(t *testing.T) {
	if *update {
		writeRuns(t)
	}
	base, head := filepath.Join(dir, "base.jsonl"), filepath.Join(dir, "head.jsonl")
	for _, format := range []string{"text", "json", "junit", "markdown"} {
		t.Run(format, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Run(context.Background(), []string{"--base", base, "--head", head, "--format", format}, nil, &out, &errb)
			if code != 1 {
				t.Errorf("exit %d, want 1 (a key regressed); stderr %s", code, errb.String())
			}
			golden := filepath.Join(dir, "diff."+format+".golden")
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./rundiff -update writes it)", err)
			}
			if diff := cmp.Diff(string(want), out.String()); diff != "" {
				t.Errorf("%s differs (-want +got):\n%s", golden, diff)
			}
		})
	}
	// The planted key, and only it, regressed; the others have their expected verdicts.
	r, err := Compare(base, head, Options{Alpha: 0.05, Detectable: 0.1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, k := range r.Keys {
		got[k.Label] = k.Verdict
	}
	want := map[string]string{"refund-tools-in-order": Regressed, "has-output": Unchanged, "tone": Unchanged, "latency-under-5s": Underpowered}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	if len(r.OnlyBase) != 1 || r.OnlyBase[0].Case != "trace:trc_only_base" || len(r.OnlyHead) != 1 || r.OnlyHead[0].Case != "trace:trc_only_head" {
		t.Errorf("unpaired: base %v, head %v", r.OnlyBase, r.OnlyHead)
	}
	// A run against itself: nothing regressed, exit 0.
	var out bytes.Buffer
	if code := Run(context.Background(), []string{"--base", base, "--head", base}, nil, &out, &out); code != 0 {
		t.Errorf("a run against itself: exit %d, want 0:\n%s", code, out.String())
	}
}

// TestDiffBadInput: flags and inputs diff cannot use are exit 2 with a message naming them.
func TestDiffBadInput(t *testing.T) {
	tmp := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := filepath.Join(dir, "base.jsonl")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no head", []string{"--base", good}, "--base and --head are required"},
		{"bad format", []string{"--base", good, "--head", good, "--format", "xml"}, `--format "xml"`},
		{"bad alpha", []string{"--base", good, "--head", good, "--alpha", "0.7"}, "--alpha 0.7"},
		{"missing file", []string{"--base", good, "--head", filepath.Join(tmp, "nope")}, "no such file"},
		{"not JSON", []string{"--base", good, "--head", write("x.jsonl", "hello\n")}, "x.jsonl:1:"},
		{"duplicate member", []string{"--base", good, "--head", write("d.jsonl", `{"assertion":"a","assertion":"b","status":"pass"}`+"\n")}, "d.jsonl:1:"},
		{"bad status", []string{"--base", good, "--head", write("s.jsonl", `{"trace_id":"t","assertion":"a","status":"great"}`+"\n")}, `status "great"`},
		{"a directory", []string{"--base", good, "--head", tmp}, "a directory"},
		// 1e308 against -1e308: the difference is infinite, the sign-flip sums NaN, and the key was called regressed.
		{"score out of range", []string{"--base", write("big.jsonl", `{"trace_id":"t","assertion":"a","status":"pass","score":1e308}`+"\n"+`{"trace_id":"u","assertion":"a","status":"pass","score":-1e308}`+"\n"),
			"--head", write("neg.jsonl", `{"trace_id":"t","assertion":"a","status":"pass","score":-1e308}`+"\n"+`{"trace_id":"u","assertion":"a","status":"pass","score":1e308}`+"\n")}, "big.jsonl:1: score 1e308: want a number from 0 to 1"},
		{"a report in another layout", []string{"--base", good, "--head", write("r.json", `{"format_version":1,"traces":[{"name":"t","results":[]}]}`)}, "one trace per line"},
	} {
		var out, errb bytes.Buffer
		if code := Run(context.Background(), c.args, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", c.name, code, errb.String(), c.want)
		}
	}
}

// TestPairsInOrderOfAppearance: results that share case, assertion and repeat pair with their
// counterparts in order; a repeat the result names keeps its pairs apart; the surplus has no pair.
func TestPairsInOrderOfAppearance(t *testing.T) {
	tmp := t.TempDir()
	write := func(name string, lines ...string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	l := func(status string, repeat int) string {
		r := ""
		if repeat >= 0 {
			r = fmt.Sprintf(`,"repeat":%d`, repeat)
		}
		return fmt.Sprintf(`{"trace_id":"t","assertion":"a","status":%q%s}`, status, r)
	}
	base := write("b", l("pass", -1), l("pass", -1), l("hard_fail", -1), l("pass", 3), l("hard_fail", 4))
	head := write("h", l("pass", -1), l("hard_fail", -1), l("pass", 4), l("pass", 3))
	r, err := Compare(base, head, Options{Alpha: 0.05, Detectable: 0.1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	k := r.Keys[0]
	// In order: pass/pass, pass/hard_fail; repeat 3 pass/pass, repeat 4 hard_fail/pass; the third unnamed one alone.
	if k.BothPass != 2 || k.Regressions != 1 || k.Improvements != 1 || k.BothFail != 0 || k.OnlyBase != 1 || k.OnlyHead != 0 {
		t.Errorf("%+v", k)
	}
}

// TestSkippedInReport: a result a JSON report marks "skipped": true (its
// status soft_fail, as spec §2.2 has skipped results: budget_usd or
// skip_after_hard_fail stopped it), or "calibrated": false (an
// uncalibrated judge's soft_fail, its verdict not used), has no verdict to
// compare: a head run whose budget stopped a judge, or whose certificate
// went stale, is 40 pairs not compared, not 40 regressions.
func TestSkippedInReport(t *testing.T) {
	tmp := t.TempDir()
	report := func(name, mark string) string {
		var b strings.Builder
		b.WriteString(`{"format_version":1,"traces":[` + "\n")
		for i := range 40 {
			r := `{"assertion_id":"j","type":"llm_judge","status":"pass","score":0.9,"explanation":"Good.","cost":0,"duration_ms":0}`
			if mark != "" {
				r = `{"assertion_id":"j","type":"llm_judge","status":"soft_fail","score":0.9,"explanation":"Not evaluated, or uncalibrated.","cost":0,"duration_ms":0,` + mark + `}`
			}
			sep := ","
			if i == 39 {
				sep = ""
			}
			fmt.Fprintf(&b, `{"name":"t%d","trace_id":"t%d","results":[%s]}%s`+"\n", i, i, r, sep)
		}
		b.WriteString(`],"totals":{}}` + "\n")
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := report("base.json", "")
	for _, head := range []string{`"skipped":true`, `"calibrated":false`} {
		r, err := Compare(base, report("head.json", head), Options{Alpha: 0.05, Detectable: 0.1, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Keys) != 1 || r.Keys[0].Regressions != 0 || r.Keys[0].NotComparable != 40 || r.Keys[0].Verdict == Regressed {
			t.Errorf("head %s: %+v", head, r.Keys)
		}
	}
}

// TestWatchLinesDeduplicated: watch's result lines are read as docs/watch.md says to de-duplicate them: a
// line written twice (the same result_id) counts once, and a verdict that supersedes another (late spans)
// takes its place; lines without a result_id still pair in order of appearance.
func TestWatchLinesDeduplicated(t *testing.T) {
	tmp := t.TempDir()
	write := func(name string, lines ...string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	l := func(trace, status, id, supersedes string) string {
		s := ""
		if supersedes != "" {
			s = fmt.Sprintf(`,"supersedes":%q`, supersedes)
		}
		return fmt.Sprintf(`{"trace_id":%q,"assertion":"a","status":%q,"result_id":%q%s}`, trace, status, id, s)
	}
	const (
		t1 = "00000000000000000000000000000001"
		t2 = "00000000000000000000000000000002"
		t3 = "00000000000000000000000000000003"
		t4 = "00000000000000000000000000000004"
		t5 = "00000000000000000000000000000005"
	)
	base := write("b",
		l("t1", "pass", t1, ""),
		l("t2", "pass", t2, ""),
		l("t2", "hard_fail", t3, t2), // t2 judged again with late spans: a failure
		l("t3", "pass", t4, ""),
		l("t3", "pass", t4, ""), // written twice across a crash
		l("t4", "hard_fail", t5, ""),
	)
	head := write("h",
		l("t1", "pass", t1, ""),
		l("t2", "pass", t2, ""),
		l("t3", "pass", t4, ""),
		l("t4", "pass", t5, ""),
	)
	r, err := Compare(base, head, Options{Alpha: 0.05, Detectable: 0.1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	k := r.Keys[0]
	// t1 and t3 pass in both; t2 failed in base (its late verdict) and passes in head; t4 improved.
	if k.BothPass != 2 || k.Improvements != 2 || k.Regressions != 0 || k.BothFail != 0 || k.OnlyBase != 0 || k.OnlyHead != 0 || r.ReplacedBase != 2 || r.ReplacedHead != 0 {
		t.Errorf("both pass %d, improvements %d, regressions %d, both fail %d, only base %d, only head %d, replaced %d/%d; want 2, 2, 0, 0, 0, 0, 2/0",
			k.BothPass, k.Improvements, k.Regressions, k.BothFail, k.OnlyBase, k.OnlyHead, r.ReplacedBase, r.ReplacedHead)
	}
	// Many lines of one trace and assertion (past the scan, into the map): 30 verdicts, each written
	// twice in base, the last 10 superseded by failures; once in head.
	var bl, hl []string
	for i := range 30 {
		id := fmt.Sprintf("%032x", 100+i)
		bl = append(bl, l("t9", "pass", id, ""))
		hl = append(hl, l("t9", "pass", id, ""))
	}
	bl = append(bl, bl...)
	for i := 20; i < 30; i++ {
		bl = append(bl, l("t9", "hard_fail", fmt.Sprintf("%032x", 200+i), fmt.Sprintf("%032x", 100+i)))
	}
	r, err = Compare(write("b2", bl...), write("h2", hl...), Options{Alpha: 0.05, Detectable: 0.1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if k := r.Keys[0]; k.BothPass != 20 || k.Improvements != 10 || k.OnlyBase != 0 || k.OnlyHead != 0 || r.ReplacedBase != 40 {
		t.Errorf("one trace's 30 verdicts: both pass %d, improvements %d, only base %d, only head %d, replaced %d; want 20, 10, 0, 0, 40",
			k.BothPass, k.Improvements, k.OnlyBase, k.OnlyHead, r.ReplacedBase)
	}
}
