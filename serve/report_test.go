// report_test.go: the server's --report file.

package serve

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"attest-engine/assert"
	"attest-engine/report"
	"attest-engine/rpc"
	"attest-engine/simulate"

	"github.com/google/go-cmp/cmp"
)

// sessionRecords are a session's results as the server hands them over: a
// native and a plugin result of one trace, then a second trace.
var sessionRecords = []rpc.Record{
	{TraceID: "trc_seed", Result: assert.Result{AssertionID: "native_1", Status: assert.HardFail, Explanation: "seeded"}},
	{TraceID: "trc_seed", Plugin: "safety", Result: assert.Result{AssertionID: "plugin_1", Status: assert.Pass, Score: 0.9, Explanation: "seeded plugin"}},
	{TraceID: "trc_wire", Type: "content", Spec: "{\n  \"check\": \"contains\"\n}", Result: assert.Result{AssertionID: "c1", Status: assert.Pass, Score: 1}},
	{TraceID: "trc_<b>", Type: "content", Spec: "{\n  \"value\": \"<script>\"\n}", Result: assert.Result{AssertionID: "c2", Status: assert.HardFail, Explanation: "</pre><script>"}},
}

// sessionScenarios is a session's scenario summary: 2 of 3 runs of "refund" passed.
func sessionScenarios() []simulate.ScenarioSummary {
	return []simulate.ScenarioSummary{{ScenarioID: "refund", Summary: simulate.Summarize(3, 2)}}
}

func TestReportFile(t *testing.T) {
	tests := []struct {
		file, reason string
		check        func(data []byte) bool
	}{
		{"report.json", "JSON for .json: trc_seed (native and plugin results), then trc_wire and trc_<b>", func(data []byte) bool {
			var doc struct {
				Traces []struct {
					Name    string
					Results []struct{ AssertionID string } `json:"results"`
				}
				Totals struct {
					Scenarios map[string]struct {
						N, Passes int
						PassHatK  []float64 `json:"pass_hat_k"`
					}
				}
			}
			return json.Unmarshal(data, &doc) == nil && len(doc.Traces) == 3 && doc.Traces[0].Name == "trc_seed" &&
				len(doc.Traces[0].Results) == 2 && doc.Traces[1].Name == "trc_wire" &&
				doc.Totals.Scenarios["refund"].N == 3 && doc.Totals.Scenarios["refund"].Passes == 2 && len(doc.Totals.Scenarios["refund"].PassHatK) == 3
		}},
		{"report.xml", "JUnit for .xml: one testsuite per trace, then the scenario's with its summary as properties", func(data []byte) bool {
			var doc struct {
				Suites []struct {
					Name  string `xml:"name,attr"`
					Tests int    `xml:"tests,attr"`
					Props []struct {
						Name  string `xml:"name,attr"`
						Value string `xml:"value,attr"`
					} `xml:"properties>property"`
				} `xml:"testsuite"`
			}
			if xml.Unmarshal(data, &doc) != nil || len(doc.Suites) != 4 {
				return false
			}
			sc := doc.Suites[3]
			props := map[string]string{}
			for _, p := range sc.Props {
				props[p.Name] = p.Value
			}
			return sc.Name == "scenario refund" && sc.Tests == 0 && props["n"] == "3" && props["passes"] == "2" &&
				props["pass^3"] == "0" && props["wilson_95_low"] == "0.2076596008020477"
		}},
		{"report.html", "HTML for .html: the failing trace open with its type and spec, the passing one a row, a timestamp", func(data []byte) bool {
			page := string(data)
			for _, want := range []string{"<title>attest-engine report: FAIL</title>", `data-status="hard_fail" data-name="trc_&lt;b&gt;"`,
				`<b><bdi>c2</bdi></b> <i><bdi>content</bdi></i>`, `<pre>{
  &#34;value&#34;: &#34;&lt;script&gt;&#34;
}</pre>`, `<td>trc_wire</td>`, `<p class="meta">generated 2`,
				`<tr><td>refund</td><td>3</td><td>2</td><td>0.208–0.939</td><td>pass^1 0.667 · pass^2 0.333 · pass^3 0.000</td></tr>`} {
				if !strings.Contains(page, want) {
					return false
				}
			}
			return strings.Count(page, "<script") == 1
		}},
		{"report.txt", "text for any other extension", func(data []byte) bool {
			for _, want := range []string{"trace trc_seed: hard_fail", "plugin_1 (plugin safety)", "trace trc_wire", "scenario refund: 2 of 3 runs passed; Wilson 95% [0.208, 0.939]; pass^1 0.667 pass^2 0.333 pass^3 0.000\n", "FAIL\n"} {
				if !strings.Contains(string(data), want) {
					return false
				}
			}
			return true
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			var log bytes.Buffer
			writeReport(path, slog.New(slog.NewJSONHandler(&log, nil)), sessionRecords)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			if !tc.check(data) {
				t.Errorf("%s:\n%s", tc.reason, data)
			}
			if !strings.Contains(log.String(), "report written") {
				t.Errorf("the report was not logged: %s", log.String())
			}
			matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
			if len(matches) > 0 {
				t.Errorf("temporary files left behind: %v", matches)
			}
		})
	}
}

// writeReport hands records to --report as the server does, one at a time, then ends serving.
func writeReport(path string, logger *slog.Logger, records []rpc.Record) {
	add, done := reportTo(path, logger, sessionScenarios)
	for _, r := range records {
		add(r)
	}
	done()
}

// TestReportSpooled: a session past --report's memory bound, its results spooled to disk beside the
// report, gives the report file the same session gives held in memory, and leaves no file behind.
func TestReportSpooled(t *testing.T) {
	var records []rpc.Record
	for i := range 300 {
		for _, r := range sessionRecords {
			r.TraceID = fmt.Sprintf("%s_%d", r.TraceID, i%40) // traces come back across batches
			records = append(records, r)
		}
	}
	for _, file := range []string{"report.json", "report.xml", "report.txt"} {
		var files [2][]byte
		for i, limit := range []int{report.SpoolMemory, 0} {
			func() {
				defer func(m int) { reportMemory = m }(reportMemory)
				reportMemory = limit
				dir := t.TempDir()
				var log bytes.Buffer
				writeReport(filepath.Join(dir, file), slog.New(slog.NewJSONHandler(&log, nil)), records)
				data, err := os.ReadFile(filepath.Join(dir, file))
				if err != nil {
					t.Fatalf("%s: %v (%s)", file, err, log.String())
				}
				files[i] = data
				if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
					t.Errorf("%s: files left behind: %v", file, left)
				}
			}()
		}
		if diff := cmp.Diff(string(files[0]), string(files[1])); diff != "" {
			t.Errorf("%s: the spooled report differs (-memory +spooled):\n%s", file, diff)
		}
	}
}

func TestReportFailureIsOnlyLogged(t *testing.T) {
	var log bytes.Buffer
	writeReport(filepath.Join(t.TempDir(), "missing-dir", "report.json"), slog.New(slog.NewJSONHandler(&log, nil)), sessionRecords)
	if !strings.Contains(log.String(), "writing report") {
		t.Errorf("the failed report write was not logged: %s", log.String())
	}
}
