// junit.go: the JUnit XML report, in the shape CI systems parse (GitHub Actions, GitLab, Jenkins).

package report

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"io"
	"strconv"

	"attest-engine/assert"
)

// junitReport writes
//
//	<testsuites name="attest-engine">
//	  <testsuite name=trace tests failures errors skipped time>   one per trace
//	    <properties>trace_id, status, cost_usd</properties>
//	    <testcase name=assertion_id classname=… time=…>            one per result
//	  <testsuite name="scenario <id>" tests="0" …>                 one per scenario (End)
//	    <properties>scenario_id, n, passes, wilson_95_*, pass^k</properties>
//
// A hard_fail is a <failure>; a trace that could not be evaluated is one
// testcase with an <error>; a skipped result is <skipped>; a soft_fail passes
// but says so in its properties (status=soft_fail) and in <system-out>,
// which carries every result's explanation. Each testsuite is written whole
// as its trace completes, so only one trace is ever held: the root element
// therefore carries no totals (they are optional in the JUnit schema, and
// CI systems sum the testsuites). encoding/xml escapes all text, and
// replaces characters XML cannot hold with U+FFFD; bidirectional formatting
// characters are written as the text \uXXXX, as in the text report.
type junitReport struct {
	w   io.Writer
	buf bytes.Buffer
	bw  *bufio.Writer // over buf; xml.NewEncoder writes through it instead of making a buffer per trace
}

type junitSuite struct {
	XMLName    xml.Name         `xml:"testsuite"`
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Time       string           `xml:"time,attr"`
	Properties *junitProperties `xml:"properties"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitProperties struct {
	List []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name       string           `xml:"name,attr"`
	Classname  string           `xml:"classname,attr"`
	Time       string           `xml:"time,attr"`
	Properties *junitProperties `xml:"properties"`
	Failure    *junitProblem    `xml:"failure"`
	Error      *junitProblem    `xml:"error"`
	Skipped    *junitSkipped    `xml:"skipped"`
	SystemOut  string           `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

func (j *junitReport) Begin() error {
	_, err := io.WriteString(j.w, xml.Header+`<testsuites name="attest-engine">`+"\n")
	return err
}

func (j *junitReport) Trace(tr *Trace) error {
	s := junitSuite{Name: tr.Name, Time: seconds(tr.DurationMS)}
	var props []junitProperty
	if tr.TraceID != "" {
		props = append(props, junitProperty{"trace_id", tr.TraceID})
	}
	props = append(props, junitProperty{"status", tr.Status()})
	cost := 0.0
	for i := range tr.Results {
		rec := &tr.Results[i]
		c := junitResult(tr, rec)
		switch {
		case c.Error != nil:
			s.Errors++
		case c.Failure != nil:
			s.Failures++
		case c.Skipped != nil:
			s.Skipped++
		}
		cost += rec.Result.Cost
		s.Cases = append(s.Cases, c)
	}
	if e := tr.Err; e != nil {
		name := e.AssertionID
		if name == "" {
			name = "trace"
		}
		class := e.Type
		if class == "" {
			class = tr.Name
		}
		text := e.Message
		if e.Detail != "" {
			text += "\n" + e.Detail
		}
		s.Errors++
		s.Cases = append(s.Cases, junitCase{Name: name, Classname: class, Time: seconds(tr.DurationMS),
			Error: &junitProblem{Message: e.Message, Type: e.ErrorType(), Text: text}})
	}
	s.Tests = len(s.Cases)
	s.Properties = &junitProperties{List: append(props, junitProperty{"cost_usd", formatFloat(cost)})}
	return j.encode(s)
}

// encode writes one testsuite, its bidirectional formatting characters
// shown as \uXXXX text (EscapeBidi): CI systems display names and messages
// as they are, so raw, one would reorder the CI's own text around it.
func (j *junitReport) encode(s junitSuite) error {
	j.buf.Reset()
	if j.bw == nil {
		j.bw = bufio.NewWriter(&j.buf)
	}
	enc := xml.NewEncoder(j.bw) // a fresh encoder starts at the indent prefix, on its own line; Encode flushes
	enc.Indent("  ", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	j.buf.WriteByte('\n')
	_, err := j.w.Write(EscapeBidi(j.buf.Bytes()))
	return err
}

// junitResult is one result as a testcase. Its classname is the assertion
// type when known, else the suite, else plugin.<name>, else the trace: CI
// systems group testcases by classname.
func junitResult(tr *Trace, rec *Recorded) junitCase {
	r := &rec.Result
	c := junitCase{Name: r.AssertionID, Time: seconds(r.DurationMS), SystemOut: r.Explanation}
	switch {
	case rec.Type != "":
		c.Classname = rec.Type
	case rec.Suite != "":
		c.Classname = rec.Suite
	case rec.Plugin != "":
		c.Classname = "plugin." + rec.Plugin
	default:
		c.Classname = tr.Name
	}
	props := []junitProperty{{"status", string(r.Status)}, {"score", formatFloat(r.Score)}}
	if r.Cost != 0 {
		props = append(props, junitProperty{"cost_usd", formatFloat(r.Cost)})
	}
	if r.RequestID != "" {
		props = append(props, junitProperty{"request_id", r.RequestID})
	}
	if rec.Plugin != "" {
		props = append(props, junitProperty{"plugin", rec.Plugin})
	}
	if rec.Suite != "" {
		props = append(props, junitProperty{"suite", rec.Suite})
	}
	c.Properties = &junitProperties{List: props}
	switch {
	case r.Failure != nil:
		text := r.Failure.Message
		if r.Failure.Detail != "" {
			text += "\n" + r.Failure.Detail
		}
		c.Error = &junitProblem{Message: r.Failure.Message, Type: assert.ErrorType(r.Failure.Code), Text: text}
		c.Properties.List = append([]junitProperty{{"status", "error"}}, props[2:]...) // no score: never a 0
	case r.Skipped:
		c.Skipped = &junitSkipped{Message: r.Explanation}
	case r.Status == assert.HardFail:
		c.Failure = &junitProblem{Message: r.Explanation, Type: string(assert.HardFail),
			Text: r.Explanation + "\nscore: " + formatFloat(r.Score)}
	}
	return c
}

// End writes, after the traces' testsuites, one testsuite per scenario of
// repeated runs (capability simulation) holding no testcase: its summary is
// in its properties (scenario_id, n, passes, wilson_95_low, wilson_95_high,
// then pass^k for k = 1..8 and pass^n), so CI systems count no test twice.
func (j *junitReport) End(tot *Totals) error {
	for _, sc := range tot.Scenarios {
		props := []junitProperty{{"scenario_id", sc.ScenarioID}, {"n", strconv.Itoa(sc.N)}, {"passes", strconv.Itoa(sc.Passes)},
			{"wilson_95_low", formatFloat(sc.WilsonLo)}, {"wilson_95_high", formatFloat(sc.WilsonHi)}}
		for _, pk := range scenarioPassK(&sc.Summary) {
			props = append(props, junitProperty{"pass^" + strconv.Itoa(pk.K), formatFloat(pk.P)})
		}
		s := junitSuite{Name: "scenario " + sc.ScenarioID, Time: seconds(0), Properties: &junitProperties{List: props}}
		if err := j.encode(s); err != nil {
			return err
		}
	}
	_, err := io.WriteString(j.w, "</testsuites>\n")
	return err
}

func formatFloat(f float64) string { return strconv.FormatFloat(finite(f), 'f', -1, 64) }
