// target.go: path resolution shared by the layers: parse once, cache, select against the trace.

package assert

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"attest-engine/jsonpath"
	"attest-engine/lru"
	"attest-engine/tape"
)

// pathCacheSize bounds the cache of parsed paths. The compile cache already
// keeps each compiled check; this one lets different specs that name the
// same path (many content checks on output.message) share one parse.
const pathCacheSize = 1024

var parsedPaths = lru.New[string, *jsonpath.Path](pathCacheSize)

// target is a parsed path of a spec field, with the text as written, which
// explanations use to name it (spec §2.2: "output.message contains ...").
type target struct {
	expr string
	path *jsonpath.Path
}

// pathExamples is the supported subset, named in error details.
const pathExamples = "Supported forms include output.message, output.structured.<field>, metadata.cost_usd, steps.length, steps[?type=='tool_call'].length and steps[?name=='<name>'].result."

// parseTarget reads the required path field name of s (spec §4: target,
// field). A path outside the subset is spec §5's "unsupported JSONPath
// expression", an ASSERTION_ERROR.
func parseTarget(s spec, name string) (target, error) {
	expr, err := s.str(name, true)
	if err != nil {
		return target{}, err
	}
	if p, ok := parsedPaths.Get(expr); ok {
		return target{expr, p}, nil
	}
	p, err := jsonpath.Parse(expr)
	if err != nil {
		var se *jsonpath.SyntaxError
		if errors.As(err, &se) {
			return target{}, specErrorf(fmt.Sprintf("Syntax error at offset %d of '%s': %s. %s", se.Offset, name, se.Msg, pathExamples),
				"unsupported JSONPath expression '%s'", expr)
		}
		return target{}, specErrorf(pathExamples, "unsupported JSONPath expression '%s'", expr)
	}
	parsedPaths.Put(expr, p)
	return target{expr, p}, nil
}

// resolve returns every match of t in the trace, in document order, read
// in place: a check decodes only what it selects. The matches go to buf
// when it has room (a caller's array, on its stack).
func (t target) resolve(in *input, buf []jsonpath.ValueMatch) []jsonpath.ValueMatch {
	return t.path.AppendValue(buf[:0], in.root)
}

// matchRoom is how many matches a check keeps on its stack.
type matchRoom [4]jsonpath.ValueMatch

// text is the text of a match as checks and explanations read it
// (jsonText): a string as is, any other value as JSON. The last string made
// is remembered: several checks of a batch often read the same one
// (content checks on output.message).
func (in *input) text(m jsonpath.ValueMatch) string {
	if m.Value.Kind() != tape.String {
		return jsonText(m.Any())
	}
	in.textMu.Lock()
	defer in.textMu.Unlock()
	if m.Value != in.textOf || !in.textOf.Exists() {
		in.textOf, in.textStr = m.Value, m.Value.Str()
	}
	return in.textStr
}

// isNull reports whether a match is JSON null.
func isNull(m jsonpath.ValueMatch) bool { return m.Value.Kind() == tape.Null }

// name is how an explanation names match m: the path as written when it
// can select only one value, else the match's own location (steps[3].result),
// so a failure names the failing step.
func (t target) name(m jsonpath.ValueMatch) string {
	if t.path.IsSingular() {
		return t.expr
	}
	return m.Location()
}

// notFound is the explanation for a target that selects nothing.
func (t target) notFound() string {
	return fmt.Sprintf("%s not found in trace: the path matches nothing.", t.expr)
}

// maxListed caps the entries an explanation lists: a 10,000-step trace must
// not make a 10,000-entry explanation.
const maxListed = 20

// bracketNames prints names as the spec's explanations do: ['a', 'b'].
func bracketNames(names []string) string { return string(appendNames(nil, names)) }

// appendNames appends names as bracketNames prints them.
func appendNames(b []byte, names []string) []byte {
	b = append(b, '[')
	for i, n := range names {
		if i > 0 {
			b = append(b, ", "...)
		}
		if i == maxListed {
			b = append(b, "… "...)
			b = strconv.AppendInt(b, int64(len(names)-i), 10)
			b = append(b, " more"...)
			break
		}
		b = append(b, '\'')
		b = append(b, n...)
		b = append(b, '\'')
	}
	return append(b, ']')
}

// intList prints step indexes as the spec's explanations do: [1, 2].
func intList(xs []int) string { return string(appendInts(nil, xs)) }

// appendInts appends xs as intList prints them.
func appendInts(b []byte, xs []int) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ", "...)
		}
		if i == maxListed {
			b = append(b, "… "...)
			b = strconv.AppendInt(b, int64(len(xs)-i), 10)
			b = append(b, " more"...)
			break
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}

// locList prints the locations of matches: steps[1].result, steps[3].result.
func locList(ms []jsonpath.ValueMatch) string {
	locs := make([]string, 0, min(len(ms), maxListed+1))
	for i, m := range ms {
		if i == maxListed {
			locs = append(locs, fmt.Sprintf("… %d more", len(ms)-i))
			break
		}
		locs = append(locs, m.Location())
	}
	return strings.Join(locs, ", ")
}

// jsonText is the JSON text of a value: numbers as written in the trace,
// objects and arrays compact with sorted keys and without HTML escaping.
func jsonText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return string(x)
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// excerpt shortens text for an explanation.
