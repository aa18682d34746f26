// otlpproto_test.go: ParseOTLPProto against ParseOTLP on the same requests, its errors and bounds, fuzzing and benchmarks.

package ingest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// protoCases are OTLP/JSON requests beyond the golden inputs: every
// AnyValue kind, nesting, events, status forms, resources, bad ids.
var protoCases = map[string]string{
	"every value kind": `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},"scopeSpans":[{"spans":[{"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"eee19b7ec3c1b174","name":"chat","startTimeUnixNano":"1","endTimeUnixNano":18446744073709551615,"attributes":[` +
		`{"key":"s","value":{"stringValue":"héllo ✓"}},{"key":"es","value":{"stringValue":""}},{"key":"t","value":{"boolValue":true}},{"key":"f","value":{"boolValue":false}},` +
		`{"key":"i","value":{"intValue":"42"}},{"key":"in","value":{"intValue":-7}},{"key":"imin","value":{"intValue":"-9223372036854775808"}},{"key":"i0","value":{"intValue":"0"}},` +
		`{"key":"i00","value":{"intValue":"007"}},{"key":"iplus","value":{"intValue":"+7"}},{"key":"ineg0","value":{"intValue":"-0"}},` +
		`{"key":"d","value":{"doubleValue":3.25}},{"key":"dz","value":{"doubleValue":-0.0}},{"key":"d0","value":{"doubleValue":0}},{"key":"dbig","value":{"doubleValue":1e21}},{"key":"dint","value":{"doubleValue":2}},{"key":"dsmall","value":{"doubleValue":5e-324}},` +
		`{"key":"dnan","value":{"doubleValue":"NaN"}},{"key":"dinf","value":{"doubleValue":"Infinity"}},{"key":"dninf","value":{"doubleValue":"-Infinity"}},` +
		`{"key":"arr","value":{"arrayValue":{"values":[{"intValue":"1"},{"stringValue":"x"},{"arrayValue":{"values":[{"boolValue":true},{"arrayValue":{}}]}},{"kvlistValue":{"values":[{"key":"k","value":{"doubleValue":0.1}}]}},{}]}}},` +
		`{"key":"earr","value":{"arrayValue":{}}},{"key":"earr2","value":{"arrayValue":{"values":[]}}},` +
		`{"key":"kv","value":{"kvlistValue":{"values":[{"key":"a","value":{"intValue":"1"}},{"key":"a","value":{"stringValue":"last"}},{"key":"n","value":{"kvlistValue":{"values":[{"key":"deep","value":{"arrayValue":{"values":[{"bytesValue":"AAE="}]}}}]}}}]}}},` +
		`{"key":"ekv","value":{"kvlistValue":{}}},{"key":"b","value":{"bytesValue":"aGVsbG8gd29ybGQ="}},{"key":"eb","value":{"bytesValue":""}},` +
		`{"key":"novalue"},{"key":"emptyvalue","value":{}},{"key":"dup","value":{"intValue":"1"}},{"key":"dup","value":{"intValue":"2"}},{"key":"","value":{"stringValue":"empty key"}}]}]}]}]}`,
	"events and status": `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b175","parentSpanId":"eee19b7ec3c1b174","name":"chat","status":{"code":2,"message":"boom"},` +
		`"events":[{"timeUnixNano":"5","name":"gen_ai.content.prompt","attributes":[{"key":"gen_ai.prompt","value":{"stringValue":"hi"}}]},{},{"name":"x","attributes":[{"key":"n","value":{"arrayValue":{"values":[{"intValue":"3"}]}}}]}]},` +
		`{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b176","parentSpanId":"","status":{"code":"STATUS_CODE_ERROR"}},` +
		`{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b177","status":{"code":1,"message":"fine"}},` +
		`{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b178","status":{}}]}]}]}`,
	"resources and scopes": `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"intValue":"7"}}]},"scopeSpans":[{"spans":[{"traceId":"0123456789abcdef0123456789abcdef","spanId":"0123456789abcdef"}]},{"spans":[]},{}]},` +
		`{"resource":{"attributes":[{"key":"host.name","value":{"stringValue":"h"}},{"key":"service.name","value":{"stringValue":"one"}},{"key":"service.name","value":{"stringValue":"two"}}]},"scopeSpans":[{"spans":[{"traceId":"0123456789abcdef0123456789abcdee","spanId":"0123456789abcdee"}]}]},` +
		`{"scopeSpans":[{"spans":[{"traceId":"W47/95gDgQPSabYzgT/GDA==","spanId":"7uGbfsPBsXQ=","parentSpanId":"7uGbfsPBsXU"}]}]},{},{"resource":{}}]}`,
	"empty request":      `{}`,
	"no resource spans":  `{"resourceSpans":[]}`,
	"depth at bound":     nestedRequest(maxValueDepth, false),
	"depth past bound":   nestedRequest(maxValueDepth+1, false),
	"resource too deep":  nestedRequest(maxValueDepth+1, true),
	"short trace id":     `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc6","spanId":"eee19b7ec3c1b174"}]}]}]}`,
	"long span id":       `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b17400"}]}]}]}`,
	"short parent id":    `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","parentSpanId":"eee19b7ec3c1"}]}]}]}`,
	"zero span id":       `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"0000000000000000"}]}]}]}`,
	"zero trace id":      `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000000","spanId":"eee19b7ec3c1b174"}]}]}]}`,
	"missing ids":        `{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"x"}]}]}]}`,
	"second span bad id": `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174"},{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"ee"}]}]}]}`,
}

