// loader_test.go checks DirLoader: ".json" fallback, longest prefix, and no escape from the directory.

package jsonschema

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestDirLoader(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sub/money.json", `{"type":"object","required":["currency"]}`)
	write("plain", `{"type":"string"}`)
	outside := filepath.Join(filepath.Dir(dir), "outside.json")
	if err := os.WriteFile(outside, []byte(`{}`), 0o644); err == nil {
		defer os.Remove(outside)
	}
	l := DirLoader(map[string]string{"https://schemas.example/": dir, "https://other.example/": t.TempDir()})

	if v, err := l.Load("https://schemas.example/sub/money"); err != nil || v.(map[string]any)["type"] != "object" {
		t.Errorf(`Load with ".json" fallback = %v, %v`, v, err)
	}
	if _, err := l.Load("https://schemas.example/plain"); err != nil {
		t.Errorf("Load of an exact file name: %v", err)
	}
	for _, uri := range []string{
		"https://schemas.example/../outside.json",
		"https://schemas.example/sub/../../outside",
		"https://schemas.example/" + outside,
		"https://unknown.example/x.json",
		"https://schemas.example/",
	} {
		if _, err := l.Load(uri); err == nil {
			t.Errorf("Load(%q) succeeded, want an error", uri)
		}
	}

	s, err := Compile(decodeJSON(t, []byte(`{"$ref":"https://schemas.example/sub/money"}`)), &Options{Loader: l})
	if err != nil {
		t.Fatal(err)
	}
	if verr := s.Validate(map[string]any{}); verr == nil || !strings.Contains(verr.Summary(), "currency") {
		t.Errorf("Validate = %v", verr)
	}
}

// TestConcurrentValidate shares one Schema between goroutines (run with -race).
func TestConcurrentValidate(t *testing.T) {
	s, err := Compile(decodeJSON(t, []byte(`{"$id":"https://x.example/s","type":"object","properties":{"a":{"$dynamicRef":"#t"},"b":{"pattern":"^b+$"}},"unevaluatedProperties":false,"$defs":{"t":{"$dynamicAnchor":"t","type":"integer"}}}`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	good := decodeJSON(t, []byte(`{"a":1,"b":"bbb"}`))
	bad := decodeJSON(t, []byte(`{"a":"x","b":"c","z":1}`))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if verr := s.Validate(good); verr != nil {
					t.Errorf("good: %v", verr)
				}
				if verr := s.Validate(bad); verr == nil || len(verr.Units) != 3 {
					t.Errorf("bad: %v", verr)
				}
				if s.Valid(bad) {
					t.Error("bad is valid")
				}
			}
		})
	}
	wg.Wait()
}
