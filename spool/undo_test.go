package spool

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAppendAfterUndo: a record appended after an Undo follows the last
// whole one, in a segment Open created as in one it recovered: replayed
// after a reopen, with the records after it.
func TestAppendAfterUndo(t *testing.T) {
	for _, name := range []string{"created", "recovered"} {
		t.Run(name, func(t *testing.T) {
			d, _ := openDir(t)
			s, err := Open(d, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if name == "recovered" {
				s.Close()
				if s, err = Open(d, Options{}); err != nil {
					t.Fatal(err)
				}
			}
			var want []Record
			add := func(b string) uint64 {
				seq, err := s.Append(JSON, []byte(b))
				if err != nil {
					t.Fatal(err)
				}
				return seq
			}
			want = append(want, Record{Seq: add("a"), Encoding: JSON, Body: []byte("a")})
			if err := s.Undo(add("taken back, longer than the next")); err != nil {
				t.Fatal(err)
			}
			want = append(want, Record{Seq: add("c"), Encoding: JSON, Body: []byte("c")})
			want = append(want, Record{Seq: add("d"), Encoding: JSON, Body: []byte("d")})
			s.Close()
			if s, err = Open(d, Options{}); err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.TornBytes != 0 || len(s.Corrupt) != 0 {
				t.Errorf("reopen found torn bytes %d, corrupt %v", s.TornBytes, s.Corrupt)
			}
			if d := cmp.Diff(want, replay(t, s)); d != "" {
				t.Fatalf("replay after reopen (-want +got):\n%s", d)
			}
		})
	}
}

// TestReopenSmallerMaxBody: a spool reopened with a smaller MaxBody (a
// lower --max-line) than a request it holds was taken with is refused with
// an error naming the size, not cut as a torn tail: the request was
// answered 200. Reopened with room for it, it is replayed.
func TestReopenSmallerMaxBody(t *testing.T) {
	d, _ := openDir(t)
	s, err := Open(d, Options{MaxBody: 4096})
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 3000)
	for _, b := range [][]byte{[]byte("small"), big, []byte("after")} {
		if _, err := s.Append(Protobuf, b); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if s, err := Open(d, Options{MaxBody: 1024}); err == nil {
		s.Close()
		t.Fatalf("reopened with a MaxBody below a request held: no error (torn bytes %d, corrupt %v)", s.TornBytes, s.Corrupt)
	} else if !strings.Contains(err.Error(), "--max-line 3") {
		t.Errorf("the error does not name the --max-line that replays it: %v", err)
	}
	s, err = Open(d, Options{MaxBody: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := len(replay(t, s)); got != 3 || s.TornBytes != 0 {
		t.Errorf("reopened with room: %d records replayed, %d torn bytes; want 3 and 0", got, s.TornBytes)
	}
}
