// names_test.go: an OTLP/JSON body that repeats a member name in any object is refused, whatever the object.

package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// namesSpan is a valid span; %s is where a case puts its members.
const namesSpan = `{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b175","name":"chat m"%s,` +
	`"attributes":[{"key":"a","value":{"stringValue":"x"}}],"events":[{"name":"e","attributes":[]}],"status":{"code":1}}`

func namesBody(span string) string {
	return `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},"scopeSpans":[{"scope":{"name":"s"},"spans":[` + span + `]}]}]}`
}

func TestOTLPRepeatedNames(t *testing.T) {
	plain := strings.Replace(namesSpan, "%s", "", 1)
	cases := []struct {
		name, body, want string // want: a piece of the error; "" for a body that parses
	}{
		{"no repeat", namesBody(plain), ""},
		{"the same name in sibling and nested objects", namesBody(strings.Replace(namesSpan, "%s",
			`,"x":{"name":{"name":1}},"y":[{"name":1},{"name":2}]`, 1)), ""},
		{"a name equal to a value", `{"resourceSpans":[{"scopeSpans":[{"spans":[]}],"x":"scopeSpans"}]}`, ""},
		{"traceId twice in a span", namesBody(strings.Replace(namesSpan, "%s", `,"traceId":"00000000000000000000000000000001"`, 1)),
			`member "traceId" appears twice in one object`},
		{"the request's resourceSpans twice", `{"resourceSpans":[],"resourceSpans":[]}`, `member "resourceSpans" appears twice`},
		{"the same name escaped", namesBody(strings.Replace(namesSpan, "%s", `,"trace\u0049d":"00000000000000000000000000000001"`, 1)),
			`member "traceId" appears twice`},
		{"names differing in case", namesBody(strings.Replace(namesSpan, "%s", `,"TRACEID":"00000000000000000000000000000001"`, 1)),
			`members "traceId" and "TRACEID" name the same field`},
		{"K and the Kelvin sign (simple case folding)", `{"resourceSpans":[],"k":1,"\u212a":2}`, "members \"k\" and \"\u212a\" name the same field"},
		{"a status code twice", namesBody(strings.Replace(plain, `"status":{"code":1}`, `"status":{"code":1,"code":2}`, 1)), `member "code" appears twice`},
		{"an event's name twice", namesBody(strings.Replace(plain, `{"name":"e",`, `{"name":"e","name":"f",`, 1)), `member "name" appears twice`},
		{"an attribute's value twice", namesBody(strings.Replace(plain, `"value":{"stringValue":"x"}`, `"value":{"stringValue":"x"},"value":{"intValue":"1"}`, 1)),
			`member "value" appears twice`},
		{"an AnyValue's stringValue twice", namesBody(strings.Replace(plain, `{"stringValue":"x"}`, `{"stringValue":"x","stringValue":"y"}`, 1)),
			`member "stringValue" appears twice`},
		{"the resource's attributes twice", strings.Replace(namesBody(plain), `"resource":{"attributes":[`, `"resource":{"attributes":[],"attributes":[`, 1),
			`member "attributes" appears twice`},
		{"inside a member the walk never reads", namesBody(strings.Replace(namesSpan, "%s", `,"droppedAttributesCount":0,"x":[{"deep":{"a":1,"a":2}}]`, 1)),
			`member "a" appears twice`},
	}
	for _, c := range cases {
		_, err := ParseOTLP([]byte(c.body))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want no error", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "OTLP/JSON: ")):
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}

// TestOTLPRepeatedNamesLine: on a file or stdin, the line with a repeated
// name is an error item naming its line, and the lines around it are read.
func TestOTLPRepeatedNamesLine(t *testing.T) {
	good := namesBody(strings.Replace(namesSpan, "%s", "", 1))
	bad := namesBody(strings.Replace(namesSpan, "%s", `,"spanId":"eee19b7ec3c1b176"`, 1))
	r := NewReader(strings.NewReader(good+"\n"+bad+"\n"+good+"\n"), FormatAuto, 0)
	var got []string
	for {
		it, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case it.Trace != nil && it.Trace.Err != nil:
			got = append(got, fmt.Sprintf("line %d: %v", it.Line, it.Trace.Err))
		default:
			got = append(got, fmt.Sprintf("line %d: %d span", it.Line, len(it.Spans)))
		}
	}
	want := []string{"line 1: 1 span", `line 2: OTLP/JSON: member "spanId" appears twice in one object: a repeated name is refused, as in every JSON the engine reads`, "line 3: 1 span"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// repeatsName is the reference: some object of the JSON text data has two
// member names equal under strings.EqualFold (compared pair by pair).
func repeatsName(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack [][]string // the names of each open object; nil for an array
	isObj := []bool{}
	key := false // the next string token is a member name
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{':
				stack, isObj, key = append(stack, []string{}), append(isObj, true), true
			case '[':
				stack, isObj, key = append(stack, nil), append(isObj, false), false
			default:
				stack, isObj = stack[:len(stack)-1], isObj[:len(isObj)-1]
				key = len(isObj) > 0 && isObj[len(isObj)-1]
			}
			continue
		case string:
			if key {
				top := stack[len(stack)-1]
				for _, n := range top {
					if strings.EqualFold(n, tok) {
						return true
					}
				}
				stack[len(stack)-1] = append(top, tok)
				key = false
				continue
			}
		}
		key = len(isObj) > 0 && isObj[len(isObj)-1]
	}
}

// FuzzOTLPNames: a valid JSON body is refused for a repeated name exactly
// when the reference finds two names of one object equal under
// strings.EqualFold; the check never panics on any input.
func FuzzOTLPNames(f *testing.F) {
	seeds(f)
	for _, s := range []string{`{"a":1,"A":2}`, `{"a":{"b":1},"b":{"a":1}}`, `[{"k":1},{"k":1}]`, `{"k":1,"\u212a":2}`, `{"ſ":1,"S":2}`,
		`{"a\"b":1,"a\u0022b":2}`, `{"":1,"":2}`, `{"x":"a","a":"x"}`, `{"\ud800":1,"\ufffd":2}`, "{\"\xff\":1,\"\xfe\":2}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		err := uniqueNames(data)
		if want := repeatsName(data); (err != nil) != want {
			t.Fatalf("%q: uniqueNames %v, reference repeats %v", data, err, want)
		}
	})
}

// BenchmarkOTLPNames: the repeated-name check alone, beside the whole
// parse it is part of, on one request of 200 spans of 10 attributes:
// go test ./ingest -run '^$' -bench OTLPNames.
func BenchmarkOTLPNames(b *testing.B) {
	var spans []string
	for i := range 200 {
		var attrs []string
		for j := range 10 {
			attrs = append(attrs, fmt.Sprintf(`{"key":"gen_ai.attr.%d","value":{"stringValue":"value %d of span %d"}}`, j, j, i))
		}
		spans = append(spans, fmt.Sprintf(`{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"%016x","parentSpanId":"eee19b7ec3c1b175","name":"chat m",`+
			`"startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000001000000000","attributes":[%s],"status":{"code":1}}`, i+1, strings.Join(attrs, ",")))
	}
	body := []byte(namesBody(strings.Join(spans, ",")))
	for _, bm := range []struct {
		name string
		f    func() error
	}{
		{"names", func() error { return uniqueNames(body) }},
		{"parse", func() error { _, err := ParseOTLP(body); return err }},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if err := bm.f(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
