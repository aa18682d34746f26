// input.go: the eval command's input files: NDJSON or one document, and the forms of an assertions file.

package eval

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"attest-engine/assert"
	"attest-engine/tape"
	"attest-engine/trace"
)

// maxAssertionsBytes bounds an assertions document, or one line of them.
const maxAssertionsBytes = 64 << 20

// inputError is bad input: the run stops with exit status 2.
type inputError struct {
	file string
	line int // 0 when the problem is not on one line
	msg  string
}

func (e *inputError) Error() string {
	if e.line > 0 {
		return fmt.Sprintf("%s: line %d: %s", e.file, e.line, e.msg)
	}
	return e.file + ": " + e.msg
}

// doc is one JSON document of an input file.
type doc struct {
	tv      tape.Value // the document, read in place
	parsed  *tape.Doc  // tv's Doc: released once the document is evaluated
	line    int        // the line it starts on, 1-based
	tooLong bool       // larger than the limit: tv is Missing
	size    int        // the length of its text
	// bad is why a line of an NDJSON file is not a JSON document (a
	// lenient reader's: the trace file's); tv is then Missing.
	bad string
}

// docReader reads the JSON documents of a file that is either NDJSON (one
// document per line, blank lines skipped) or one document over many lines.
// The first non-blank line decides: when it is a whole JSON document the
// file is NDJSON, and otherwise the whole file is one document. So a file of
// one line is one document either way, and memory holds at most one
// document, of at most max bytes.
type docReader struct {
	file string
	lr   *lineReader
	max  int
	line int // lines read so far
	mode int
	// lenient returns a line of an NDJSON file that is not JSON (a
	// repeated key, say) as a doc with bad set, and goes on to the next
	// line; otherwise that line is an *inputError that ends the file.
	lenient bool
}

const (
	modeUnknown = iota
	modeNDJSON
	modeDone
)

func newDocReader(r io.Reader, file string, max int) *docReader {
	return &docReader{file: file, lr: newLineReader(r, max), max: max}
}

// next returns the next document, io.EOF after the last, or an *inputError.
func (d *docReader) next() (doc, error) {
	for d.mode != modeDone {
		line, size, tooLong, err := d.lr.next()
		if err != nil {
			d.mode = modeDone
			if errors.Is(err, io.EOF) {
				break
			}
			return doc{}, &inputError{file: d.file, msg: err.Error()}
		}
		d.line++
		if tooLong {
			d.mode = modeNDJSON
			return doc{line: d.line, tooLong: true, size: size}, nil
		}
		if isBlank(line) {
			continue
		}
		// The line is the reader's buffer, reused by the next call: the
		// document keeps a copy.
		pd, derr := tape.ParseUnique(bytes.Clone(line))
		if derr == nil {
			d.mode = modeNDJSON
			return doc{tv: pd.Root(), parsed: pd, line: d.line, size: len(line)}, nil
		}
		if d.mode == modeNDJSON || d.lenient && wholeValue(derr) {
			d.mode = modeNDJSON
			if d.lenient {
				return doc{line: d.line, size: len(line), bad: "not JSON: " + derr.Error()}, nil
			}
			d.mode = modeDone
			return doc{}, &inputError{file: d.file, line: d.line, msg: "not JSON: " + derr.Error()}
		}
		return d.whole(line, derr)
	}
	return doc{}, io.EOF
}

// wholeValue reports whether a line that failed to parse is nonetheless
// one whole JSON value: it repeats a member name, or more follows a value
// that ended on the line. Such a line cannot be the start of a document
// spread over many lines, so a lenient reader takes the file as NDJSON
// from its first line; a line cut short can be, and is read as such.
func wholeValue(err error) bool {
	var de *tape.DuplicateKeyError
	var se *tape.SyntaxError
	return errors.As(err, &de) || errors.As(err, &se) && se.Msg == tape.MsgTrailingData
}

// whole reads the rest of the file as one document that starts with first.
func (d *docReader) whole(first []byte, firstErr error) (doc, error) {
	d.mode = modeDone
	start := d.line
	buf := append(append([]byte(nil), first...), '\n')
	total := len(buf)
	for {
		line, size, _, err := d.lr.next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return doc{}, &inputError{file: d.file, msg: err.Error()}
			}
			break
		}
		d.line++
		total += size + 1
		if buf != nil && total <= d.max {
			buf = append(append(buf, line...), '\n')
		} else {
			buf = nil // too large: go on only to measure it
		}
	}
	if buf == nil {
		return doc{line: start, tooLong: true, size: total}, nil
	}
	pd, err := tape.ParseUnique(buf)
	if err != nil {
		at := start
		var se *trace.SyntaxError
		if errors.As(err, &se) {
			at += bytes.Count(buf[:min(se.Offset, len(buf))], []byte("\n"))
		}
		if at == start { // read either way, the first line is where it breaks
			return doc{}, &inputError{file: d.file, line: start, msg: "not JSON: " + firstErr.Error()}
		}
		return doc{}, &inputError{file: d.file, msg: fmt.Sprintf("not JSON: neither one JSON document (line %d: %v) nor NDJSON (line %d: %v)", at, err, start, firstErr)}
	}
	return doc{tv: pd.Root(), parsed: pd, line: start, size: len(buf)}, nil
}

// value is the document decoded.
func (d doc) value() any { return d.tv.Any() }

