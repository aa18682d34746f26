// reader.go: NDJSON input read line by line under a size bound, each line an Attest trace or an OTLP/JSON request.

package ingest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"attest-engine/tape"
	"attest-engine/trace"
)

// Formats of input lines.
const (
	FormatAuto   = "auto"
	FormatAttest = "attest"
	FormatOTLP   = "otlp"
	// FormatOTLPLogs: each line an OTLP/JSON ExportLogsServiceRequest
	// (logs.go); with FormatAuto a line whose first member is resourceLogs.
	FormatOTLPLogs = "otlp-logs"
)

// Item is one input line read: an Attest trace, or the spans of an OTLP
// request (for the assembler). An unreadable line is a Trace with Err,
// whose text does not name the line (so that the same line gives the same
// result wherever it is); Line does.
type Item struct {
	Line int // the input line (1-based), for messages
	// Part counts the items of one line or request from 0: an OTLP request
	// whose spans hold more than a chunk comes as several items
	// ([Reader.Each], [ParseOTLPChunks]).
	Part int
	// More: further items of the same line or request follow this one.
	More  bool
	Seq   uint64 // set by the caller: the item's position in its input, for Trace.Seq
	End   int64  // bytes the Reader had read through this line, its LF included
	Trace *Trace // an Attest trace, or a line that could not be read (Trace.Err)
	Spans []Span
}

// Reader reads NDJSON lines; memory holds one line of at most Max bytes.
// A longer line is read to its end and skipped, reported as an error item.
type Reader struct {
	r      *bufio.Reader
	format string
	max    int
	line   int
	off    int64 // bytes read so far
	buf    []byte
	// Chunk, when > 0, bounds the memory (Span.Size) of the spans of one
	// item from Each: a larger OTLP request comes in several.
	Chunk int
}

// NewReader reads lines of format (FormatAuto decides per line) from r.
func NewReader(r io.Reader, format string, max int) *Reader {
	if max <= 0 {
		max = trace.MaxLineBytes
	}
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), format: format, max: max}
}

// ErrLineTooLong is the error of an item whose line exceeded the bound.
var ErrLineTooLong = errors.New("input line too long")

// Next returns the next line's item, or io.EOF at the end of input. Errors
// other than io.EOF come from the underlying reader; a bad line is an item.
func (r *Reader) Next() (Item, error) {
	var it Item
	err := r.each(0, func(i Item) error { it = i; return nil })
	return it, err
}

// Each reads the next line and passes its items to emit: one, or for an
// OTLP line whose spans hold more than Chunk bytes, one per chunk, in
// order (ParseOTLPChunks: nothing of a line that does not decode but its
// error item). The line's buffer is reused by the next call, so memory
// holds one line and a chunk or two, not the line's spans. It returns
// io.EOF at the end of input, an error of the underlying reader, or emit's.
func (r *Reader) Each(emit func(Item) error) error { return r.each(r.Chunk, emit) }

func (r *Reader) each(chunk int, emit func(Item) error) error {
	for {
		line, size, err := r.readLine()
		if err != nil && (size == 0 || !errors.Is(err, io.EOF)) {
			return err
		}
		r.line++
		if size > r.max {
			held := line[:min(len(line), r.max)]
			return emit(Item{Line: r.line, End: r.off, Trace: &Trace{Size: size, Digest: digest(held, size),
				Err: fmt.Errorf("%w: %d bytes, more than %d", ErrLineTooLong, size, r.max)}})
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			if err != nil {
				return err
			}
			continue
		}
		return r.parse(line, size, chunk, emit)
	}
}

// readLine reads to the next LF, keeping the line's first max+1 bytes at
// most (a line within the bound and its LF).
func (r *Reader) readLine() ([]byte, int, error) {
	r.buf = r.buf[:0]
	size := 0
	for {
		chunk, err := r.r.ReadSlice('\n')
		size += len(chunk)
		r.off += int64(len(chunk))
		if keep := min(len(chunk), r.max+1-len(r.buf)); keep > 0 {
			r.buf = append(r.buf, chunk[:keep]...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			return r.buf, size, err
		}
		// The LF is not part of the line's size.
		return r.buf, size - 1, nil
	}
}

func (r *Reader) parse(line []byte, size, chunk int, emit func(Item) error) error {
	it := Item{Line: r.line, End: r.off}
	format := r.format
	if format == FormatAuto || format == "" {
		format = FormatAttest
		switch {
		case looksOTLP(line, "resourceSpans"):
			format = FormatOTLP
		case looksOTLP(line, "resourceLogs"):
			format = FormatOTLPLogs
		}
	}
	if format == FormatOTLP || format == FormatOTLPLogs {
		if chunk <= 0 {
			chunk = math.MaxInt
		}
		parse := ParseOTLPChunks
		if format == FormatOTLPLogs {
			parse = ParseOTLPLogsChunks
		}
		var emitErr error
		err := parse(line, chunk, func(spans []Span, more bool) error {
			part := it
			part.Spans, part.More = spans, more
			it.Part++
			emitErr = emit(part)
			return emitErr
		})
		switch {
		case emitErr != nil:
			return emitErr
		case err != nil:
			it.Trace = &Trace{Err: err, Format: FormatOTLP, Size: size, Digest: digest(line, size)}
			return emit(it)
		case it.Part == 0: // no spans: an item all the same, the line counted
			return emit(it)
		}
		return nil
	}
	t := ParseAttest(line)
	if t.Err != nil {
		t.Digest = digest(line, size)
	}
	it.Trace = &t
	return emit(it)
}

// looksOTLP: the line is an object whose first member is first
// (resourceSpans or resourceLogs), as every OTLP/JSON exporter writes it.
func looksOTLP(line []byte, first string) bool {
	rest, ok := bytes.CutPrefix(line, []byte("{"))
	return ok && bytes.HasPrefix(bytes.TrimLeft(rest, " \t\r\n"), []byte(`"`+first+`"`))
}

// ParseAttest reads one Attest trace (spec §3.1) with the engine's own
// decoder. Validation (spec §7) is the caller's, as for any trace.
func ParseAttest(line []byte) Trace {
	t := Trace{Format: FormatAttest, Size: len(line), ContentCaptured: true, TokensCaptured: true, CostCaptured: true, ToolsCaptured: true}
	// The line is the reader's buffer, reused for the next line: the
	// trace keeps a copy.
	doc, err := tape.ParseUnique(bytes.Clone(line)) // a duplicate member name: refused, as everywhere
	if err != nil {
		t.Err = err
		return t
	}
	// Evaluation reads the tape in place: only what routing needs (the
	// shard and sample key, the agent filter) is read out here.
	root := doc.Root()
	if root.Kind() != tape.Object {
		t.Err = fmt.Errorf("a trace must be a JSON object, got %s", trace.Kind(root.Any()))
		doc.Release()
		return t
	}
	t.Doc = doc
	if id := root.Get("trace_id"); id.Kind() == tape.String {
		t.ID = id.Str()
	}
	if agent := root.Get("agent_id"); agent.Kind() == tape.String {
		t.AgentID = agent.Str()
	}
	return t
}

// digest names an unreadable line by its text (for a line too long to
// hold, by its first max bytes and its full size).
func digest(line []byte, size int) string {
	h := sha256.New()
	h.Write(line)
	h.Write([]byte(strconv.Itoa(size)))
	return hex.EncodeToString(h.Sum(nil)[:16])
}
