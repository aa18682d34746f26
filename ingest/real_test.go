// real_test.go: the OTLP bodies real instrumentations sent (scripts/otel-producers), each run mapped to its golden trace.

package ingest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// realDir holds one directory per run of scripts/otel-producers
// (producer, scenario, content capture): the request bodies in the order
// the exporters sent them, named NNN.{traces,logs}.{pb,json}.
const realDir = dir + "/real"

// readRun reads a run's bodies as the listener does, each an item.
func readRun(t testing.TB, run string) []Item {
	files, _ := filepath.Glob(filepath.Join(run, "*.*.*"))
	var items []Item
	for _, f := range files {
		base := filepath.Base(f)
		if strings.HasSuffix(base, ".golden.json") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		parse := map[string]func([]byte) ([]Span, error){".traces.pb": ParseOTLPProto, ".traces.json": ParseOTLP,
			".logs.pb": ParseOTLPLogsProto, ".logs.json": ParseOTLPLogs}[base[3:]]
		if parse == nil {
			t.Fatalf("%s: not NNN.{traces,logs}.{pb,json}", f)
		}
		spans, err := parse(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		items = append(items, Item{Spans: spans})
	}
	return items
}

// TestGoldenRealRuns: each run's bodies map to the golden trace beside it
// (rewritten with -update).
func TestGoldenRealRuns(t *testing.T) {
	runs, _ := filepath.Glob(filepath.Join(realDir, "*"))
	n := 0
	for _, run := range runs {
		if fi, err := os.Stat(run); err != nil || !fi.IsDir() {
			continue
		}
		n++
		t.Run(filepath.Base(run), func(t *testing.T) {
			got := runItems(t, readRun(t, run), Limits{})
			text, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			path := run + ".golden.json"
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
	if n == 0 {
		t.Fatal("no runs")
	}
}
