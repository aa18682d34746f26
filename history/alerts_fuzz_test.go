// alerts_fuzz_test.go: an alert file of any content is opened, cut only of its torn last line, and appended to with whole lines.

package history

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// FuzzAlertFile: whatever alerts.ndjson holds, Open accepts the dir; it
// cuts at most the last line when that has no newline (a line torn by a
// crash, at most maxAlertLine bytes: a file whose last maxAlertLine bytes
// hold no newline is kept whole and a newline added), reads at most
// maxAlertLine bytes of it to decide, and every alert is then appended as
// one whole JSON line after what was kept.
func FuzzAlertFile(f *testing.F) {
	f.Add([]byte(""))
	f.Add([]byte("{\"alert_id\":\"1\"}\n"))
	f.Add([]byte("{\"alert_id\":\"1\"}\n{\"alert_id\":\"2\",\"assert"))
	f.Add([]byte("no newline at all"))
	f.Add([]byte("\n\n\x00\xff\n{"))
	f.Add(append([]byte("{}\n"), bytes.Repeat([]byte("x"), maxAlertLine+10)...))
	root := f.TempDir()
	var iter int
	f.Fuzz(func(t *testing.T, content []byte) {
		iter++
		dir := filepath.Join(root, strconv.Itoa(iter))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, alertFile)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir, Options{Sync: SyncNever})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		a := Alert{ID: "0123456789abcdef", Assertion: "k", Kind: "pass_rate"}
		s.mu.Lock()
		s.emit([]Alert{a, a})
		s.mu.Unlock()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// What is kept: up to the last newline; all of it, and a newline,
		// when the last maxAlertLine bytes hold none.
		kept := content
		tail := content[max(0, len(content)-maxAlertLine):]
		switch i := bytes.LastIndexByte(tail, '\n'); {
		case i >= 0:
			kept = content[:len(content)-len(tail)+i+1]
		case len(content) <= maxAlertLine:
			kept = nil
		default:
			kept = append(bytes.Clone(content), '\n')
		}
		line, _ := json.Marshal(a)
		want := append(append(bytes.Clone(kept), line...), '\n')
		want = append(want, append(line, '\n')...)
		if !bytes.Equal(got, want) {
			t.Fatalf("the alert file holds %q…, want %q…", got[:min(len(got), 200)], want[:min(len(want), 200)])
		}
		if cut := len(content) - len(kept); cut > maxAlertLine {
			t.Fatalf("%d bytes cut, more than a line's bound %d", cut, maxAlertLine)
		}
	})
}
