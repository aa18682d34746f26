// attrs.go: OTLP attribute lists and AnyValue unions read into the engine's value model.

package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// maxValueDepth bounds nesting of attribute values (arrays and kvlists).
const maxValueDepth = 32

var errDepth = errors.New("attribute value nested too deeply")

// attrMap turns a key-value list into a map; a repeated key keeps the last
// value (the collector's behaviour when it builds a map from the list). The
// list is read one pair at a time and the map grows with its distinct keys:
// a list of many empty or repeated pairs costs no more than its keys.
func attrMap(list []byte, depth int) (map[string]any, error) {
	var m map[string]any
	err := rawList(list).each("attributes", func(elem []byte) error {
		var key string
		var value []byte
		err := members(elem, "attribute", func(k string, val []byte) error {
			switch {
			case fieldIs(k, "key"):
				return str(val, "key", &key)
			case fieldIs(k, "value"):
				value = val
			}
			return nil
		})
		if err != nil {
			return err
		}
		v, err := anyValue(value, depth+1)
		if err != nil {
			return fmt.Errorf("attribute %s: %w", clipped(strconv.Quote(key)), err)
		}
		if m == nil {
			m = map[string]any{}
		}
		m[key] = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// anyValue reads the AnyValue union (one member set) into the engine's
// value model. doubleValue may be a number or, as proto3 JSON allows,
// "NaN", "Infinity" or "-Infinity", which JSON cannot carry: they become
// null. bytesValue stays its base64 text. An absent or null value is null.
func anyValue(raw []byte, depth int) (any, error) {
	if depth > maxValueDepth {
		return nil, errDepth
	}
	// The members set, as pointers in a decoded struct: null unsets one.
	var (
		sv, bytesV               *string
		bv                       *bool
		iv                       *wireInt
		dv                       []byte
		array, kvlist            bool
		arrayValues, kvlistPairs []byte
	)
	err := members(raw, "value", func(key string, val []byte) error {
		null := isNull(val)
		switch {
		case fieldIs(key, "stringValue"), fieldIs(key, "bytesValue"):
			p := &sv
			if fieldIs(key, "bytesValue") {
				p = &bytesV
			}
			if null {
				*p = nil
				return nil
			}
			var s string
			if err := str(val, key, &s); err != nil {
				return err
			}
			*p = &s
		case fieldIs(key, "boolValue"):
			if null {
				bv = nil
				return nil
			}
			b, ok := val[0] == 't', val[0] == 't' || val[0] == 'f'
			if !ok {
				return fmt.Errorf("boolValue: must be a boolean")
			}
			bv = &b
		case fieldIs(key, "intValue"):
			if null {
				iv = nil
				return nil
			}
			var i wireInt
			if err := i.UnmarshalJSON(val); err != nil {
				return err
			}
			iv = &i
		case fieldIs(key, "doubleValue"):
			dv = nil
			if !null {
				dv = val
			}
		case fieldIs(key, "arrayValue"), fieldIs(key, "kvlistValue"):
			on, list := &array, &arrayValues
			if fieldIs(key, "kvlistValue") {
				on, list = &kvlist, &kvlistPairs
			}
			if null {
				*on, *list = false, nil
				return nil
			}
			*on = true // a repeated member decodes into the same struct
			return members(val, key, func(k string, val []byte) error {
				if fieldIs(k, "values") {
					*list = val
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	switch {
	case sv != nil:
		return *sv, nil
	case bv != nil:
		return *bv, nil
	case iv != nil:
		return json.Number(*iv), nil
	case dv != nil:
		var f float64
		if err := json.Unmarshal(dv, &f); err != nil {
			return nil, nil
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case array:
		list := rawList(arrayValues)
		out := make([]any, 0, list.count())
		err := list.each("values", func(elem []byte) error {
			x, err := anyValue(elem, depth+1)
			out = append(out, x)
			return err
		})
		if err != nil {
			return nil, err
		}
		return out, nil
	case kvlist:
		m, err := attrMap(kvlistPairs, depth)
		if m == nil && err == nil {
			m = map[string]any{}
		}
		return m, err
	case bytesV != nil:
		return *bytesV, nil
	}
	return nil, nil
}
