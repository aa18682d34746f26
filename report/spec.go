// spec.go: an assertion's spec as indented JSON, cut to a length while it is written.

package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"attest-engine/clip"
)

// SpecText is an assertion's spec as reports show it: indented JSON with
// keys in order, cut to 4 KiB; "" for no spec.
func SpecText(spec map[string]any) string {
	if spec == nil {
		return ""
	}
	return specJSON(spec, htmlTextMax)
}

// specJSON writes v (a decoded JSON value) as indented JSON with keys in
// order, stopping once limit bytes are written: a spec holding a large
// schema costs the report limit bytes, not its size. The cut is marked.
func specJSON(v any, limit int) string {
	var b strings.Builder
	writeSpec(&b, v, "", limit, 0)
	if b.Len() >= limit {
		return clip.String(b.String(), limit)
	}
	return b.String()
}

func writeSpec(b *strings.Builder, v any, indent string, limit, depth int) {
	if b.Len() >= limit {
		return
	}
	if depth > 64 { // decoded JSON is at most 512 deep; a spec shown that deep helps nobody
		b.WriteString("…")
		return
	}
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			b.WriteString("{}")
			return
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteString("{\n")
		for i, k := range keys {
			if b.Len() >= limit {
				return
			}
			b.WriteString(indent + "  ")
			writeString(b, k, limit)
			b.WriteString(": ")
			writeSpec(b, v[k], indent+"  ", limit, depth+1)
			if i < len(keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range v {
			if b.Len() >= limit {
				return
			}
			b.WriteString(indent + "  ")
			writeSpec(b, e, indent+"  ", limit, depth+1)
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case string:
		writeString(b, v, limit)
	case float64:
		b.WriteString(strconv.FormatFloat(finite(v), 'g', -1, 64))
	case json.Number:
		b.WriteString(v.String())
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case nil:
		b.WriteString("null")
	default: // other number types a decoder may use
		out, err := json.Marshal(v)
		if err != nil {
			b.WriteString("?")
			return
		}
		b.Write(out)
	}
}

// writeString writes s as a JSON string, at most limit bytes of it.
func writeString(b *strings.Builder, s string, limit int) {
	if len(s) > limit {
		s = clip.String(s, limit)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // the page escapes; "<" reads better than "\u003c"
	enc.Encode(s)            // a string always encodes
	b.Write(bytes.TrimSuffix(out.Bytes(), []byte("\n")))
}