// assertionSource hands out each trace's assertion list. An assertions file
// is one of:
//
//   - one JSON list of assertion objects (the evaluate_batch "assertions"
//     shape): applied to every trace; [] evaluates nothing, only validates;
//   - one JSON list of lists: list i for trace i;
//   - NDJSON of two or more lines, each a list: line i for trace i, read in
//     step with the traces, never held whole.
//
// A one-line file is one document. A list is a list of lists when any of
// its entries is a list, and then all must be. The number of lists must
// match the number of traces. The shape of the file is checked here (bad
// input); each assertion object is read as evaluate_batch reads it, and an
// object it rejects is an ASSERTION_ERROR of the trace, as on the wire.
type assertionSource struct {
	file   string
	shared *assertionList
	lists  []any      // per-trace lists from one document
	stream *docReader // per-trace lists, one per line
	ahead  []doc      // lines read while telling the forms apart
	count  int        // per-trace lists handed out
}

type assertionList struct {
	list []assert.Assertion
	err  error // why the list cannot be evaluated (*assert.Error)
}

const assertionsShape = "want a JSON list of assertion objects, a list of such lists, or NDJSON with one list per line"

func readAssertions(r io.Reader, file string) (*assertionSource, error) {
	src := &assertionSource{file: file}
	dr := newDocReader(r, file, maxAssertionsBytes)
	first, err := dr.next()
	if errors.Is(err, io.EOF) {
		return nil, &inputError{file: file, msg: "empty: " + assertionsShape}
	}
	if err != nil {
		return nil, err
	}
	second, err := dr.next()
	switch {
	case errors.Is(err, io.EOF): // one document
	case err != nil:
		return nil, err
	default:
		src.stream, src.ahead = dr, []doc{first, second}
		return src, nil
	}
	if first.tooLong {
		return nil, &inputError{file: file, msg: fmt.Sprintf("larger than %d bytes", maxAssertionsBytes)}
	}
	list, ok := first.value().([]any)
	if !ok {
		return nil, &inputError{file: file, msg: "holds a JSON " + trace.Kind(first.value()) + ": " + assertionsShape}
	}
	lists := 0
	for _, e := range list {
		if _, ok := e.([]any); ok {
			lists++
		}
	}
	switch lists {
	case 0:
		al := toAssertions(list)
		src.shared = &al
	case len(list):
		src.lists = list
	default:
		return nil, &inputError{file: file, msg: "mixes lists and assertion objects: " + assertionsShape}
	}
	return src, nil
}

// forTrace returns the assertions of trace i (0-based, asked in order).
func (s *assertionSource) forTrace(i int) (assertionList, error) {
	if s.shared != nil {
		return *s.shared, nil
	}
	s.count++
	if s.lists != nil {
		if i >= len(s.lists) {
			return assertionList{}, &inputError{file: s.file, msg: fmt.Sprintf("holds %d assertion lists, but the trace file has more traces", len(s.lists))}
		}
		return toAssertions(s.lists[i].([]any)), nil
	}
	d, err := s.nextLine()
	if errors.Is(err, io.EOF) {
		return assertionList{}, &inputError{file: s.file, msg: fmt.Sprintf("holds %d assertion lists, but the trace file has more traces", i)}
	}
	if err != nil {
		return assertionList{}, err
	}
	if d.tooLong {
		return assertionList{}, &inputError{file: s.file, line: d.line, msg: fmt.Sprintf("longer than %d bytes", maxAssertionsBytes)}
	}
	list, ok := d.value().([]any)
	if !ok {
		return assertionList{}, &inputError{file: s.file, line: d.line, msg: "holds a JSON " + trace.Kind(d.value()) + ": want one list of assertion objects per line"}
	}
	return toAssertions(list), nil
}

// finish checks, after n traces, that no assertion list was left over.
func (s *assertionSource) finish(n int) error {
	switch {
	case s.lists != nil && n < len(s.lists):
		return &inputError{file: s.file, msg: fmt.Sprintf("holds %d assertion lists, but the trace file has %d %s", len(s.lists), n, plural(n, "trace"))}
	case s.stream != nil:
		if _, err := s.nextLine(); !errors.Is(err, io.EOF) {
			return &inputError{file: s.file, msg: fmt.Sprintf("holds more assertion lists than the trace file's %d %s", n, plural(n, "trace"))}
		}
	}
	return nil
}

func (s *assertionSource) nextLine() (doc, error) {
	if len(s.ahead) > 0 {
		d := s.ahead[0]
		s.ahead = s.ahead[1:]
		return d, nil
	}
	return s.stream.next()
}

// toAssertions reads a list as evaluate_batch reads its assertions.
func toAssertions(list []any) assertionList {
	as, err := assert.Parse(list)
	return assertionList{list: as, err: err}
}

func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// lineReader reads LF-terminated lines, holding at most max bytes of any one
// line in memory: a longer line is read to its end and reported too long,
// with its full length. (The server's reader, rpc/framing.go, adds a chunked
// buffer for the many large requests of a session; a run here reads one
// trace at a time.)
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its LF, valid until the next call;
// when the line exceeded the limit, tooLong is true and size is its full
// length. At end of input err is io.EOF (a final line without LF is still
// returned first).
func (lr *lineReader) next() (line []byte, size int, tooLong bool, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		size += len(chunk)
		if !tooLong {
			if len(lr.buf)+len(chunk) > lr.max+1 { // +1: the LF itself
				tooLong, lr.buf = true, lr.buf[:0]
			} else {
				lr.buf = append(lr.buf, chunk...)
			}
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			size-- // the LF
			return bytes.TrimSuffix(lr.buf, []byte("\n")), size, tooLong, nil
		default:
			if size == 0 {
				return nil, 0, false, err
			}
			// The +1 allowance above is for an LF; a last line has none,
			// so one byte past the limit is too long here.
			if !tooLong && size > lr.max {
				tooLong, lr.buf = true, lr.buf[:0]
			}
			return lr.buf, size, tooLong, nil // last line without LF; EOF comes next call
		}
	}
}
