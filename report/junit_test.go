// junit_test.go: the JUnit report checked against the common JUnit XML schema's shape.

package report

import (
	"bytes"
	"encoding/xml"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The shape CI systems parse (the Ant/Jenkins junit.xsd as GitHub Actions
// reporters, GitLab and Jenkins read it), decoded independently of the
// writer's own structs. Attributes are collected whole so that missing
// required ones can be told from empty ones.
type xTestsuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []xTestsuite `xml:"testsuite"`
}

type xTestsuite struct {
	Attrs      []xml.Attr  `xml:",any,attr"`
	Properties *xProps     `xml:"properties"`
	Cases      []xTestcase `xml:"testcase"`
}

type xProps struct {
	List []struct {
		Attrs []xml.Attr `xml:",any,attr"`
	} `xml:"property"`
}

type xTestcase struct {
	Attrs      []xml.Attr `xml:",any,attr"`
	Properties *xProps    `xml:"properties"`
	Failure    []xProblem `xml:"failure"`
	Error      []xProblem `xml:"error"`
	Skipped    []xProblem `xml:"skipped"`
	SystemOut  []string   `xml:"system-out"`
}

type xProblem struct {
	Attrs []xml.Attr `xml:",any,attr"`
	Text  string     `xml:",chardata"`
}

func attrs(list []xml.Attr) map[string]string {
	m := map[string]string{}
	for _, a := range list {
		m[a.Name.Local] = a.Value
	}
	return m
}

var junitTime = regexp.MustCompile(`^\d+\.\d{3}$`)

// checkJUnit validates a JUnit document's shape and that its counts add up.
func checkJUnit(t *testing.T, data []byte) xTestsuites {
	t.Helper()
	var doc xTestsuites
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, data)
	}
	need := func(where string, m map[string]string, names ...string) {
		t.Helper()
		for _, n := range names {
			if _, ok := m[n]; !ok {
				t.Errorf("%s: missing required attribute %q (has %v)", where, n, m)
			}
		}
	}
	for _, s := range doc.Suites {
		sa := attrs(s.Attrs)
		where := "testsuite " + sa["name"]
		need(where, sa, "name", "tests", "failures", "errors", "skipped", "time")
		if !junitTime.MatchString(sa["time"]) {
			t.Errorf("%s: time %q is not seconds with 3 decimals", where, sa["time"])
		}
		failures, errs, skipped := 0, 0, 0
		for _, c := range s.Cases {
			ca := attrs(c.Attrs)
			cw := where + " testcase " + ca["name"]
			need(cw, ca, "name", "classname", "time")
			if ca["name"] == "" || ca["classname"] == "" {
				t.Errorf("%s: empty name or classname: %v", cw, ca)
			}
			if !junitTime.MatchString(ca["time"]) {
				t.Errorf("%s: time %q is not seconds with 3 decimals", cw, ca["time"])
			}
			for _, p := range append(append([]xProblem{}, c.Failure...), c.Error...) {
				need(cw+" failure/error", attrs(p.Attrs), "message", "type")
			}
			if len(c.Failure)+len(c.Error)+len(c.Skipped) > 1 {
				t.Errorf("%s: more than one of failure, error, skipped", cw)
			}
			if c.Properties != nil {
				for _, p := range c.Properties.List {
					need(cw+" property", attrs(p.Attrs), "name", "value")
				}
			}
			failures += len(c.Failure)
			errs += len(c.Error)
			skipped += len(c.Skipped)
		}
		for _, n := range []struct {
			attr string
			got  int
		}{{"tests", len(s.Cases)}, {"failures", failures}, {"errors", errs}, {"skipped", skipped}} {
			if sa[n.attr] != strconv.Itoa(n.got) {
				t.Errorf("%s: %s=%q but it holds %d", where, n.attr, sa[n.attr], n.got)
			}
		}
	}
	return doc
}

func TestJUnitSchemaShape(t *testing.T) {
	var buf bytes.Buffer
	traces := fixtureTraces()
	if err := writeReport(&buf, FormatJUnit, traces); err != nil {
		t.Fatal(err)
	}
	doc := checkJUnit(t, buf.Bytes())
	if len(doc.Suites) != len(traces) {
		t.Fatalf("%d testsuites for %d traces: one testsuite per trace", len(doc.Suites), len(traces))
	}
	tests := []struct {
		suite, testcase string
		want            string // failure, error, skipped or "" (passes)
		reason          string
	}{
		{"trc_abc123", "assert_001", "", "pass is a plain testcase"},
		{"trc_abc123", "assert_005", "", "soft_fail is visible (status property) but does not fail"},
		{"trc_abc123", "assert_007", "failure", "hard_fail is a failure"},
		{"trc_abc123", "assert_008", "skipped", "a result the engine skipped is skipped"},
		{"#2", "trace", "error", "an invalid trace without trace_id is an error, its suite named by position"},
		{"trc_regex", "assert_007", "error", "an assertion error is an error on the assertion at fault"},
		{"trc_<&\"'>", "a<&>\"'", "failure", "names survive XML escaping exactly"},
	}
	for _, tc := range tests {
		c := findCase(doc, tc.suite, tc.testcase)
		if c == nil {
			t.Errorf("testcase %s/%s not found: %s", tc.suite, tc.testcase, tc.reason)
			continue
		}
		got := ""
		switch {
		case len(c.Failure) > 0:
			got = "failure"
		case len(c.Error) > 0:
			got = "error"
		case len(c.Skipped) > 0:
			got = "skipped"
		}
		if got != tc.want {
			t.Errorf("testcase %s/%s is %q, want %q: %s", tc.suite, tc.testcase, got, tc.want, tc.reason)
		}
	}
	soft := findCase(doc, "trc_abc123", "assert_005")
	if soft == nil || soft.Properties == nil || attrs(soft.Properties.List[0].Attrs)["value"] != "soft_fail" || len(soft.SystemOut) != 1 {
		t.Errorf("soft_fail testcase lacks its status property or system-out: %+v", soft)
	}
	nasty := findCase(doc, "trc_<&\"'>", "a<&>\"'")
	if nasty == nil || !strings.Contains(nasty.SystemOut[0], "'</system-out>]]>'") || !strings.Contains(nasty.SystemOut[0], "\uFFFD") {
		t.Errorf("explanation not carried through escaping (markup kept, NUL and bad UTF-8 as U+FFFD): %+v", nasty)
	}
}

func TestJUnitEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := writeReport(&buf, FormatJUnit, nil); err != nil {
		t.Fatal(err)
	}
	if doc := checkJUnit(t, buf.Bytes()); len(doc.Suites) != 0 {
		t.Errorf("an empty run has testsuites: %v", doc.Suites)
	}
}

func findCase(doc xTestsuites, suite, name string) *xTestcase {
	for _, s := range doc.Suites {
		if attrs(s.Attrs)["name"] != suite {
			continue
		}
		for i, c := range s.Cases {
			if attrs(c.Attrs)["name"] == name {
				return &s.Cases[i]
			}
		}
	}
	return nil
}
