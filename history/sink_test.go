package history

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAlertFileTornLine opens state dirs whose alert file a crash left in
// each state, records a stream that raises alerts, and checks that the
// whole lines before are kept, a torn last line is cut, and every alert
// written after is a line of its own.
func TestAlertFileTornLine(t *testing.T) {
	whole := `{"alert_id":"a"}` + "\n" + `{"alert_id":"b"}` + "\n"
	long := strings.Repeat("x", maxAlertLine+10)
	tests := []struct {
		name, before, kept string
	}{
		{"none", "", ""},
		{"whole lines", whole, whole},
		{"torn last line", whole + `{"alert_id":"c","expla`, whole},
		{"only a torn line", `{"alert_`, ""},
		{"not an alert file", long, long + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "alerts.ndjson")
			if tc.before != "" {
				if err := os.WriteFile(path, []byte(tc.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, err := Open(dir, Options{Sync: SyncNever})
			if err != nil {
				t.Fatal(err)
			}
			raised := 0
			for _, r := range driftStream(newPRNG("history/merge-drift/v1"), 3000, 1800) {
				a, err := s.Add(r)
				if err != nil {
					t.Fatal(err)
				}
				raised += len(a)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(got, []byte(tc.kept)) {
				t.Fatalf("the lines before the crash are not kept: file starts %.80q, want %.80q", got, tc.kept)
			}
			lines := strings.Split(strings.TrimSuffix(string(got[len(tc.kept):]), "\n"), "\n")
			if raised == 0 || len(lines) != raised {
				t.Fatalf("%d alert lines after the kept ones, %d alerts raised", len(lines), raised)
			}
			for i, l := range lines {
				var a Alert
				if err := json.Unmarshal([]byte(l), &a); err != nil || a.ID == "" {
					t.Errorf("line %d after the kept ones is not an alert (%v): %.120q", i, err, l)
				}
			}
		})
	}
}
