// input.go: reading the result sets the engine writes — JSON reports and watch's result lines — one
// result at a time.

package rundiff

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"attest-engine/tape"
)

// maxInputLine bounds one line of an input: a JSON report's trace with all its results, or a result line.
const maxInputLine = 64 << 20

// result is one result of a run, as diff reads it. Its texts are decoded JSON strings that stay valid only
// until the reader's next result: they are slices of the line or of the reader's scratch.
type result struct {
	caseKey   []byte  // what was evaluated: case_key, else "trace:" and the trace's name or trace_id
	assertion []byte  // what checked it: assertion_key, else the assertion's id and type, or its suite name
	label     lazy    // how a person names the assertion: its label, id or suite name
	typ       lazy    // the assertion type
	status    status  // pass, soft_fail, hard_fail, skipped, error
	score     float64 // 0 when the result has none
	repeat    int64   // the run's repeat when the result names one, else -1
	// A watch result line's result_id and the result_id it supersedes (empty when it names none): watch
	// may write a line twice (the same result_id) and writes a late verdict that replaces an earlier one.
	resultID, supersedes []byte
}

// status is a result's status, one of the engine's five.
type status uint8

const (
	statusNone status = iota // not one of the five
	statusPass
	statusSoftFail
	statusHardFail
	statusSkipped
	statusError
)

var statusNames = [...]string{statusNone: "", statusPass: "pass", statusSoftFail: "soft_fail", statusHardFail: "hard_fail", statusSkipped: "skipped", statusError: "error"}

func (s status) String() string { return statusNames[s] }

// parseStatus is the status named b, statusNone for any other text.
func parseStatus(b []byte) status {
	for s := statusPass; s <= statusError; s++ {
		if string(b) == statusNames[s] {
			return s
		}
	}
	return statusNone
}

// comparable reports whether a result has a verdict to compare: skipped and error results have none.
func (r *result) comparable() bool {
	return r.status == statusPass || r.status == statusSoftFail || r.status == statusHardFail
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

// markEvery is how far apart, in bytes of input, the reader notes where a line starts (a mark): a second
// read of the run (to name the results with no pair) starts at the mark before each result it wants.
var markEvery int64 = 1 << 20

// mark is where a line of a run starts: a later read may start there.
type mark struct {
	offset int64 // the line's first byte
	line   int   // lines before it
	pos    int32 // results before it
}

// source is a run's file as the first read found it: its marks, its format, and what the second read
// checks to know that the file did not change in between.
type source struct {
	path    string
	report  bool // a JSON report, not result lines
	marks   []mark
	size    int64
	modTime time.Time
}

// readResults calls fn with every result of the run at path, in order. The format is read from the
// first line: a JSON report (eval --format json, the server's --report x.json) opens with
// {"format_version":…,"traces":[ and holds one trace per line; anything else is read as NDJSON result
// lines (watch's output).
//
// A run is read twice when results have no pair (to name them), so it must be a regular file: a pipe would
// be empty the second time, and opening a FIFO again would wait for a writer for good. It is checked before
// the file is opened (a FIFO's open blocks) and again once it is.
func readResults(path string, fn func(*result) error) (*source, error) {
	if _, err := regular(path, os.Stat); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &InputError{Path: path, Msg: err.Error()}
	}
	defer f.Close()
	st, err := regular(path, func(string) (os.FileInfo, error) { return f.Stat() })
	if err != nil {
		return nil, err
	}
	src := &source{path: path, size: st.Size(), modTime: st.ModTime()}
	sc := scanner{src: src, noteMarks: true}
	return src, sc.scan(f, mark{}, fn)
}

// regular refuses a path that is not a regular file, as stat reports it.
func regular(path string, stat func(string) (os.FileInfo, error)) (os.FileInfo, error) {
	st, err := stat(path)
	switch {
	case err != nil:
		return nil, &InputError{Path: path, Msg: err.Error()}
	case st.IsDir():
		return nil, &InputError{Path: path, Msg: "a directory: diff reads a JSON report or result lines (a state dir's history keeps summaries, not results)"}
	case !st.Mode().IsRegular():
		return nil, &InputError{Path: path, Msg: "not a regular file (a pipe or a device): diff reads a run twice, to name the results with no pair; write it to a file first"}
	}
	return st, nil
}

