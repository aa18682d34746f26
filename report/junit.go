// junit.go: the JUnit XML report, in the shape CI systems parse (GitHub Actions, GitLab, Jenkins).

package report

import (
	"bytes"
	"io"
	"strconv"

	"attest-engine/assert"
	"attest-engine/xmlout"
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
// CI systems sum the testsuites). Package xmlout escapes all text, and
// replaces characters XML cannot hold with U+FFFD; bidirectional formatting
// characters are written as the text \uXXXX, as in the text report.
type junitReport struct {
	w   io.Writer
	buf bytes.Buffer
}

func junitProps(list []xmlout.Attr) xmlout.Elem {
	props := xmlout.Elem{Name: "properties", Kids: make([]xmlout.Elem, len(list))}
	for i, p := range list {
		props.Kids[i] = xmlout.Elem{Name: "property", Attrs: []xmlout.Attr{{Name: "name", Value: p.Name}, {Name: "value", Value: p.Value}}}
	}
	return props
}

// junitCase is a testcase element: its attributes, then properties, then
// at most one of failure, error and skipped, then system-out.
type junitCase struct {
	name, classname, time string
	props                 []xmlout.Attr // name and value of each property
	problem               *xmlout.Elem  // failure, error or skipped
	systemOut             string
}

func (c *junitCase) elem() xmlout.Elem {
	e := xmlout.Elem{Name: "testcase", Attrs: []xmlout.Attr{{Name: "name", Value: c.name}, {Name: "classname", Value: c.classname}, {Name: "time", Value: c.time}}}
	if c.props != nil {
		e.Kids = append(e.Kids, junitProps(c.props))
	}
	if c.problem != nil {
		e.Kids = append(e.Kids, *c.problem)
	}
	if c.systemOut != "" {
		e.Kids = append(e.Kids, xmlout.Elem{Name: "system-out", Text: c.systemOut})
	}
	return e
}

// junitProblem is a failure or an error element.
func junitProblem(name, message, typ, text string) *xmlout.Elem {
	return &xmlout.Elem{Name: name, Attrs: []xmlout.Attr{{Name: "message", Value: message}, {Name: "type", Value: typ}}, Text: text}
}

func (j *junitReport) Begin() error {
	_, err := io.WriteString(j.w, xmlout.Header+`<testsuites name="attest-engine">`+"\n")
	return err
}

func (j *junitReport) Trace(tr *Trace) error {
	var props []xmlout.Attr
	if tr.TraceID != "" {
		props = append(props, xmlout.Attr{Name: "trace_id", Value: tr.TraceID})
	}
	props = append(props, xmlout.Attr{Name: "status", Value: tr.Status()})
	var cases []xmlout.Elem
	failures, errs, skipped := 0, 0, 0
	cost := 0.0
	for i := range tr.Results {
		rec := &tr.Results[i]
		c := junitResult(tr, rec)
		if c.problem != nil {
			switch c.problem.Name {
			case "error":
				errs++
			case "failure":
				failures++
			case "skipped":
				skipped++
			}
		}
		cost += rec.Result.Cost
		cases = append(cases, c.elem())
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
		errs++
		c := junitCase{name: name, classname: class, time: seconds(tr.DurationMS),
			problem: junitProblem("error", e.Message, e.ErrorType(), text)}
		cases = append(cases, c.elem())
	}
	props = append(props, xmlout.Attr{Name: "cost_usd", Value: formatFloat(cost)})
	return j.encode(junitSuite(tr.Name, len(cases), failures, errs, skipped, seconds(tr.DurationMS), props, cases))
}

// junitSuite is a testsuite element: its counts, its properties, its testcases.
func junitSuite(name string, tests, failures, errs, skipped int, time string, props []xmlout.Attr, cases []xmlout.Elem) *xmlout.Elem {
	return &xmlout.Elem{Name: "testsuite",
		Attrs: []xmlout.Attr{{Name: "name", Value: name}, xmlout.Int("tests", tests), xmlout.Int("failures", failures),
			xmlout.Int("errors", errs), xmlout.Int("skipped", skipped), {Name: "time", Value: time}},
		Kids: append([]xmlout.Elem{junitProps(props)}, cases...)}
}

// encode writes one testsuite, its bidirectional formatting characters
// shown as \uXXXX text (EscapeBidi): CI systems display names and messages
// as they are, so raw, one would reorder the CI's own text around it.
func (j *junitReport) encode(s *xmlout.Elem) error {
	j.buf.Reset()
	xmlout.Write(&j.buf, s, "  ", "  ")
	j.buf.WriteByte('\n')
	_, err := j.w.Write(EscapeBidi(j.buf.Bytes()))
	return err
}

// junitResult is one result as a testcase. Its classname is the assertion
// type when known, else the suite, else plugin.<name>, else the trace: CI
// systems group testcases by classname.
func junitResult(tr *Trace, rec *Recorded) junitCase {
	r := &rec.Result
	c := junitCase{name: r.AssertionID, time: seconds(r.DurationMS), systemOut: r.Explanation}
	switch {
	case rec.Type != "":
		c.classname = rec.Type
	case rec.Suite != "":
		c.classname = rec.Suite
	case rec.Plugin != "":
		c.classname = "plugin." + rec.Plugin
	default:
		c.classname = tr.Name
	}
	props := []xmlout.Attr{{Name: "status", Value: string(r.Status)}, {Name: "score", Value: formatFloat(r.Score)}}
	if r.Cost != 0 {
		props = append(props, xmlout.Attr{Name: "cost_usd", Value: formatFloat(r.Cost)})
	}
	if r.RequestID != "" {
		props = append(props, xmlout.Attr{Name: "request_id", Value: r.RequestID})
	}
	if rec.Plugin != "" {
		props = append(props, xmlout.Attr{Name: "plugin", Value: rec.Plugin})
	}
	if rec.Suite != "" {
		props = append(props, xmlout.Attr{Name: "suite", Value: rec.Suite})
	}
	c.props = props
	switch {
	case r.Failure != nil:
		text := r.Failure.Message
		if r.Failure.Detail != "" {
			text += "\n" + r.Failure.Detail
		}
		c.problem = junitProblem("error", r.Failure.Message, assert.ErrorType(r.Failure.Code), text)
		c.props = append([]xmlout.Attr{{Name: "status", Value: "error"}}, props[2:]...) // no score: never a 0
	case r.Skipped:
		c.problem = &xmlout.Elem{Name: "skipped", Attrs: []xmlout.Attr{{Name: "message", Value: r.Explanation}}}
	case r.Status == assert.HardFail:
		c.problem = junitProblem("failure", r.Explanation, string(assert.HardFail), r.Explanation+"\nscore: "+formatFloat(r.Score))
	}
	return c
}

// End writes, after the traces' testsuites, one testsuite per scenario of
// repeated runs (capability simulation) holding no testcase: its summary is
// in its properties (scenario_id, n, passes, wilson_95_low, wilson_95_high,
// then pass^k for k = 1..8 and pass^n), so CI systems count no test twice.
func (j *junitReport) End(tot *Totals) error {
	for _, sc := range tot.Scenarios {
		props := []xmlout.Attr{{Name: "scenario_id", Value: sc.ScenarioID}, {Name: "n", Value: strconv.Itoa(sc.N)}, {Name: "passes", Value: strconv.Itoa(sc.Passes)},
			{Name: "wilson_95_low", Value: formatFloat(sc.WilsonLo)}, {Name: "wilson_95_high", Value: formatFloat(sc.WilsonHi)}}
		for _, pk := range scenarioPassK(&sc.Summary) {
			props = append(props, xmlout.Attr{Name: "pass^" + strconv.Itoa(pk.K), Value: formatFloat(pk.P)})
		}
		if err := j.encode(junitSuite("scenario "+sc.ScenarioID, 0, 0, 0, 0, seconds(0), props, nil)); err != nil {
			return err
		}
	}
	_, err := io.WriteString(j.w, "</testsuites>\n")
	return err
}

func formatFloat(f float64) string { return strconv.FormatFloat(finite(f), 'f', -1, 64) }
