// config.go: the --config file, read by the server and the eval command alike: strict JSON, unknown keys an error naming the key.

package assert

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"

	"attest-engine/jsonschema"
	"attest-engine/provider"
	"attest-engine/simulate"
	"attest-engine/tape"
	"attest-engine/trace"
)

// Config is the engine's configuration: the --config file (every key is
// optional) and what the program sets besides.
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

	// SkipAfterHardFail skips the costly layers (5 and 6) of a batch once a
	// cheaper layer hard-failed (spec §4: "engine decides based on
	// configuration"). Skipped assertions still get a result saying so.
	SkipAfterHardFail bool `json:"skip_after_hard_fail"`

	// Simulation holds the default mock and fault rules and the simulated
	// user's model (capability simulation); a request's rules win.
	Simulation simulate.Config `json:"simulation"`

	// StateDir is the server's result history when --state-dir is not
	// given (it wins over $ATTEST_STATE_DIR): the way to turn history on
	// for an SDK session, which starts the engine without flags. The
	// server reads it (package serve); a state dir it cannot open is one
	// warning, and the session runs without history.
	StateDir string `json:"state_dir"`

	// RequireCalibration is require_calibration for every llm_judge
	// assertion that sets none of its own (calibration.go).
	RequireCalibration *CalibrationRequirement `json:"require_calibration"`

	// SchemaLoader resolves $ref URIs outside a schema; New sets it from
	// SchemaDirs when that is set.
	SchemaLoader jsonschema.Loader `json:"-"`

	provider.Settings
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
	// The rules are decoded again with the engine's decoder (exact numbers) and checked now: a bad rule
	// stops the engine at start, naming the rule.
	if sim, ok := v.(map[string]any)["simulation"].(map[string]any); ok {
		// A lone surrogate escape decodes to U+FFFD: refused as in a request (RFC 8785 reads I-JSON).
		if doc, err := tape.Parse(data); err == nil {
			path, bad := tape.FindLoneSurrogate(doc.Root().Get("simulation"))
			doc.Release()
			if bad {
				return cfg, fmt.Errorf("config: simulation.%s: a lone surrogate escape (not valid Unicode)", path)
			}
		}
		t, err := simulate.ParseTable(sim["mocks"], sim["faults"])
		if err != nil {
			return cfg, fmt.Errorf("config: simulation: %w", err)
		}
		cfg.Simulation.Table = t
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

// BudgetConfig is the config key soft_failure_budget. A suite is named by
// the optional "suite" param of evaluate_batch and submit_plugin_result;
// results sent without one belong to the unnamed suite "". A suite listed
// under suites has its own budget; every other suite, the unnamed one
// included, has the default budget; with no default it has none.
//
//	"soft_failure_budget": {
//	  "default": {"max_count": 5},
//	  "suites": {"checkout": {"max_fraction": 0.2}, "smoke": {"max_count": 0}}
//	}
type BudgetConfig struct {
	Default *Budget           `json:"default"`
	Suites  map[string]Budget `json:"suites"`
}

// Budget bounds the soft failures of one suite: exactly one of max_count
// (soft failures allowed, an integer >= 0) and max_fraction (soft failures
// allowed per result evaluated in the suite, 0 to 1).
type Budget struct {
	MaxCount    *int64   `json:"max_count"`
	MaxFraction *float64 `json:"max_fraction"`
}

// UnmarshalJSON checks a budget as the config file is read.
func (b *Budget) UnmarshalJSON(data []byte) error {
	type plain Budget
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	switch {
	case p.MaxCount != nil && p.MaxFraction != nil:
		return errors.New("soft_failure_budget: a budget sets max_count or max_fraction, not both")
	case p.MaxCount == nil && p.MaxFraction == nil:
		return errors.New("soft_failure_budget: a budget needs max_count or max_fraction")
	case p.MaxCount != nil && *p.MaxCount < 0:
		return fmt.Errorf("soft_failure_budget: max_count %d must be 0 or more", *p.MaxCount)
	case p.MaxFraction != nil && !(*p.MaxFraction >= 0 && *p.MaxFraction <= 1):
		return fmt.Errorf("soft_failure_budget: max_fraction %v must be between 0 and 1", *p.MaxFraction)
	}
	*b = Budget(p)
	return nil
}

// Allows reports whether the n-th soft failure of a suite that has
// evaluated results so far stays soft.
func (b Budget) Allows(n, evaluated int64) bool {
	if b.MaxCount != nil {
		return n <= *b.MaxCount
	}
	return float64(n) <= *b.MaxFraction*float64(evaluated)+1e-9
}

// String names the budget as an escalated result's explanation does.
func (b Budget) String() string {
	if b.MaxCount != nil {
		return "max_count " + strconv.FormatInt(*b.MaxCount, 10)
	}
	return "max_fraction " + strconv.FormatFloat(*b.MaxFraction, 'f', -1, 64)
}
