// json.go: the JSON report: one document, written a trace at a time, keys in a fixed order.

package report

import (
	"bytes"
	"encoding/json"
	"io"
	"math"

	"attest-engine/assert"
	"attest-engine/simulate"
)

// jsonReport writes one JSON document:
//
//	{"format_version":1,"traces":[
//	{"name":…,"trace_id":…,"case_key":…,"status":…,"duration_ms":…,"results":[…],"error":{…}},
//	…
//	],"totals":{…}}
//
// one trace per line, so the document streams and still diffs well. Keys
// come in the order of the structs below; optional keys are left out when
// empty, "results" is always a list and "error" appears only on a trace
// that could not be evaluated.
type jsonReport struct {
	w   io.Writer
	buf bytes.Buffer
	n   int
}

type jsonTrace struct {
	Name       string       `json:"name"`
	TraceID    string       `json:"trace_id"`
	CaseKey    string       `json:"case_key,omitempty"`
	Status     string       `json:"status"`
	DurationMS int64        `json:"duration_ms"`
	Results    []jsonResult `json:"results"`
	Error      *jsonError   `json:"error,omitempty"`
}

type jsonResult struct {
	AssertionID  string `json:"assertion_id"`
	AssertionKey string `json:"assertion_key,omitempty"`
	// Label names the assertion key for a person (its type and spec).
	Label string `json:"label,omitempty"`
	// CaseKey is written only where it differs from its trace's (several
	// batches of one trace_id over different inputs).
	CaseKey     string   `json:"case_key,omitempty"`
	Repeat      *int64   `json:"repeat,omitempty"`
	Type        string   `json:"type,omitempty"`
	Suite       string   `json:"suite,omitempty"`
	Plugin      string   `json:"plugin,omitempty"`
	Status      string   `json:"status"`
	Score       *float64 `json:"score"` // null for a result that could not be evaluated: never a 0
	Explanation string   `json:"explanation"`
	Cost        float64  `json:"cost"`
	DurationMS  int64    `json:"duration_ms"`
	RequestID   string   `json:"request_id,omitempty"`
	Skipped     bool     `json:"skipped,omitempty"`
	// A judge's additive fields, as on the wire (assert.JudgeInfo).
	Samples            int   `json:"samples,omitempty"`
	Agreeing           int   `json:"agreeing,omitempty"`
	Split              bool  `json:"split,omitempty"`
	PositionConsistent *bool `json:"position_consistent,omitempty"`
	Calibrated         *bool `json:"calibrated,omitempty"`
	// FailedStep is where a failing trajectory check departs (package trajectory).
	FailedStep *assert.FailedStep `json:"failed_step,omitempty"`
	// Error is why this one assertion could not be evaluated, when the
	// trace's other assertions were (its status is then "error").
	Error *jsonError `json:"error,omitempty"`
}

type jsonError struct {
	ErrorType   string `json:"error_type"`
	Code        int    `json:"code"`
	Message     string `json:"message"`
	Detail      string `json:"detail"`
	AssertionID string `json:"assertion_id,omitempty"`
	Type        string `json:"type,omitempty"`
}

type jsonTotals struct {
	Passed       bool    `json:"passed"`
	Complete     bool    `json:"complete"`
	Traces       int     `json:"traces"`
	FailedTraces int     `json:"failed_traces"`
	Results      int     `json:"results"`
	Pass         int     `json:"pass"`
	SoftFail     int     `json:"soft_fail"`
	HardFail     int     `json:"hard_fail"`
	Skipped      int     `json:"skipped"`
	Errors       int     `json:"errors"`
	Cost         float64 `json:"cost"`
	DurationMS   int64   `json:"duration_ms"`
	// Scenarios: as the shutdown answer's scenarios member; absent when no batch named a scenario.
	Scenarios map[string]jsonScenario `json:"scenarios,omitempty"`
}

type jsonScenario struct {
	N        int        `json:"n"`
	Passes   int        `json:"passes"`
	PassHatK []float64  `json:"pass_hat_k"`
	Wilson95 [2]float64 `json:"wilson_95"`
}

