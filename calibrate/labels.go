// labels.go: the labels file: one labelled item a line, each human label read as pass or fail and, when numeric, as a score.

package calibrate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"attest-engine/tape"
)

// Bounds of a labels file.
const (
	maxLineBytes = 16 << 20
	maxItems     = 100_000
	maxRaters    = 1000
)

// maxLabelsBytes bounds a whole labels file: its items are held in memory
// until every judge has judged them. A variable for the tests.
var maxLabelsBytes = 1 << 30

// item is one labelled item.
type item struct {
	line      int
	doc       *tape.Doc
	size      int
	assertion string  // "" for every judge
	consensus *rating // nil: from the raters
	raters    []rating
}

// rating is one human label: pass or fail, and a score when numeric.
type rating struct {
	pass    bool    // for a numeric label: decided against each judge's threshold
	score   float64 // numeric labels only
	numeric bool
}

// passAt is the rating as pass or fail at a judge's threshold.
func (r rating) passAt(threshold float64) bool {
	if r.numeric {
		return r.score >= threshold
	}
	return r.pass
}

// readLabels reads every item of a labels file.
func readLabels(r io.Reader, file string) ([]item, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var items []item
	total := 0
	for n := 1; ; n++ {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) && len(line) == 0 {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: line %d: %v", file, n, err)
		}
		if total += len(line); err == nil {
			total++ // its LF
		}
		if total > maxLabelsBytes {
			return nil, fmt.Errorf("%s: line %d: the file is larger than %d bytes", file, n, maxLabelsBytes)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		it, perr := parseItem(line)
		if perr != nil {
			return nil, fmt.Errorf("%s: line %d: %v", file, n, perr)
		}
		it.line = n
		if len(items) == maxItems {
			return nil, fmt.Errorf("%s: more than %d items", file, maxItems)
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%s: no labelled items", file)
	}
	return items, nil
}

// readLine reads one line of at most maxLineBytes, without its LF.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > maxLineBytes+1 {
			return nil, fmt.Errorf("longer than %d bytes", maxLineBytes)
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return bytes.TrimSuffix(buf, []byte("\n")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return buf, err
		}
	}
}

func parseItem(line []byte) (item, error) {
	doc, err := tape.ParseUnique(bytes.Clone(line))
	if err != nil {
		return item{}, fmt.Errorf("not JSON: %v", err)
	}
	root := doc.Root()
	if root.Kind() != tape.Object {
		return item{}, errors.New("want a JSON object {\"trace\": {…}, \"label\": …}")
	}
	it := item{size: len(line)}
	tr := root.Get("trace")
	if tr.Kind() != tape.Object {
		return item{}, errors.New("\"trace\" must be a trace object")
	}
	// The trace alone, as its own document: validation measures it.
	text := bytes.Clone(tr.Text())
	if it.doc, err = tape.ParseUnique(text); err != nil {
		return item{}, fmt.Errorf("trace: %v", err)
	}
	it.size = len(text)
	if a := root.Get("assertion"); a.Exists() {
		if a.Kind() != tape.String {
			return item{}, errors.New("\"assertion\" must be a string")
		}
		it.assertion = a.Str()
	}
	if l := root.Get("label"); l.Exists() {
		r, err := readRating(l.Any())
		if err != nil {
			return item{}, fmt.Errorf("label: %v", err)
		}
		it.consensus = &r
	}
	if ls := root.Get("labels"); ls.Exists() {
		list, ok := ls.Any().([]any)
		if !ok || len(list) == 0 || len(list) > maxRaters {
			return item{}, fmt.Errorf("\"labels\" must be a list of 1 to %d labels", maxRaters)
		}
		for i, v := range list {
			r, err := readRating(v)
			if err != nil {
				return item{}, fmt.Errorf("labels[%d]: %v", i, err)
			}
			it.raters = append(it.raters, r)
		}
	}
	if it.consensus == nil && len(it.raters) == 0 {
		return item{}, errors.New("no \"label\" or \"labels\"")
	}
	return it, nil
}

// readRating reads true, false, "pass", "fail" or a number within 0..1.
func readRating(v any) (rating, error) {
	switch x := v.(type) {
	case bool:
		return rating{pass: x}, nil
	case string:
		switch x {
		case "pass":
			return rating{pass: true}, nil
		case "fail":
			return rating{}, nil
		}
	default:
		if f, ok := number(x); ok && f >= 0 && f <= 1 {
			return rating{score: f, numeric: true}, nil
		}
	}
	return rating{}, errors.New(`want true, false, "pass", "fail" or a number from 0 to 1`)
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}
