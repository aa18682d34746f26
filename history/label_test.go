// label_test.go: a key's label, from the log and from the summaries, through a merge; Lookup by key or label.

package history

import (
	"path/filepath"
	"testing"
)

func TestLabels(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, dir := range []string{a, b} {
		s, err := Open(dir, Options{NoAlertFile: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddAll([]Result{
			{TraceID: "t1", Assertion: "ak_1", Label: "refund-in-order", Type: "trace", Status: Pass, Score: 1, Seq: 1},
			{TraceID: "t1", Assertion: "ak_2", Type: "content", Status: Pass, Score: 1, Seq: 1},
		}); err != nil {
			t.Fatal(err)
		}
		// Read beside the writer: the labels come from the log's frames.
		r, err := OpenReadOnly(dir)
		if err != nil {
			t.Fatal(err)
		}
		if ser, _ := r.Series("ak_1"); ser.Label != "refund-in-order" {
			t.Errorf("%s: label from the log %q", dir, ser.Label)
		}
		var scanned []string
		if err := Scan(dir, func(r Result) error { scanned = append(scanned, r.Label); return nil }); err != nil || len(scanned) != 2 || scanned[0] != "refund-in-order" || scanned[1] != "" {
			t.Errorf("%s: scanned labels %q, %v", dir, scanned, err)
		}
		r.Close()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	merged := filepath.Join(root, "m")
	if err := Merge(merged, a, b); err != nil {
		t.Fatal(err)
	}
	s, err := OpenReadOnly(merged) // from the summaries
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tests := []struct {
		name, asked, want string
		ok                bool
	}{
		{"a key", "ak_2", "ak_2", true},
		{"a label", "refund-in-order", "ak_1", true},
		{"neither", "refund", "", false},
	}
	for _, tc := range tests {
		if got, ok := s.Lookup(tc.asked); got != tc.want || ok != tc.ok {
			t.Errorf("%s: Lookup(%q) = %q, %v; want %q, %v", tc.name, tc.asked, got, ok, tc.want, tc.ok)
		}
	}
	if ser, _ := s.Series("ak_1"); ser.Label != "refund-in-order" || ser.Windows[0].N() != 2 {
		t.Errorf("merged: label %q, %d results", ser.Label, ser.Windows[0].N())
	}
}
