// config.go: the --config file: strict JSON, unknown keys an error naming the key.

package rpc

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"attest-engine/assert"
	"attest-engine/trace"
)

// Config is the engine configuration file. Every key is optional.
type Config struct {
	// SchemaDirs maps a URI prefix to a local directory: a $ref under the
	// prefix resolves to the file at the rest of the URI (".json" appended
	// when that exact file does not exist). Nothing else is ever loaded.
	SchemaDirs map[string]string `json:"schema_dirs"`

	// StrictStepTypes rejects unknown step types (spec §7 strict mode);
	// by default they are tolerated (lax mode, spec §6 item 6).
	StrictStepTypes bool `json:"strict_step_types"`

	// SoftFailureBudget caps soft failures per test suite (spec §2.1,
	// capability soft_failures); see budget.go. Absent: nothing escalates.
	SoftFailureBudget BudgetConfig `json:"soft_failure_budget"`

	assert.Config
}

// maxConfigBytes bounds the config file; it is trusted but still read whole.
const maxConfigBytes = 4 << 20

// LoadConfig reads and checks a config file.
func LoadConfig(path string) (Config, error) {
	var cfg Config
	f, err := os.Open(path)
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	if len(data) > maxConfigBytes {
		return cfg, fmt.Errorf("config %s: larger than %d bytes", path, maxConfigBytes)
	}
	return ParseConfig(data)
}

// ParseConfig checks that every key names a known setting, spelled exactly
// (encoding/json alone would accept "Schema_Dirs"), then decodes it.
func ParseConfig(data []byte) (Config, error) {
	var cfg Config
	v, err := trace.Decode(data)
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return cfg, fmt.Errorf("config: must be a JSON object")
	}
	if err := checkKeys(v, reflect.TypeOf(cfg), ""); err != nil {
		return cfg, err
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	return cfg, nil
}

// checkKeys walks a decoded document alongside the Go type it will decode
// into and reports the first object key that names no field.
func checkKeys(v any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return nil // a type mismatch; json.Unmarshal reports it
		}
		fields := map[string]reflect.Type{}
		collectFields(t, fields)
		for k, sub := range m {
			ft, ok := fields[k]
			if !ok {
				return fmt.Errorf("config: unknown key %q", strings.TrimPrefix(path+"."+k, "."))
			}
			if err := checkKeys(sub, ft, path+"."+k); err != nil {
				return err
			}
		}
	case reflect.Map:
		if m, ok := v.(map[string]any); ok {
			for k, sub := range m {
				if err := checkKeys(sub, t.Elem(), path+"."+k); err != nil {
					return err
				}
			}
		}
	case reflect.Slice:
		if list, ok := v.([]any); ok {
			for i, sub := range list {
				if err := checkKeys(sub, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// collectFields maps JSON names to field types, flattening embedded structs
// as encoding/json does.
func collectFields(t reflect.Type, out map[string]reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			collectFields(f.Type, out)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
}
