// limits_test.go checks that hostile schemas and instances end in bounded time with an error.
package jsonschema

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestExponentialFanOutIsBounded builds $defs where each level references the next one twice, so naive
// evaluation would take 2^40 steps.
func TestExponentialFanOutIsBounded(t *testing.T) {
	var defs []string
	const levels = 40
	for i := range levels {
		defs = append(defs, fmt.Sprintf(`"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"d%d":{"type":"integer"}`, levels))
	schema := `{"$ref":"#/$defs/d0","$defs":{` + strings.Join(defs, ",") + `}}`
	s, err := Compile(decodeJSON(t, []byte(schema)), nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	verr := s.Validate(decodeJSON(t, []byte(`1`)))
	if verr == nil || !strings.Contains(verr.Error(), "steps") {
		t.Fatalf("want a step-limit error, got %v", verr)
	}
	t.Logf("stopped after %v: %s", time.Since(start), verr.Summary())
}

// TestDeepInstanceIsBounded nests arrays far deeper than the evaluation depth limit.
func TestDeepInstanceIsBounded(t *testing.T) {
	s, err := Compile(decodeJSON(t, []byte(`{"$defs":{"a":{"items":{"$ref":"#/$defs/a"}}},"$ref":"#/$defs/a"}`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	const depth = 5000
	inst := decodeJSON(t, []byte(strings.Repeat("[", depth)+strings.Repeat("]", depth)))
	verr := s.Validate(inst)
	if verr == nil || !strings.Contains(verr.Summary(), "deeper than") {
		t.Fatalf("want a depth-limit error, got %v", verr)
	}
	if s.Valid(inst) {
		t.Fatal("Valid must report the depth limit as invalid")
	}
}

// TestUniqueItemsLarge keeps uniqueItems linear on a large array.
func TestUniqueItemsLarge(t *testing.T) {
	s, err := Compile(decodeJSON(t, []byte(`{"uniqueItems":true}`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("[")
	for i := range 50000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"n":%d}`, i)
	}
	b.WriteString(`,{"n":5.0}]`)
	inst := decodeJSON(t, []byte(b.String()))
	start := time.Now()
	verr := s.Validate(inst)
	if verr == nil {
		t.Fatal("duplicate not found")
	}
	if d := time.Since(start); d > 10*time.Second { // generous: -race slows hashing a lot
		t.Fatalf("uniqueItems took %v", d)
	}
}
