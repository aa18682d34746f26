// bench_test.go measures validation of the Attest refund example and of a large tool result.

package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

const refundSchema = `{"$schema":"https://json-schema.org/draft/2020-12","type":"object","required":["refund_id","confidence"],"properties":{"refund_id":{"type":"string","pattern":"^RFD-\\d+$"},"confidence":{"type":"number","minimum":0.0,"maximum":1.0}},"additionalProperties":false}`

const refundInstance = `{"refund_id":"RFD-001","confidence":0.95}`

// ordersSchema checks an array of order objects with required, properties, types, patterns, enum and
// minimum.
const ordersSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "array",
  "items": {
    "type": "object",
    "required": ["id", "customer", "status", "total", "currency", "items"],
    "properties": {
      "id": {"type": "string", "pattern": "^ORD-[0-9]{6}$"},
      "customer": {
        "type": "object",
        "required": ["id", "email"],
        "properties": {
          "id": {"type": "string", "pattern": "^CUS-[0-9]+$"},
          "email": {"type": "string", "pattern": "^[^@]+@[^@]+$"},
          "name": {"type": "string"}
        }
      },
      "status": {"enum": ["pending", "paid", "shipped", "delivered", "refunded"]},
      "total": {"type": "number", "minimum": 0},
      "currency": {"type": "string", "enum": ["USD", "EUR", "GBP"]},
      "note": {"type": ["string", "null"]},
      "items": {
        "type": "array",
        "minItems": 1,
        "items": {
          "type": "object",
          "required": ["sku", "qty", "price"],
          "properties": {
            "sku": {"type": "string", "pattern": "^SKU-[A-Z0-9]+$"},
            "qty": {"type": "integer", "minimum": 1},
            "price": {"type": "number", "minimum": 0},
            "description": {"type": "string", "maxLength": 200}
          },
          "additionalProperties": false
        }
      }
    }
  }
}`

// ordersInstance generates about 400 KB of JSON: 1000 orders with three line items each.
func ordersInstance() string {
	// One order is about 420 bytes; the whole array is about 420 KB.
	var b strings.Builder
	b.WriteString("[")
	statuses := []string{"pending", "paid", "shipped", "delivered", "refunded"}
	for i := range 1000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":"ORD-%06d","customer":{"id":"CUS-%d","email":"customer%d@example.com","name":"Customer Number %d"},"status":%q,"total":%d.%02d,"currency":"EUR","note":null,"items":[`,
			i, i, i, i, statuses[i%len(statuses)], 10+i, i%100)
		for j := range 3 {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"sku":"SKU-%dX%d","qty":%d,"price":%d.99,"description":"A line item description"}`, i, j, j+1, j*7+3)
		}
		b.WriteString(`]}`)
	}
	b.WriteString("]")
	return b.String()
}

func mustDecode(b *testing.B, s string) any {
	b.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		b.Fatal(err)
	}
	return v
}

func benchValidate(b *testing.B, schemaText, instText string, detail bool) {
	schema, inst := mustDecode(b, schemaText), mustDecode(b, instText)
	s, err := Compile(schema, nil)
	if err != nil {
		b.Fatal(err)
	}
	if !s.Valid(inst) {
		b.Fatalf("instance invalid: %v", s.Validate(inst))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if detail {
			if s.Validate(inst) != nil {
				b.Fatal("invalid")
			}
		} else if !s.Valid(inst) {
			b.Fatal("invalid")
		}
	}
}

func benchCompileValidate(b *testing.B, schemaText, instText string) {
	schema, inst := mustDecode(b, schemaText), mustDecode(b, instText)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := Compile(schema, nil)
		if err != nil {
			b.Fatal(err)
		}
		if s.Validate(inst) != nil {
			b.Fatal("invalid")
		}
	}
}

// benchValidValue: ValidValue on the instance's tape, parsed before the clock starts.
func benchValidValue(b *testing.B, schemaText, instText string) {
	s, err := Compile(mustDecode(b, schemaText), nil)
	if err != nil {
		b.Fatal(err)
	}
	d := parseTape(b, []byte(instText))
	defer d.Release()
	if !s.inPlace || !s.ValidValue(d.Root()) {
		b.Fatal("instance invalid or not read in place")
	}
	b.ReportAllocs()
	for b.Loop() {
		if !s.ValidValue(d.Root()) {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkRefundValidValue(b *testing.B) { benchValidValue(b, refundSchema, refundInstance) }
func BenchmarkOrdersValidValue(b *testing.B) { benchValidValue(b, ordersSchema, ordersInstance()) }

func BenchmarkRefundValid(b *testing.B)    { benchValidate(b, refundSchema, refundInstance, false) }
func BenchmarkRefundValidate(b *testing.B) { benchValidate(b, refundSchema, refundInstance, true) }
func BenchmarkRefundCompileValidate(b *testing.B) {
	benchCompileValidate(b, refundSchema, refundInstance)
}

func BenchmarkOrdersValid(b *testing.B) {
	benchValidate(b, ordersSchema, ordersInstance(), false)
}
func BenchmarkOrdersValidate(b *testing.B) {
	benchValidate(b, ordersSchema, ordersInstance(), true)
}
func BenchmarkOrdersCompileValidate(b *testing.B) {
	benchCompileValidate(b, ordersSchema, ordersInstance())
}

func TestOrdersInstanceSize(t *testing.T) {
	if n := len(ordersInstance()); n < 350_000 || n > 500_000 {
		t.Errorf("orders instance is %d bytes, want about 400 KB", n)
	}
}

// TestValidDoesNotAllocate: a verdict only builds no message. Subschemas fail routinely inside contains,
// anyOf, oneOf, not and if, so a keyword that formatted (or only boxed) its message's arguments before
// knowing whether a message was wanted would allocate once per failing item here.
func TestValidDoesNotAllocate(t *testing.T) {
	if raceDetector {
		t.Skip("counts allocations, which vary under the race detector")
	}
	for _, tc := range []struct {
		schema string
		item   any // fails the contains schema; one item that passes ends the array
		pass   any
	}{
		{`{"type":"integer"}`, json.Number("1000.5"), json.Number("1")},
		{`{"minimum":2000}`, json.Number("1000"), json.Number("2000")},
		{`{"multipleOf":7}`, json.Number("1000"), json.Number("700")},
		{`{"maxLength":3}`, "abcdefgh", "x"},
		{`{"pattern":"^x"}`, "abcdefgh", "x"},
		{`{"format":"date"}`, "abcdefgh", "2026-02-18"},
		{`{"format":"ipv4"}`, "1.2.3.4.5", "192.168.0.1"},
		{`{"maxItems":0}`, []any{json.Number("1")}, []any{}},
		{`{"maxProperties":0}`, map[string]any{"abcdefgh": true}, map[string]any{}},
		{`{"additionalProperties":false}`, map[string]any{"abcdefgh": true}, map[string]any{}},
	} {
		raw, err := decode([]byte(`{"contains":` + tc.schema + `}`))
		if err != nil {
			t.Fatal(err)
		}
		s, err := Compile(raw, &Options{AssertFormat: true})
		if err != nil {
			t.Fatal(err)
		}
		inst := make([]any, 0, 101)
		for range 100 {
			inst = append(inst, tc.item)
		}
		var boxed any = append(inst, tc.pass)
		if !s.Valid(boxed) {
			t.Fatalf("%s: the last item should match", tc.schema)
		}
		if n := testing.AllocsPerRun(10, func() { s.Valid(boxed) }); n != 0 {
			t.Errorf("%s: Valid made %.0f allocations over 100 failing items, want 0", tc.schema, n)
		}
	}
}
