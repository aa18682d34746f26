package trace

import (
	"reflect"
	"testing"

	"attest-engine/tape"
	"github.com/google/go-cmp/cmp"
)

func FuzzTapeDiff(f *testing.F) {
	for _, tt := range decodeValidTests {
		f.Add([]byte(tt.in))
	}
	for _, tt := range decodeInvalidTests {
		f.Add([]byte(tt.in))
	}
	for _, s := range []string{`{"a":1,"a":2}`, `{"b":{"a":1,"a":2},"b":3}`, nested(MaxDepth), nested(MaxDepth + 1), `{"\ud800":1,"\udc00":2}`, `"\ud800\u0041"`, `"\ud83d\ude00x\ud800"`, `"\ud800\uZZZZ"`, `"\ud800\u12"`} {
		f.Add([]byte(s))
	}
	addGoldenInputs(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := DecodeReusing(data, nil) // the old decoder
		d, gerr := tape.Parse(data)
		var got any
		if d != nil {
			got = d.Root().Any()
			d.Release()
		}
		es := func(e error) string {
			if e == nil {
				return ""
			}
			return e.Error()
		}
		if es(werr) != es(gerr) {
			t.Fatalf("%q: errors differ: old %v, tape %v", data, werr, gerr)
		}
		if reflect.DeepEqual(want, got) {
			return
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q: values differ (-old +tape):\n%s", data, diff)
		}
	})
}
