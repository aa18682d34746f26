// simconfig_test.go: the config file's simulation section and offline key.

package assert

import (
	"strings"
	"testing"
)

func TestSimulationConfig(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"rules parsed at start", `{"simulation": {"mocks": [{"id": "m", "tool": "t", "result": 1}], "faults": [{"id": "f", "tool": "*", "kind": "latency", "ms": 5}], "model": "gpt-4.1"}, "offline": true}`, ""},
		{"a bad rule names the rule", `{"simulation": {"faults": [{"id": "f", "tool": "*", "kind": "latency"}]}}`, `config: simulation: fault rule "f": ms: required`},
		{"unknown key", `{"simulation": {"mock": []}}`, `config: unknown key "simulation.mock"`},
		{"a lone surrogate escape names where", `{"simulation": {"mocks": [{"id": "m", "tool": "t", "result": {"a": "\udc00"}}]}}`, `config: simulation.mocks[0].result.a: a lone surrogate escape`},
		{"offline must be a boolean", `{"offline": "yes"}`, `config:`},
	}
	for _, c := range cases {
		cfg, err := ParseConfig([]byte(c.in))
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			} else if cfg.Simulation.Table == nil || len(cfg.Simulation.Table.Mocks) != 1 || cfg.Simulation.Model != "gpt-4.1" || !cfg.Offline {
				t.Errorf("%s: %+v", c.name, cfg.Simulation)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
