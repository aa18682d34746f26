package simulate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// streamConfig is the config file of the stream: 5 tools and 4 fault kinds (error, latency, malformed,
// inject), some rules by glob. The engine binary's two-process test reads it too.
const streamConfig = "../testdata/simulate/stream_config.json"

// streamTable is the simulation section of streamConfig as table text.
var streamTable = func() string {
	b, err := os.ReadFile(streamConfig)
	if err != nil {
		panic(err) // a test file missing: nothing can run
	}
	var cfg struct{ Simulation json.RawMessage }
	if err := json.Unmarshal(b, &cfg); err != nil {
		panic(err)
	}
	return string(cfg.Simulation)
}()

var streamTools = []string{"search_web", "search_docs", "lookup_order", "refund", "send_email"}

type streamCall struct {
	i    int
	tool string
	args any
}

// streamCalls are the 10,000 calls of the golden stream: args repeat, so occurrences reach 3 and more.
func streamCalls(t testing.TB) []streamCall {
	calls := make([]streamCall, 10_000)
	for i := range calls {
		tool := streamTools[i%5]
		args := decode(t, fmt.Sprintf(`{"q": "query %d", "n": %d}`, i%1499, i%3))
		calls[i] = streamCall{i, tool, args}
	}
	return calls
}

type outcomeKey struct {
	tool, args string
	occ        int
}

// runStream answers calls in the given order, with workers goroutines, and returns each outcome by
// (tool, canonical args, occurrence) as canonical text.
func runStream(t testing.TB, tb *Table, calls []streamCall, workers int) map[outcomeKey]string {
	sim := New()
	out := map[outcomeKey]string{}
	var mu sync.Mutex
	work := make(chan streamCall)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				a, err := sim.Call(tb, Call{ScenarioID: "stream", Seed: "20260401", Tool: c.tool, Args: c.args})
				if err != nil {
					t.Errorf("call %d: %v", c.i, err)
					continue
				}
				a.Warnings = nil // reported on whichever call meets the overlap first
				ca, _ := Canonical(c.args)
				text, err := Canonical(a.Wire())
				if err != nil {
					t.Errorf("call %d: answer not JSON: %v", c.i, err)
				}
				mu.Lock()
				out[outcomeKey{c.tool, string(ca), a.Occurrence}] = string(text)
				mu.Unlock()
			}
		}()
	}
	for _, c := range calls {
		work <- c
	}
	close(work)
	wg.Wait()
	return out
}

// TestDecisionStreamGolden pins the SHA-256 of the answers of 10,000 calls, sent in order, over 5 tools
// and 4 fault kinds: any change to canonical JSON, the decision function or a fault's effect changes it.
func TestDecisionStreamGolden(t *testing.T) {
	tb := table(t, streamTable)
	sim := New()
	h := sha256.New()
	fired := map[string]int{}
	for _, c := range streamCalls(t) {
		a, err := sim.Call(tb, Call{ScenarioID: "stream", Seed: "20260401", Tool: c.tool, Args: c.args})
		if err != nil {
			t.Fatalf("call %d: %v", c.i, err)
		}
		text, _ := Canonical(a.Wire())
		h.Write(text)
		h.Write([]byte{'\n'})
		if a.Fault != nil {
			fired[a.Fault["id"].(string)]++
		}
	}
	got := map[string]any{"calls": 10_000, "sha256": hex.EncodeToString(h.Sum(nil)), "fired": fired}
	gotText, _ := json.MarshalIndent(got, "", "  ")
	path := filepath.Join("..", "testdata", "simulate", "stream.golden.json")
	if *update {
		if err := os.WriteFile(path, append(gotText, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./simulate/ -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(gotText)+"\n"); diff != "" {
		t.Errorf("decision stream changed (-golden +now):\n%s", diff)
	}
}

// TestOrderIndependence sends the same 10,000 calls in order, reversed, and in a hash-sorted shuffle
// through 64 goroutines: every (tool, args, occurrence) gets the same answer.
func TestOrderIndependence(t *testing.T) {
	tb := table(t, streamTable)
	calls := streamCalls(t)
	base := runStream(t, tb, calls, 1)
	if len(base) != len(calls) {
		t.Fatalf("%d outcomes for %d calls", len(base), len(calls))
	}
	reversed := slices.Clone(calls)
	slices.Reverse(reversed)
	shuffled := slices.Clone(calls)
	slices.SortFunc(shuffled, func(a, b streamCall) int {
		ha, hb := sha256.Sum256([]byte(fmt.Sprint(a.i))), sha256.Sum256([]byte(fmt.Sprint(b.i)))
		return slices.Compare(ha[:], hb[:])
	})
	for _, run := range []struct {
		name    string
		calls   []streamCall
		workers int
	}{
		{"reversed", reversed, 1},
		{"shuffled", shuffled, 1},
		{"in order, 64 in flight", calls, 64},
		{"reversed, 64 in flight", reversed, 64},
		{"shuffled, 64 in flight", shuffled, 64},
	} {
		t.Run(run.name, func(t *testing.T) {
			if diff := cmp.Diff(base, runStream(t, tb, run.calls, run.workers)); diff != "" {
				t.Errorf("outcomes differ from the in-order run (-in order +%s):\n%s", run.name, diff)
			}
		})
	}
}

func TestRateBounds(t *testing.T) {
	for _, c := range []struct {
		rate string
		want int
	}{{"0", 0}, {"1", 2000}, {"0.0", 0}, {"1.0", 2000}} {
		tb := table(t, `{"mocks": [{"id": "m", "tool": "*", "result": 1}], "faults": [{"id": "f", "tool": "*", "kind": "empty", "rate": `+c.rate+`}]}`)
		sim := New()
		n := 0
		for i := range 2000 {
			a, err := sim.Call(tb, Call{ScenarioID: "s", Seed: fmt.Sprint(i % 7), Tool: streamTools[i%5], Args: map[string]any{"i": i}})
			if err != nil {
				t.Fatal(err)
			}
			if a.Fault != nil {
				n++
			}
		}
		if n != c.want {
			t.Errorf("rate %s fired %d times in 2000 calls, want %d", c.rate, n, c.want)
		}
	}
}

// TestRateFrequency checks that a rate is a probability: 0.1 over 20,000 decisions fires 10% ± 1%.
func TestRateFrequency(t *testing.T) {
	n := 0
	for i := range 20_000 {
		k := Key{Seed: "s", ScenarioID: "f", Tool: "t", Args: []byte(fmt.Sprintf(`{"i":%d}`, i)), Occurrence: 1, Attempt: 1, FaultID: "f"}
		if Fires(k.Digest(), 0.1) {
			n++
		}
	}
	if n < 1800 || n > 2200 {
		t.Errorf("rate 0.1 fired %d of 20000 times", n)
	}
}
