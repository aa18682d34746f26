package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
)

// encodingJSON is what encoding/json writes for s with HTML escaping off.
func encodingJSON(t testing.TB, s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func TestAppend(t *testing.T) {
	for _, s := range []string{
		"", "plain", "a\"b\\c", "\b\f\n\r\t\x00\x01\x1f\x7f", "<&>", "é 日本 🎉",
		"\u2028\u2029", "bad \xff\xfe utf-8", "\xed\xa0\x80", "abcd\"efgh", "abc\u2028",
	} {
		if got, want := string(Append(nil, s)), encodingJSON(t, s); got != want {
			t.Errorf("Append(%q) = %s, want %s (encoding/json)", s, got, want)
		}
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\b\f\x01", "\u2028", "\xff", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(Append([]byte("x"), s)), "x"+encodingJSON(t, s); got != want {
			t.Fatalf("Append(%q) = %s, want %s (encoding/json)", s, got, want)
		}
	})
}

func BenchmarkAppend(b *testing.B) {
	s := "The refund for order ORD-123 was processed: $42.00 back to the card ending 4242.\n"
	buf := make([]byte, 0, 256)
	for b.Loop() {
		buf = Append(buf[:0], s)
	}
}
