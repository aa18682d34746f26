package simulate

import (
	"fmt"
	"math"
	"testing"
)

func TestPassHatK(t *testing.T) {
	cases := []struct {
		n, c, k int
		want    float64
	}{
		{4, 4, 4, 1}, {4, 0, 1, 0}, {4, 2, 1, 0.5}, {4, 2, 2, 1.0 / 6}, {4, 2, 3, 0},
		{8, 6, 3, 20.0 / 56}, {10, 9, 5, 126.0 / 252}, {5, 3, 0, 0}, {5, 3, 6, 0},
	}
	for _, c := range cases {
		if got := PassHatK(c.n, c.c, c.k); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("PassHatK(%d, %d, %d) = %v, want %v", c.n, c.c, c.k, got, c.want)
		}
	}
	s := Summarize(8, 6)
	for k := 1; k <= 8; k++ {
		if math.Abs(s.PassHatK[k-1]-PassHatK(8, 6, k)) > 1e-12 {
			t.Errorf("Summarize pass^%d = %v, PassHatK = %v", k, s.PassHatK[k-1], PassHatK(8, 6, k))
		}
	}
}

func TestWilson(t *testing.T) {
	// Reference values of the 95% Wilson score interval (z = 1.959964), to 4 decimals.
	cases := []struct {
		n, c   int
		lo, hi float64
	}{
		{10, 8, 0.4902, 0.9433}, {10, 10, 0.7225, 1}, {10, 0, 0, 0.2775}, {100, 50, 0.4038, 0.5962}, {1, 1, 0.2065, 1},
	}
	for _, c := range cases {
		lo, hi := Wilson(c.n, c.c)
		if fmt.Sprintf("%.4f %.4f", lo, hi) != fmt.Sprintf("%.4f %.4f", c.lo, c.hi) {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", c.n, c.c, lo, hi, c.lo, c.hi)
		}
	}
	if lo, hi := Wilson(0, 0); lo != 0 || hi != 1 {
		t.Errorf("Wilson(0, 0) = [%v, %v]", lo, hi)
	}
}

func TestRepeats(t *testing.T) {
	r := NewRepeats()
	record := func(s string, rep int64, has, ok bool) {
		t.Helper()
		if err := r.Record(s, rep, has, ok); err != nil {
			t.Fatal(err)
		}
	}
	// refund: 4 runs, run 2 has two batches and one failed, so 3 of 4 passed.
	record("refund", 1, true, true)
	record("refund", 2, true, true)
	record("refund", 2, true, false)
	record("refund", 3, true, true)
	record("refund", 4, true, true)
	// cancel: batches without repeat numbers are runs of their own.
	record("cancel", 0, false, true)
	record("cancel", 0, false, false)
	got := r.Summaries()
	if len(got) != 2 || got[0].ScenarioID != "cancel" || got[1].ScenarioID != "refund" {
		t.Fatalf("summaries %+v", got)
	}
	if s := got[1]; s.N != 4 || s.Passes != 3 || math.Abs(s.PassHatK[1]-0.5) > 1e-12 || s.PassHatK[3] != 0 {
		t.Errorf("refund: %+v", s)
	}
	if s := got[0]; s.N != 2 || s.Passes != 1 {
		t.Errorf("cancel: %+v", s)
	}
	if err := r.Record("", 1, true, true); err == nil {
		t.Error("an empty scenario id was accepted")
	}
}
