// intern.go: boxing each distinct short string or number value once per Decode call.

package trace

import "encoding/json"

// Short values repeat in traces (step types, statuses, model names, small
// numbers), and each one decoded costs two allocations: its text and the
// interface box. internValue boxes each distinct short value once. The table
// is bounded, so unique values cannot grow it without limit, and it lives
// only as long as one Decode call.
const (
	maxInternLen   = 32
	maxInternCount = 1024
)

func (d *decoder) internValue(table *map[string]any, raw []byte, number bool) any {
	if len(raw) > maxInternLen {
		if number {
			return json.Number(raw)
		}
		return string(raw)
	}
	if v, ok := (*table)[string(raw)]; ok {
		return v
	}
	var v any
	if number {
		v = json.Number(raw)
	} else {
		v = string(raw)
	}
	if *table == nil {
		*table = make(map[string]any)
	}
	if len(*table) < maxInternCount {
		(*table)[string(raw)] = v
	}
	return v
}
