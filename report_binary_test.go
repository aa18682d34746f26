// report_binary_test.go: --report with an .html path through the real binary, driven over pipes as an SDK does.

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBinaryHTMLReport(t *testing.T) {
	bin := buildEngine(t)
	path := filepath.Join(t.TempDir(), "session report.HTML")
	e := start(t, bin, "--log-level=warn", "--report="+path)
	batch := `{"jsonrpc":"2.0","id":"b1","method":"evaluate_batch","params":{"trace":{"schema_version":1,"trace_id":"trc_<html>","output":{"message":"<script>alert(1)</script> we cannot help"}},` +
		`"assertions":[{"assertion_id":"c_refund","type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}},` +
		`{"assertion_id":"c_polite","type":"content","spec":{"target":"output.message","check":"not_contains","value":"cannot","soft":true}}]}}`
	e.send(t, initLine, batch, `{"jsonrpc":"2.0","id":"end","method":"shutdown","params":{}}`)
	for range 3 {
		e.answer(t)
	}
	e.stdin.Close() // the SDK closes stdin after shutdown
	if code := e.wait(t); code != 0 {
		t.Fatalf("exit %d: %s", code, e.stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf(".HTML picks the HTML report: %v", err)
	}
	page := string(data)
	for _, want := range []string{
		"<title>attest-engine report: FAIL</title>",
		`data-status="hard_fail" data-name="trc_&lt;html&gt;"`,
		`<details class="r" data-status="hard_fail" data-types="content" open>`,
		`&#34;check&#34;: &#34;contains&#34;`,
		`<details class="r" data-status="soft_fail" data-types="content" open>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q: a failing batch is shown open, with types and specs, its trace id escaped", want)
		}
	}
	if n := strings.Count(strings.ToLower(page), "<script"); n != 1 {
		t.Errorf("%d <script elements: want only the page's own", n)
	}
	for _, ref := range []string{"http:", "https:", "//", "url(", "href", "src="} {
		if strings.Contains(page, ref) {
			t.Errorf("the page holds a reference: %q", ref)
		}
	}
}
