// race_test.go: the Values of one Doc read from many goroutines at once (run with -race).

package tape

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestConcurrentReads(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"steps":[`)
	for i := range 200 {
		if i > 0 {
			b.WriteByte(',')
		}
		// Names repeat (the interner's hits) and some strings have escapes
		// (Any's scratch buffer).
		fmt.Fprintf(&b, `{"type":"tool_call","name":"tool_%d","args":{"q":"caf\u00e9 %d","n":%d}}`, i%7, i, i)
	}
	b.WriteString(`],"output":"done"}`)
	src := b.String()
	d, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	want := parseStd(t, src)
	steps := d.Root().Get("steps")
	d.Root().Share()

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for round := range 20 {
				if round%4 == g%4 {
					if diff := diffAny(want, d.Root().Any()); diff != "" {
						errs <- fmt.Errorf("goroutine %d: Any differs:\n%s", g, diff)
						return
					}
				}
				i := 0
				for s := range steps.Elems() {
					name := s.Get("name")
					q := s.Get("args").Get("q")
					if name.Str() != fmt.Sprintf("tool_%d", i%7) || !s.Get("type").Is("tool_call") ||
						string(name.Bytes()) != name.Str() || q.Str() != fmt.Sprintf("café %d", i) ||
						!q.Is(fmt.Sprintf("café %d", i)) || q.Any() != fmt.Sprintf("café %d", i) ||
						s.Get("args").Get("n").Number() != json.Number(fmt.Sprint(i)) {
						errs <- fmt.Errorf("goroutine %d: step %d read wrong: %s", g, i, s.Text())
						return
					}
					i++
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
