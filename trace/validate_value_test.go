// validate_value_test.go: ValidateValue against the decoded-value rules, on the goldens, every trace under testdata/, inputs crafted around each limit, and a fuzz target; its allocations.

package trace

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"attest-engine/tape"

	"github.com/google/go-cmp/cmp"
)

// sameOutcome checks, for a text that tape.Parse accepts (a duplicate
// member name included), that ValidateValue on its tape gives what the
// decoded-value rules (refValidate) and Validate give on its decoded value,
// in both modes, with and without SourceBytes; and that the tape's sizes and
// string readings agree with the decoded value's.
func sameOutcome(t *testing.T, data []byte) {
	t.Helper()
	d, err := tape.Parse(data)
	if d == nil {
		return
	}
	defer d.Release()
	root := d.Root()
	v := root.Any()
	for _, strict := range []bool{false, true} {
		for _, src := range []int{0, len(data)} {
			opts := Options{Strict: strict, SourceBytes: src}
			wantW, wantE := refValidate(v, opts)
			gotW, gotE := ValidateValue(root, opts)
			if !reflect.DeepEqual(gotW, wantW) || !reflect.DeepEqual(gotE, wantE) {
				t.Fatalf("%.200q %+v:\nValidateValue: %q %+v\nrules on Any:  %q %+v", data, opts, gotW, gotE, wantW, wantE)
			}
			anyW, anyE := Validate(v, opts)
			if !reflect.DeepEqual(anyW, wantW) || !reflect.DeepEqual(anyE, wantE) {
				t.Fatalf("%.200q %+v:\nValidate:     %q %+v\nrules on Any: %q %+v", data, opts, anyW, anyE, wantW, wantE)
			}
		}
	}
	// Validate's text for the decoded value reads back as that value.
	text, eerr := encode(v)
	if eerr != nil {
		t.Fatalf("encode(%.200q): %v", data, eerr)
	}
	if d2, err := tape.Parse(text); err != nil {
		t.Fatalf("encode(%.200q) = %.200q: %v", data, text, err)
	} else {
		if back := d2.Root().Any(); !reflect.DeepEqual(back, v) {
			t.Fatalf("encode(%.200q) = %.200q, which reads back differently", data, text)
		}
		d2.Release()
	}
	if err != nil {
		return // duplicates: Any keeps one member of two, so sizes differ by design
	}
	for tok := range root.Tokens() {
		if tok.Kind() == tape.String {
			// A member name or a string value: its pieces decode as Bytes does.
			var b []byte
			for run, r := range tok.Chunks() {
				if run != nil {
					b = append(b, run...)
				} else {
					b = utf8.AppendRune(b, r)
				}
			}
			if want := tok.Bytes(); !bytes.Equal(b, want) {
				t.Fatalf("Chunks of %s decode to %q, Bytes is %q", tok.Text(), b, want)
			}
			if got, want := tok.RuneCount(), utf8.RuneCount(tok.Bytes()); got != want {
				t.Fatalf("RuneCount of %s = %d, want %d", tok.Text(), got, want)
			}
		}
		x := tok.Any()
		if got, want := valueSize(tok, math.MaxInt), encodedSize(x, math.MaxInt); got != want {
			t.Fatalf("valueSize(%.200s) = %d, encodedSize = %d", tok.Text(), got, want)
		}
		// With a limit: exact within it, and past it whenever encodedSize is.
		for _, limit := range []int{0, 1, 7, 100} {
			got, want := valueSize(tok, limit), encodedSize(x, limit)
			if (got > limit) != (want > limit) || want <= limit && got != want {
				t.Fatalf("valueSize(%.200s, %d) = %d, encodedSize = %d", tok.Text(), limit, got, want)
			}
		}
	}
}