func (j *jsonReport) Begin() error {
	_, err := io.WriteString(j.w, `{"format_version":1,"traces":[`)
	return err
}

func (j *jsonReport) Trace(tr *Trace) error {
	out := jsonTrace{Name: tr.Name, TraceID: tr.TraceID, CaseKey: tr.CaseKey, Status: tr.Status(), DurationMS: tr.DurationMS, Results: []jsonResult{}}
	for i := range tr.Results {
		rec := &tr.Results[i]
		r := rec.Result
		sc := finite(r.Score)
		out.Results = append(out.Results, jsonResult{
			AssertionID: r.AssertionID, AssertionKey: rec.AssertionKey, Label: rec.KeyLabel, Type: rec.Type, Suite: rec.Suite, Plugin: rec.Plugin,
			Status: string(r.Status), Score: &sc, Explanation: r.Explanation, Cost: finite(r.Cost),
			DurationMS: r.DurationMS, RequestID: r.RequestID, Skipped: r.Skipped, FailedStep: r.FailedStep,
		})
		jr := &out.Results[len(out.Results)-1]
		if rec.CaseKey != tr.CaseKey {
			jr.CaseKey = rec.CaseKey
		}
		if rec.HasRepeat {
			jr.Repeat = &rec.Repeat
		}
		if e := r.Failure; e != nil {
			jr.Status, jr.Score = "error", nil
			jr.Error = &jsonError{ErrorType: assert.ErrorType(e.Code), Code: e.Code, Message: e.Message, Detail: e.Detail, AssertionID: r.AssertionID, Type: rec.Type}
		}
		if j := r.Judge; j != nil {
			jr.Samples, jr.Agreeing, jr.Split, jr.PositionConsistent, jr.Calibrated = j.Samples, j.Agreeing, j.Split, j.PositionConsistent, j.Calibrated
		}
	}
	if e := tr.Err; e != nil {
		out.Error = &jsonError{ErrorType: e.ErrorType(), Code: e.Code, Message: e.Message, Detail: e.Detail, AssertionID: e.AssertionID, Type: e.Type}
	}
	sep := ",\n"
	if j.n == 0 {
		sep = "\n"
	}
	j.n++
	return j.write(sep, out)
}

func (j *jsonReport) End(tot *Totals) error {
	return j.write("\n],\"totals\":", jsonTotals{
		Passed: tot.Passed(), Complete: !tot.Incomplete, Traces: tot.Traces, FailedTraces: tot.FailedTraces, Results: tot.Results,
		Pass: tot.Pass, SoftFail: tot.SoftFail, HardFail: tot.HardFail, Skipped: tot.Skipped, Errors: tot.Errors,
		Cost: finite(tot.Cost), DurationMS: tot.DurationMS, Scenarios: scenariosJSON(tot.Scenarios),
	}, "}\n")
}

func scenariosJSON(list []simulate.ScenarioSummary) map[string]jsonScenario {
	if len(list) == 0 {
		return nil
	}
	m := make(map[string]jsonScenario, len(list))
	for _, s := range list {
		m[s.ScenarioID] = jsonScenario{N: s.N, Passes: s.Passes, PassHatK: s.PassHatK, Wilson95: [2]float64{s.WilsonLo, s.WilsonHi}}
	}
	return m
}

// write writes prefix, v as compact JSON (no HTML escaping: nobody embeds
// this in HTML, and "<" reads better than "\u003c"), then any suffix.
// Bidirectional formatting characters are written as JSON escapes
// (EscapeBidi): the same strings to a program, inert to a person reading
// the file.
func (j *jsonReport) write(prefix string, v any, suffix ...string) error {
	j.buf.Reset()
	j.buf.WriteString(prefix)
	enc := json.NewEncoder(&j.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	j.buf.Truncate(j.buf.Len() - 1) // Encode's newline
	for _, s := range suffix {
		j.buf.WriteString(s)
	}
	_, err := j.w.Write(EscapeBidi(j.buf.Bytes()))
	return err
}

// finite keeps a report encodable: JSON has no NaN or infinity.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}
