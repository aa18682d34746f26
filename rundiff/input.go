// input.go: reading the result sets the engine writes — JSON reports and watch's result lines — one
// result at a time.

package rundiff

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"attest-engine/tape"
)

// maxInputLine bounds one line of an input: a JSON report's trace with all its results, or a result line.
const maxInputLine = 64 << 20

// result is one result of a run, as diff reads it.
type result struct {
	caseKey   string  // what was evaluated: case_key, else the trace's name or trace_id
	assertion string  // what checked it: assertion_key, else the assertion's id and type, or its suite name
	label     string  // how a person names the assertion: its id or suite name
	typ       string  // the assertion type
	status    string  // pass, soft_fail, hard_fail, skipped, error
	score     float64 // 0 when the result has none
	repeat    int64   // the run's repeat when the result names one, else -1
	// A watch result line's result_id and the result_id it supersedes ("" when it names none): watch may
	// write a line twice (the same result_id) and writes a late verdict that replaces an earlier one.
	resultID, supersedes string
}

// comparable reports whether a result has a verdict to compare: skipped and error results have none.
func (r *result) comparable() bool {
	return r.status == "pass" || r.status == "soft_fail" || r.status == "hard_fail"
}

// InputError is an input diff cannot read, with where.
type InputError struct {
	Path string
	Line int // 1-based; 0 when the whole input is at fault
	Msg  string
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// readResults calls fn with every result of the run at path, in order. The format is read from the
// first line: a JSON report (eval --format json, the server's --report x.json) opens with
// {"format_version":…,"traces":[ and holds one trace per line; anything else is read as NDJSON result
// lines (watch's output).
//
// A run is read twice when results have no pair (to name them), so it must be a regular file: a pipe would
// be empty the second time, and opening a FIFO again would wait for a writer for good. It is checked before
// the file is opened (a FIFO's open blocks) and again once it is.
func readResults(path string, fn func(*result) error) error {
	if err := regular(path, os.Stat); err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return &InputError{Path: path, Msg: err.Error()}
	}
	defer f.Close()
	if err := regular(path, func(string) (os.FileInfo, error) { return f.Stat() }); err != nil {
		return err
	}
	return scanResults(path, f, fn)
}

// regular refuses a path that is not a regular file, as stat reports it.
func regular(path string, stat func(string) (os.FileInfo, error)) error {
	st, err := stat(path)
	switch {
	case err != nil:
		return &InputError{Path: path, Msg: err.Error()}
	case st.IsDir():
		return &InputError{Path: path, Msg: "a directory: diff reads a JSON report or result lines (a state dir's history keeps summaries, not results)"}
	case !st.Mode().IsRegular():
		return &InputError{Path: path, Msg: "not a regular file (a pipe or a device): diff reads a run twice, to name the results with no pair; write it to a file first"}
	}
	return nil
}

func scanResults(path string, r io.Reader, fn func(*result) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	lineNo := 0
	report := false
	var res result
	for {
		line, err := readLine(br)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return &InputError{Path: path, Line: lineNo + 1, Msg: err.Error()}
		}
		lineNo++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if lineNo == 1 && bytes.HasPrefix(line, []byte(`{"format_version":`)) {
			if !bytes.HasSuffix(line, []byte(`"traces":[`)) {
				return &InputError{Path: path, Line: 1, Msg: "a JSON report that is not one trace per line, as the engine writes it"}
			}
			report = true
			continue
		}
		if report {
			if line[0] == ']' { // the totals: the traces are over
				return nil
			}
			line = bytes.TrimSuffix(line, []byte(","))
		}
		doc, err := tape.ParseUnique(line)
		if err != nil {
			return &InputError{Path: path, Line: lineNo, Msg: err.Error()}
		}
		if report {
			err = traceResults(doc.Root(), &res, fn)
		} else {
			err = lineResult(doc.Root(), &res)
			if err == nil {
				err = fn(&res)
			}
		}
		doc.Release()
		if err != nil {
			var ie *InputError
			if errors.As(err, &ie) {
				return err
			}
			return &InputError{Path: path, Line: lineNo, Msg: err.Error()}
		}
	}
}

// readLine reads one line without its newline, at most maxInputLine bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == nil || (errors.Is(err, io.EOF) && len(line) > 0) {
		return line, nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	buf := append([]byte(nil), line...)
	for {
		more, err := br.ReadSlice('\n')
		buf = append(buf, more...)
		if len(buf) > maxInputLine {
			return nil, fmt.Errorf("a line longer than %d bytes", maxInputLine)
		}
		if err == nil || (errors.Is(err, io.EOF) && len(buf) > 0) {
			return buf, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

// traceResults reads one trace of a JSON report: {"name","trace_id","case_key"?,…,"results":[…]}.
func traceResults(t tape.Value, res *result, fn func(*result) error) error {
	if t.Kind() != tape.Object {
		return errors.New("a trace of the report is not an object")
	}
	caseKey := str(t.Get("case_key"))
	if caseKey == "" {
		name := str(t.Get("name"))
		if name == "" {
			name = str(t.Get("trace_id"))
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
		id := str(r.Get("assertion_id"))
		// The key's label where the engine wrote one (the id differs from run to run), else the id.
		*res = result{caseKey: cmp.Or(str(r.Get("case_key")), caseKey), label: cmp.Or(str(r.Get("label")), id), typ: str(r.Get("type")), status: str(r.Get("status"))}
		res.assertion = str(r.Get("assertion_key"))
		if res.assertion == "" {
			res.assertion = "assertion_id:" + id + "/" + res.typ
		}
		if err := common(r, res); err != nil {
			return err
		}
		if err := fn(res); err != nil {
			return err
		}
	}
	return nil
}

// lineResult reads one result line of watch: {"trace_id","assertion","type","status","score",…}.
func lineResult(l tape.Value, res *result) error {
	if l.Kind() != tape.Object {
		return errors.New("a result line is not a JSON object")
	}
	*res = result{label: str(l.Get("assertion")), typ: str(l.Get("type")), status: str(l.Get("status"))}
	if res.label == "" {
		return errors.New(`a result line without "assertion" (diff reads watch's result lines and the engine's JSON reports)`)
	}
	res.caseKey = str(l.Get("case_key"))
	if res.caseKey == "" {
		res.caseKey = "trace:" + str(l.Get("trace_id"))
	}
	res.assertion = str(l.Get("assertion_key"))
	if res.assertion == "" {
		res.assertion = "assertion:" + res.label
	}
	res.resultID, res.supersedes = str(l.Get("result_id")), str(l.Get("supersedes"))
	return common(l, res)
}

// common reads what both layouts share: the status, the score and the repeat.
func common(v tape.Value, res *result) error {
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

// str is a string member's text, "" for anything else.
func str(v tape.Value) string {
	if v.Kind() != tape.String {
		return ""
	}
	return v.Str()
}
