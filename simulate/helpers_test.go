package simulate

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// decode reads JSON text as the engine's decoder does (numbers as json.Number).
func decode(t testing.TB, s string) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

// table parses {"mocks": …, "faults": …} text.
func table(t testing.TB, s string) *Table {
	t.Helper()
	obj := decode(t, s).(map[string]any)
	tb, err := ParseTable(obj["mocks"], obj["faults"])
	if err != nil {
		t.Fatalf("ParseTable: %v", err)
	}
	return tb
}

func canonString(t testing.TB, v any) string {
	t.Helper()
	c, err := Canonical(v)
	if err != nil {
		t.Fatalf("Canonical: %v", err)
	}
	return string(c)
}

func hexOf(d [32]byte) string { return hex.EncodeToString(d[:]) }
