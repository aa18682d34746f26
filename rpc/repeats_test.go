// repeats_test.go: a per-batch warning is logged once per session, its count at the end; distinct texts are bounded.

package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRepeatsOncePerSessionWithCount(t *testing.T) {
	many := make([]string, 70)
	for i := range many {
		many[i] = fmt.Sprintf("unknown step type 't%d' tolerated", i)
	}
	tests := []struct {
		name, reason string
		warnings     []string
		want         []string // "msg" or "msg ×N" (a summary line), in order
	}{
		{"once", "a warning seen once is logged once, with no summary", []string{"a"}, []string{"a"}},
		{"repeated", "20 batches, two warnings: each logged at first sight, then counted at the end",
			append(repeat("deprecated", 10), repeat("unknown type", 10)...),
			[]string{"deprecated", "unknown type", "deprecated ×10", "unknown type ×10"}},
		{"interleaved", "the summary follows first-seen order", []string{"b", "a", "b", "a", "b"}, []string{"b", "a", "b ×3", "a ×2"}},
		{"bounded", "past 64 distinct texts, warnings are only counted",
			append(many, many[69], many[0]),
			append(append([]string{}, many[:64]...), many[0]+" ×2", "further warnings not logged: more than 64 distinct warnings this session ×7")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			log := slog.New(slog.NewJSONHandler(&buf, nil))
			var r repeats
			for i, w := range tc.warnings {
				r.warn(log, w, fmt.Sprintf("trc_%d", i))
			}
			r.summarize(log)
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("%q: %v", l, err)
				}
				s := m["msg"].(string)
				if n, ok := m["occurrences"]; ok {
					s += fmt.Sprintf(" ×%v", n)
				} else if m["trace_id"] == nil {
					t.Errorf("first occurrence without its trace_id: %s", l)
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
