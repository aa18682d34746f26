// input_ref_test.go: the result reader against a reference that reads each member with Get and Str, as
// diff read results before its one-walk reader (fields.go): the same results, or the same error, for any
// input.

package rundiff

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"attest-engine/tape"
)

// refResult is a result as the reference reads it.
type refResult struct {
	caseKey, assertion, label, typ, status string
	score                                  float64
	repeat                                 int64
	resultID, supersedes                   string
}

// refScan is scanResults with the reference's reading of traces and lines.
func refScan(data []byte) ([]refResult, error) {
	var out []refResult
	report := false
	for i, line := range bytes.Split(data, []byte("\n")) {
		lineNo := i + 1
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if lineNo == 1 && bytes.HasPrefix(line, []byte(`{"format_version":`)) {
			if !bytes.HasSuffix(line, []byte(`"traces":[`)) {
				return out, fmt.Errorf("%d: not one trace per line", lineNo)
			}
			report = true
			continue
		}
		if report {
			if line[0] == ']' {
				return out, nil
			}
			line = bytes.TrimSuffix(line, []byte(","))
		}
		doc, err := tape.ParseUnique(line)
		if err != nil {
			return out, fmt.Errorf("%d: %v", lineNo, err)
		}
		var res refResult
		add := func(r *refResult) error { out = append(out, *r); return nil }
		if report {
			err = refTrace(doc.Root(), &res, add)
		} else if err = refLine(doc.Root(), &res); err == nil {
			add(&res)
		}
		doc.Release()
		if err != nil {
			return out, fmt.Errorf("%d: %v", lineNo, err)
		}
	}
	return out, nil
}

func refTrace(t tape.Value, res *refResult, fn func(*refResult) error) error {
	if t.Kind() != tape.Object {
		return errors.New("a trace of the report is not an object")
	}
	caseKey := refStr(t.Get("case_key"))
	if caseKey == "" {
		name := refStr(t.Get("name"))
		if name == "" {
			name = refStr(t.Get("trace_id"))
		}
		caseKey = "trace:" + name
	}
	results := t.Get("results")
	if results.Kind() != tape.Array {
		return errors.New(`a trace of the report has no "results" list`)
	}
	for r := range results.Elems() {
		if r.Kind() != tape.Object {
			return errors.New("a result of the report is not an object")
		}
		// A result's own case_key (the engine writes one where it differs
		// from its trace's) wins over its trace's.
		id := refStr(r.Get("assertion_id"))
		// The key's label where the engine wrote one (the id differs from run to run), else the id.
		*res = refResult{caseKey: cmp.Or(refStr(r.Get("case_key")), caseKey), label: cmp.Or(refStr(r.Get("label")), id), typ: refStr(r.Get("type")), status: refStr(r.Get("status"))}
		res.assertion = refStr(r.Get("assertion_key"))
		if res.assertion == "" {
			res.assertion = "assertion_id:" + id + "/" + res.typ
		}
		if err := refCommon(r, res); err != nil {
			return err
		}
		if err := fn(res); err != nil {
			return err
		}
	}
	return nil
}

// refLine reads one result line of watch: {"trace_id","assertion","type","status","score",…}.
func refLine(l tape.Value, res *refResult) error {
	if l.Kind() != tape.Object {
		return errors.New("a result line is not a JSON object")
	}
	*res = refResult{label: refStr(l.Get("assertion")), typ: refStr(l.Get("type")), status: refStr(l.Get("status"))}
	if res.label == "" {
		return errors.New(`a result line without "assertion" (diff reads watch's result lines and the engine's JSON reports)`)
	}
	res.caseKey = refStr(l.Get("case_key"))
	if res.caseKey == "" {
		res.caseKey = "trace:" + refStr(l.Get("trace_id"))
	}
	res.assertion = refStr(l.Get("assertion_key"))
	if res.assertion == "" {
		res.assertion = "assertion:" + res.label
	}
	res.resultID, res.supersedes = refStr(l.Get("result_id")), refStr(l.Get("supersedes"))
	return refCommon(l, res)
}