// errStop ends a read early: what it was for is done.
var errStop = errors.New("stop")

// errChanged is the error of a run that changed between its two reads.
const errChanged = "changed while diff read it: read again, it no longer holds the results with no pair"

// reread calls fn with the results of the run at the given positions (sorted, each once) and their
// positions, reading from the mark before each and stopping past the last: a handful of results with no
// pair costs about a megabyte of input each, not the whole run again.
func (src *source) reread(positions []int32, fn func(pos int32, res *result)) error {
	if len(positions) == 0 {
		return nil
	}
	if _, err := regular(src.path, os.Stat); err != nil {
		return err
	}
	f, err := os.Open(src.path)
	if err != nil {
		return &InputError{Path: src.path, Msg: err.Error()}
	}
	defer f.Close()
	st, err := regular(src.path, func(string) (os.FileInfo, error) { return f.Stat() })
	if err != nil {
		return err
	}
	if st.Size() != src.size || !st.ModTime().Equal(src.modTime) {
		return &InputError{Path: src.path, Msg: errChanged}
	}
	for i := 0; i < len(positions); {
		// The last mark at or before the position wanted.
		m := sort.Search(len(src.marks), func(j int) bool { return src.marks[j].pos > positions[i] }) - 1
		from := mark{}
		if m >= 0 {
			from = src.marks[m]
		}
		if _, err := f.Seek(from.offset, io.SeekStart); err != nil {
			return &InputError{Path: src.path, Msg: err.Error()}
		}
		pos := from.pos
		sc := scanner{src: src}
		err := sc.scan(f, from, func(res *result) error {
			if pos == positions[i] {
				fn(pos, res)
				if i++; i == len(positions) || m+1 < len(src.marks) && positions[i] >= src.marks[m+1].pos {
					return errStop
				}
			}
			pos++
			return nil
		})
		if err == nil {
			return &InputError{Path: src.path, Msg: errChanged}
		}
		if err != errStop {
			return err
		}
	}
	return nil
}

// scanner reads one run from a mark on, a line at a time.
type scanner struct {
	src       *source
	noteMarks bool // note marks (the first read)
	fields    fields
}

// scanResults reads the run in r from its start; path names it in errors.
func scanResults(path string, r io.Reader, fn func(*result) error) error {
	sc := scanner{src: &source{path: path}}
	return sc.scan(r, mark{}, fn)
}

func (sc *scanner) scan(r io.Reader, from mark, fn func(*result) error) error {
	path := sc.src.path
	br := bufio.NewReaderSize(r, 1<<20)
	lineNo, offset, pos := from.line, from.offset, from.pos
	next := offset // where the next mark may be noted
	count := func(res *result) error {
		pos++
		return fn(res)
	}
	for {
		if sc.noteMarks && offset >= next && lineNo > 0 {
			sc.src.marks = append(sc.src.marks, mark{offset: offset, line: lineNo, pos: pos})
			next = offset + markEvery
		}
		line, err := readLine(br)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return &InputError{Path: path, Line: lineNo + 1, Msg: err.Error()}
		}
		lineNo++
		offset += int64(len(line))
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if lineNo == 1 && bytes.HasPrefix(line, []byte(`{"format_version":`)) {
			if !bytes.HasSuffix(line, []byte(`"traces":[`)) {
				return &InputError{Path: path, Line: 1, Msg: "a JSON report that is not one trace per line, as the engine writes it"}
			}
			sc.src.report = true
			continue
		}
		if sc.src.report {
			if line[0] == ']' { // the totals: the traces are over
				return nil
			}
			line = bytes.TrimSuffix(line, []byte(","))
		}
		doc, err := tape.ParseUnique(line)
		if err != nil {
			return &InputError{Path: path, Line: lineNo, Msg: err.Error()}
		}
		if sc.src.report {
			err = sc.fields.trace(doc.Root(), count)
		} else {
			var res *result
			if res, err = sc.fields.line(doc.Root()); err == nil {
				err = count(res)
			}
		}
		doc.Release()
		if err != nil {
			var ie *InputError
			if errors.As(err, &ie) {
				return err
			}
			if err == errStop {
				return err
			}
			return &InputError{Path: path, Line: lineNo, Msg: err.Error()}
		}
	}
}

// readLine reads one line with its newline, at most maxInputLine bytes.
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