func TestValidateValueGolden(t *testing.T) {
	for _, c := range validateCases {
		t.Run(c.name, func(t *testing.T) {
			v, _ := c.input(t)
			data, err := json.Marshal(v)
			if c.gen == nil {
				data, err = os.ReadFile(filepath.Join(goldenDir, c.name+".json"))
			}
			if err != nil {
				t.Fatal(err)
			}
			sameOutcome(t, data)
			// And the golden itself, through the tape.
			d, perr := tape.Parse(data)
			if perr != nil {
				t.Fatal(perr)
			}
			defer d.Release()
			gotW, gotE := ValidateValue(d.Root(), Options{Strict: c.strict})
			wantW, wantE := refValidate(v, Options{Strict: c.strict})
			if diff := cmp.Diff(wantW, gotW); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantE, gotE); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// testdataTraces returns the text of every trace under testdata/: each
// object with a trace_id member, at any depth, of every JSON file and
// every line of every JSON lines file up to 1 MB.
func testdataTraces(tb testing.TB) [][]byte {
	var traces [][]byte
	seen := map[string]bool{}
	var collect func(v tape.Value)
	collect = func(v tape.Value) {
		switch v.Kind() {
		case tape.Object:
			if v.Get("trace_id").Exists() && !seen[string(v.Text())] {
				seen[string(v.Text())] = true
				traces = append(traces, bytes.Clone(v.Text()))
			}
			for _, m := range v.Members() {
				collect(m)
			}
		case tape.Array:
			for e := range v.Elems() {
				collect(e)
			}
		}
	}
	err := filepath.WalkDir("../testdata", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		ext := filepath.Ext(path)
		if ext != ".json" && ext != ".jsonl" && ext != ".ndjson" {
			return nil
		}
		if info, err := e.Info(); err != nil || info.Size() > 1<<20 {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		docs := [][]byte{data}
		if ext != ".json" {
			docs = bytes.Split(data, []byte("\n"))
		}
		for _, doc := range docs {
			if d, _ := tape.Parse(doc); d != nil {
				collect(d.Root())
				d.Release()
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return traces
}

func TestValidateValueTestdata(t *testing.T) {
	traces := testdataTraces(t)
	if len(traces) < 50 {
		t.Fatalf("only %d traces found under testdata/", len(traces))
	}
	for _, data := range traces {
		sameOutcome(t, data)
	}
}

// TestValidateValueCrafted: inputs around each limit, spelt so that the
// text's length differs from the compact size (white space, escapes that
// shrink, U+2028 that grows), numbers spelt several ways, deep sub-traces
// and duplicate member names.
func TestValidateValueCrafted(t *testing.T) {
	for _, data := range craftedSmall() {
		sameOutcome(t, data)
	}
	if testing.Short() {
		t.Skip("the traces around the 1 MB and 10 MB limits are large")
	}
	for _, data := range craftedLarge() {
		sameOutcome(t, data)
	}
}

func FuzzValidateValue(f *testing.F) {
	addGoldenInputs(f)
	f.Add([]byte(`{"schema_version":1,"trace_id":"t","output":{"a":1},"steps":[{"type":"agent_call","name":"a","sub_trace":{}}]}`))
	for _, data := range testdataTraces(f) {
		f.Add(data)
	}
	for _, data := range craftedSmall() {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameOutcome(t, data)
	})
}

// TestValidateValueAllocs: validating the spec §2.2 refund trace in place
// allocates at most once (in fact never), whether the size is measured or
// spared by SourceBytes; so does a trace with sub-traces, and one of 10,000
// steps.
func TestValidateValueAllocs(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector changes allocation counts")
	}
	agentCall, err := os.ReadFile(filepath.Join(goldenDir, "valid_agent_call.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{refundTrace(t), agentCall, stepsTrace(MaxSteps)} {
		d, err := tape.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, src := range []int{0, len(data)} {
			var verr *Error
			allocs := testing.AllocsPerRun(10, func() {
				_, verr = ValidateValue(d.Root(), Options{SourceBytes: src})
			})
			if verr != nil {
				t.Fatal(verr)
			}
			if allocs > 1 {
				t.Errorf("%.40s… SourceBytes %d: %v allocations per validation, want at most 1", data, src, allocs)
			}
		}
		d.Release()
	}
}

// traceWith is a valid trace with the given members added (each
// `"name":value`, comma-separated).
func traceWith(members string) []byte {
	s := `{"schema_version":1,"trace_id":"t1","output":{"message":"ok"}`
	if members != "" {
		s += "," + members
	}
	return []byte(s + "}")
}

// stepWith is one step of type typ with the given extra members.
func stepWith(typ, name, members string) string {
	s := `{"type":` + typ + `,"name":` + name
	if members != "" {
		s += "," + members
	}
	return s + "}"
}

// nestedSubTraces is a trace whose sub-traces nest levels deep, the
// innermost one with the given members.
func nestedSubTraces(levels int, inner string) []byte {
	s := string(traceWith(inner))
	for i := range levels {
		name := `"lvl_` + strings.Repeat("é", i) + `\u00e9\n"`
		s = string(traceWith(`"steps":[` + stepWith(`"agent_call"`, name, `"sub_trace":`+s) + `]`))
	}
	return []byte(s)
}

func craftedSmall() [][]byte {
	var out [][]byte
	add := func(s ...string) {
		for _, x := range s {
			out = append(out, []byte(x))
		}
	}
	// schema_version spelt every way.
	for _, n := range []string{"1", "1.0", "1e0", "1E0", "10e-1", "0.1e1", "-0", "0", "0.0", "0e5", "-0.0",
		"1e400", "-1", "2", "1.5", "1.0000000000000000001", "999999999999999999", "-999999999999999999",
		"1000000000000000000", "100000000000000000000", "-100000000000000000000", `"1"`, "null", "true", "[]", "{}"} {
		add(`{"schema_version":` + n + `,"trace_id":"t","output":{"a":1}}`)
	}
	// Strings with escapes where the rules read them.
	for _, id := range []string{`"\u0074"`, `"\t\n"`, `"\u00a0\u2028"`, `" \u0020"`, `"\u200b"`, `""`, `"\ud800"`, `"\u0000"`} {
		add(`{"schema_version":1,"trace_id":`+id+`,"output":{"a":1}}`,
			`{"schema_version":1,"trace_id":"t","output":{"a":1},"parent_trace_id":`+id+`}`,
			`{"schema_version":1,"trace_id":"t","output":{"a":1},"metadata":{"timestamp":`+id+`}}`,
			string(traceWith(`"steps":[`+stepWith(id, `"n"`, "")+`]`)),
			string(traceWith(`"steps":[`+stepWith(`"tool_call"`, id, `"result":`+id)+`]`)))
	}
	for _, ts := range []string{`"2026-02-18T10:30:00Z"`, `"2026-02-18\u005410:30:00Z"`, `"2026-02-18T10:30:00.123456789012345678901234567890+02:00"`, `"2026-02-18t10:30:00z"`} {
		add(string(traceWith(`"metadata":{"timestamp":` + ts + `}`)))
	}
	for _, typ := range []string{`"\u0074ool_call"`, `"agent\u005fcall"`, `"custom\u2028"`, `"x` + strings.Repeat("é", 40) + `"`} {
		add(string(traceWith(`"steps":[` + stepWith(typ, `"n"`, `"sub_trace":{}`) + `]`)))
		add(string(traceWith(`"steps":[` + stepWith(typ, `"n"`, "") + `,` + stepWith(`"other"`, `"m"`, "") + `]`)))
	}
	// Escaped member names the rules look for.
	add(`{"\u0073chema_version":1,"trace\u005fid":"t","output":{"a":1},"st\u0065ps":[{"t\u0079pe":"agent_call","n\u0061me":"a","sub\u005ftrace":{"schema_version":0}}]}`)
	// Deep sub-traces, with errors and warnings at the bottom.
	for _, levels := range []int{4, 5, 6, 100} {
		for _, inner := range []string{"", `"schema_version":0`, `"steps":[{"type":"new","name":"x"}]`, `"trace_id":" "`, `"steps":[1]`} {
			out = append(out, nestedSubTraces(levels, inner))
		}
	}
	// Duplicate member names: the later one counts.
	add(`{"schema_version":1,"schema_version":"x","trace_id":"t","output":{"a":1}}`,
		`{"schema_version":"x","schema_version":1,"trace_id":"t","output":{"a":1}}`,
		`{"schema_version":1,"trace_id":"t","output":{"a":1},"steps":[{"type":"x","type":"tool_call","name":"a"}]}`,
		`{"schema_version":1,"trace_id":"t","output":{},"output":{"a":1,"a":2}}`,
		`{"schema_version":1,"trace_id":"t","output":{"a":1},"steps":[{"type":"agent_call","name":"a","sub_trace":{"x":1,"x":2}}]}`,
		`{"schema_version":1,"trace_id":"t","output":{"a":1},"steps":[{"type":"tool_call","name":"a","sub_trace":{},"sub_trace":null}]}`,
		`{"schema_version":1,"trace_id":"t","output":{"a":1},"\u0073teps":[1],"steps":[]}`)
	// The step count around its limit, and message lengths near it are in craftedLarge.
	return out
}

// padded returns a valid trace whose compact encoding is exactly size bytes,
// the padding written in unit (one character's text, e.g. "x", `\u0041`,
// "\u2028") that encodes in unitSize bytes, topped up with "x".
func padded(size int, unit string, unitSize int, where func(pad string) string) []byte {
	base := where(`""`)
	d, err := tape.Parse([]byte(base))
	if err != nil {
		panic(err)
	}
	n := encodedSize(d.Root().Any(), math.MaxInt)
	d.Release()
	room := size - n
	pad := strings.Repeat(unit, room/unitSize) + strings.Repeat("x", room%unitSize)
	return []byte(where(`"` + pad + `"`))
}

func craftedLarge() [][]byte {
	var out [][]byte
	atTop := func(pad string) string { return string(traceWith(`"padding":` + pad)) }
	inResult := func(pad string) string {
		return string(traceWith(`"steps":[` + stepWith(`"tool_call"`, `"big"`, `"result":{"data":`+pad+`,"n":[1.0,1e2,-0]}`) + `]`))
	}
	inMessage := func(pad string) string {
		return `{"schema_version":1,"trace_id":"t","output":{"message":` + pad + `}}`
	}
	units := []struct {
		text string
		size int
	}{{"x", 1}, {`\u0041`, 1}, {"\u2028", 6}, {`\n`, 2}, {`\u0001`, 6}, {`\ud83d\ude00`, 4}, {"é", 2}}
	for _, u := range units {
		for _, size := range []int{MaxStepResultBytes, MaxStepResultBytes + 1} {
			out = append(out, padded(size, u.text, u.size, inResult))
		}
	}
	for _, u := range units[:3] {
		for _, size := range []int{MaxTraceBytes, MaxTraceBytes + 1} {
			out = append(out, padded(size, u.text, u.size, atTop))
		}
	}
	// White space: the compact size is at the limit, the text well over it.
	if data := padded(MaxTraceBytes, "x", 1, atTop); true {
		var b bytes.Buffer
		if err := json.Indent(&b, data, "", "    "); err != nil {
			panic(err)
		}
		out = append(out, b.Bytes())
	}
	// output.message: code points, whatever the spelling.
	for _, unit := range []string{"a", "é", `\u00e9`, `\ud83d\ude00`, `\ud800`, "\U0001F600"} {
		for _, n := range []int{MaxOutputChars, MaxOutputChars + 1} {
			out = append(out, []byte(inMessage(`"`+strings.Repeat(unit, n)+`"`)))
		}
	}
	// The step count.
	for _, n := range []int{MaxSteps, MaxSteps + 1} {
		steps := make([]string, n)
		for i := range steps {
			steps[i] = `{"type":"tool_call","name":"s"}`
		}
		out = append(out, traceWith(`"steps":[`+strings.Join(steps, ",")+`]`))
	}
	return out
}

// TestValidateOutsideModel: Validate reads a value outside the decoded-value
// model as encoding/json encodes it, and fails one it cannot encode.
func TestValidateOutsideModel(t *testing.T) {
	base := func(k string, v any) map[string]any {
		m := map[string]any{"schema_version": json.Number("1"), "trace_id": "t", "output": map[string]any{"a": 1}}
		m[k] = v
		return m
	}
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	tests := []struct {
		name string
		in   any
		want string // the error's message; "" for a valid trace
	}{
		{"float64 version", base("schema_version", 1.0), ""},
		{"int version", base("schema_version", 2), "trace schema_version 2 is newer than this engine supports"},
		{"float64 fraction", base("schema_version", 1e-7), "trace schema_version must be an integer, got 1e-7"},
		{"string slice steps", base("steps", []string{"x"}), "trace step 0 must be an object, got string"},
		{"invalid UTF-8 id", base("trace_id", "\xff"), ""},
		{"invalid UTF-8 type", base("steps", []any{map[string]any{"type": "a\xffb", "name": "n"}}), "trace step 0 has unknown type 'a\ufffdb'"},
		{"NaN", base("x", math.NaN()), "trace is not JSON: json: unsupported value: NaN"},
		{"bad number", base("x", json.Number("1,2")), "trace is not JSON: json: invalid number literal \"1,2\""},
		{"empty number", base("schema_version", json.Number("")), "trace schema_version 0 is deprecated"},
		{"cycle", base("input", cyclic), "trace is not JSON: json: unsupported value: encountered a cycle via map[string]interface {}"},
		{"struct", struct{ A int }{1}, "trace must be a JSON object, got invalid value"},
	}
	for _, tt := range tests {
		w, err := Validate(tt.in, Options{Strict: true})
		got := ""
		if err != nil {
			got = err.Message
		} else if len(w) > 0 {
			got = w[0]
		}
		if !strings.HasPrefix(got, tt.want) || (tt.want == "") != (got == "") {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, w, tt.want)
		}
	}
}