// refCommon reads what both layouts share: the status, the score and the repeat.
func refCommon(v tape.Value, res *refResult) error {
	switch res.status {
	case "pass", "soft_fail", "hard_fail", "skipped", "error":
	default:
		return fmt.Errorf("status %q: want pass, soft_fail, hard_fail, skipped or error", res.status)
	}
	// A JSON report writes a result that was not evaluated (budget_usd,
	// skip_after_hard_fail) as the wire does: soft_fail with "skipped":
	// true; and an uncalibrated judge's (require_calibration) as soft_fail
	// with "calibrated": false, its verdict not used. Neither has a verdict
	// to compare.
	if v.Get("skipped").Bool() || v.Get("calibrated").Kind() == tape.Bool && !v.Get("calibrated").Bool() {
		res.status = "skipped"
	}
	if s := v.Get("score"); s.Kind() == tape.Number {
		f, err := strconv.ParseFloat(string(s.Number()), 64)
		if err != nil {
			return fmt.Errorf("score %s: %v", s.Number(), err)
		}
		// Spec §2.2: a score is 0.0 to 1.0. One far outside would make the pairs' differences infinite
		// and the sign-flip test's sums NaN, which decided "regressed".
		if !(f >= 0 && f <= 1) {
			return fmt.Errorf("score %s: want a number from 0 to 1 (spec §2.2)", s.Number())
		}
		res.score = f
	}
	res.repeat = -1
	if r := v.Get("repeat"); r.Kind() == tape.Number {
		n, err := strconv.ParseInt(string(r.Number()), 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("repeat %s: want a whole number from 0", r.Number())
		}
		res.repeat = n
	}
	return nil
}

// refStr is a string member's text, "" for anything else.
func refStr(v tape.Value) string {
	if v.Kind() != tape.String {
		return ""
	}
	return v.Str()
}

// FuzzReaderMatchesReference: scanResults reads every input as the reference does: the same results
// (keys, label, type, status, score, repeat, result ids) in the same order, and an error on the same line
// with the same message.
func FuzzReaderMatchesReference(f *testing.F) {
	for _, name := range []string{"base.jsonl", "head.jsonl"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			f.Add(b[:min(len(b), 3000)])
		}
	}
	f.Add([]byte(`{"format_version":1,"traces":[` + "\n" +
		`{"name":"t","trace_id":"t","case_key":"c","status":"pass","results":[{"assertion_id":"a","assertion_key":"k","type":"schema","status":"pass","score":1,"repeat":2},{"assertion_id":"b","label":"x \"y\"","type":"llm_judge","status":"soft_fail","score":0.25,"skipped":true}]},` + "\n" +
		`{"name":"","trace_id":"t\u00e9","results":[{"assertion_id":"a\u0041","case_key":"own","type":"t","status":"pa\u0073s","calibrated":false,"score":0},{"assertion_id":"\u00e9\ud83d\ude00","type":"t","status":"pass"}]}` + "\n" +
		`],"totals":{}}`))
	f.Add([]byte(`{"trace_id":"t","assertion":"a","status":"pass","score":1e400}` + "\n" + `{"trace_id":"t","assertion":"a","status":"pass","repeat":-1}`))
	f.Add([]byte(`{"trace_id":"t","assertion":"a\"b","case_key":"c","assertion_key":"k","type":"x","status":"error","result_id":"00000000000000000000000000000001","supersedes":"z"}` + "\n" + `{"trace_id":"t","\u0061ssertion":"a","st\u0061tus":"hard_fail","score":"1"}`))
	f.Add([]byte(`{"trace_id":"t","assertion":"","status":"pass"}`))
	f.Add([]byte(`{"format_version":1,"traces":[` + "\n" + `{"results":[{"status":"pass","score":0.5,"repeat":1.5}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := refScan(data)
		var got []refResult
		err := scanResults("in", bytes.NewReader(data), func(r *result) error {
			got = append(got, refResult{caseKey: string(r.caseKey), assertion: string(r.assertion), label: string(r.label.text()),
				typ: string(r.typ.text()), status: r.status.String(), score: r.score, repeat: r.repeat,
				resultID: string(r.resultID), supersedes: string(r.supersedes)})
			return nil
		})
		if len(got) != len(want) {
			t.Fatalf("%d results, the reference %d (error %v; the reference's %v)", len(got), len(want), err, wantErr)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("result %d: %+v, the reference %+v", i, got[i], want[i])
			}
		}
		var ie *InputError
		switch {
		case (err == nil) != (wantErr == nil):
			t.Fatalf("error %v, the reference's %v", err, wantErr)
		case err != nil && (!errors.As(err, &ie) || fmt.Sprintf("%d: %s", ie.Line, ie.Msg) != wantErr.Error()):
			if !(ie != nil && bytes.Contains([]byte(wantErr.Error()), []byte("not one trace per line")) && ie.Line == 1) {
				t.Fatalf("error %v, the reference's %v", err, wantErr)
			}
		}
	})
}