// nestedRequest is a request whose one attribute (of the span, or of the
// resource) is levels deep, alternating arrays and key-value lists.
func nestedRequest(levels int, resource bool) string {
	v := `{"stringValue":"x"}`
	for i := range levels - 1 {
		if i%2 == 0 {
			v = `{"arrayValue":{"values":[` + v + `]}}`
		} else {
			v = `{"kvlistValue":{"values":[{"key":"k","value":` + v + `}]}}`
		}
	}
	attr := `[{"key":"deep","value":` + v + `}]`
	if resource {
		return `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"s"}},{"key":"deep","value":` + v + `}]},"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174"}]}]}]}`
	}
	return `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","attributes":` + attr + `}]}]}]}`
}

// jsonRequests are every OTLP/JSON request of the golden inputs and of
// protoCases, by name.
func jsonRequests(t testing.TB) map[string][]byte {
	reqs := map[string][]byte{}
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.input.jsonl"))
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			if bytes.HasPrefix(bytes.TrimLeft(line, "{ \t"), []byte(`"resourceSpans"`)) {
				reqs[filepath.Base(in)+":"+string(rune('1'+i))] = line
			}
		}
	}
	if len(reqs) < 10 {
		t.Fatalf("only %d OTLP lines among the golden inputs", len(reqs))
	}
	for name, c := range protoCases {
		reqs[name] = []byte(c)
	}
	return reqs
}

// encoders are the wire-level variations every request is read under.
var encoders = map[string]func() *pbEncoder{
	"plain":        func() *pbEncoder { return &pbEncoder{} },
	"unknown":      func() *pbEncoder { return &pbEncoder{unknown: true} },
	"scalars last": func() *pbEncoder { return &pbEncoder{scalarsLast: true} },
	"split":        func() *pbEncoder { return &pbEncoder{split: true} },
	"all":          func() *pbEncoder { return &pbEncoder{unknown: true, scalarsLast: true, split: true} },
}

// TestProtoMatchesJSON: the binary form of every request reads to the
// spans its JSON form reads to (Size apart: it is each form's own length),
// or fails where JSON fails; nesting errors read alike.
func TestProtoMatchesJSON(t *testing.T) {
	for name, js := range jsonRequests(t) {
		want, wantErr := ParseOTLP(js)
		for ename, newEnc := range encoders {
			t.Run(name+"/"+ename, func(t *testing.T) {
				enc := newEnc()
				pb, err := enc.request(js)
				if err != nil {
					t.Fatal(err)
				}
				got, err := ParseOTLPProto(pb)
				if (err != nil) != (wantErr != nil) {
					t.Fatalf("protobuf error %v, JSON error %v", err, wantErr)
				}
				if err != nil {
					if strings.Contains(wantErr.Error(), "nested too deeply") && strings.Replace(wantErr.Error(), "OTLP/JSON", "OTLP/protobuf", 1) != err.Error() {
						t.Errorf("protobuf error %q, JSON error %q", err, wantErr)
					}
					return
				}
				if diff := cmp.Diff(withoutSize(want), withoutSize(got)); diff != "" {
					t.Errorf("spans differ (-JSON +protobuf):\n%s", diff)
				}
			})
		}
	}
}

// withoutSize is spans with Size zero: each encoding has its own length.
// (Zeroing is much cheaper than cmpopts.IgnoreFields on deep values.)
func withoutSize(spans []Span) []Span {
	out := slices.Clone(spans)
	for i := range out {
		out[i].Size = 0
	}
	return out
}

// TestProtoBodies: testdata/ingest/basic.input.N.pb, the binary form of
// line N of basic.input.jsonl that watch's listener test posts, are what
// the encoder writes (rewritten with -update) and read to that line's spans.
func TestProtoBodies(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(dir, "basic.input.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		path := filepath.Join(dir, fmt.Sprintf("basic.input.%d.pb", i+1))
		pb, err := (&pbEncoder{}).request(line)
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(path, pb, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		golden, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(golden, pb) {
			t.Errorf("%s differs from the encoding of line %d (-update rewrites it)", path, i+1)
		}
		want, err := ParseOTLP(line)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseOTLPProto(golden)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(withoutSize(want), withoutSize(got)); diff != "" {
			t.Errorf("%s: spans differ (-JSON +protobuf):\n%s", path, diff)
		}
	}
}
