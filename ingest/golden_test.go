package ingest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"attest-engine/trace"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/ingest")

const dir = "../testdata/ingest"

// limitsFor are the per-case bounds; the rest run with the defaults.
var limitsFor = map[string]Limits{
	"evicted": {OpenTraces: 1},
}

type goldenTrace struct {
	ID              string         `json:"id"`
	Format          string         `json:"format"`
	Incomplete      bool           `json:"incomplete,omitempty"`
	ContentCaptured bool           `json:"content_captured"`
	Error           string         `json:"error,omitempty"`
	Prior           *Prior         `json:"supersedes,omitempty"` // the verdict it supersedes
	TooLate         bool           `json:"too_late,omitempty"`
	Late            int            `json:"late,omitempty"`
	Value           map[string]any `json:"value,omitempty"`
}

type golden struct {
	Traces   []goldenTrace `json:"traces"`
	Warnings []string      `json:"warnings"`
	Late     int           `json:"late_spans,omitempty"`
}

// take takes every trace the feed has ready.
func take(f *Feed) []Trace {
	var out []Trace
	for t, ok := f.Next(); ok; t, ok = f.Next() {
		out = append(out, t)
	}
	return out
}

// run reads a whole input with event time, as a replay does.
func run(t testing.TB, input []byte, lim Limits) golden {
	return runItems(t, readAll(t, bytes.NewReader(input), 0), lim)
}

// runItems maps input items as run does.
func runItems(t testing.TB, items []Item, lim Limits) golden {
	var g golden
	warn := &Warnings{Func: func(msg string) { g.Warnings = append(g.Warnings, msg) }}
	feed := NewFeed(lim, warn, nil)
	var traces []Trace
	for i, it := range items {
		it.Seq = uint64(i + 1) // as the watch command numbers its items
		feed.Add(it)
		traces = append(traces, take(feed)...)
	}
	feed.Flush()
	traces = append(traces, take(feed)...)
	g.Late = feed.Late()
	for _, tr := range traces {
		value := tr.Value
		if tr.Doc != nil { // Attest input: the line, read in place
			value, _ = tr.Doc.Root().Any().(map[string]any)
		}
		if tr.Err == nil {
			if agent, _ := value["agent_id"].(string); agent != tr.AgentID {
				t.Errorf("trace %s: AgentID %q, agent_id %q", tr.ID, tr.AgentID, agent)
			}
		}
		gt := goldenTrace{ID: tr.ID, Format: tr.Format, Incomplete: tr.Incomplete, ContentCaptured: tr.ContentCaptured, Value: value,
			Prior: tr.Prior, TooLate: tr.TooLate, Late: tr.Late}
		if tr.Err != nil {
			gt.Error = tr.Err.Error()
		} else if tr.TooLate {
			// nothing evaluated: no value
		} else if _, verr := trace.Validate(value, trace.Options{Strict: true}); verr != nil {
			t.Errorf("trace %s fails spec §7 validation: %v", tr.ID, verr)
		}
		g.Traces = append(g.Traces, gt)
	}
	return g
}

func TestGoldenMapping(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.input.jsonl"))
	if len(inputs) == 0 {
		t.Fatal("no inputs")
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".input.jsonl")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := run(t, data, limitsFor[name])
			text, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, name+".golden.json")
			if *update {
				if err := os.WriteFile(path, append(text, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(text)+"\n"); diff != "" {
				t.Errorf("mapping differs from %s (-want +got):\n%s", path, diff)
			}
		})
	}
}
