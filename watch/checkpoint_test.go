package watch

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"attest-engine/safedir"
)

// FuzzCheckpoint: a checkpoint file of any content is read without a panic
// and either refused or, when accepted, judged against an input file
// without one; a checkpoint written is read back as it was.
func FuzzCheckpoint(f *testing.F) {
	f.Add([]byte(`{"version":1,"path":"/x","dev":1,"inode":2,"fingerprint":"00","fingerprint_bytes":1,"offset":5,"seq":3,"mark":7}`))
	f.Add([]byte(`{"version":1,"offset":-1}`))
	f.Add([]byte(`{"version":1,"fingerprint_bytes":99999}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := t.TempDir()
		d, err := safedir.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		os.WriteFile(filepath.Join(path, checkpointFile), data, 0o644)
		cp, err := readCheckpoint(d)
		if err != nil || cp == nil {
			return
		}
		in := filepath.Join(path, "in")
		os.WriteFile(in, []byte("line\n"), 0o644)
		fi, err := os.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		defer fi.Close()
		cp.resumes(fi)
		if err := writeCheckpoint(d, *cp, false); err != nil {
			t.Fatal(err)
		}
		back, err := readCheckpoint(d)
		if err != nil || back == nil || *back != *cp {
			t.Fatalf("written %+v, read back %+v (%v)", *cp, back, err)
		}
	})
}

// TestCheckpointPlanted: a checkpoint that is a link is refused, not
// followed.
func TestCheckpointPlanted(t *testing.T) {
	path := t.TempDir()
	outside := filepath.Join(t.TempDir(), "cp")
	os.WriteFile(outside, []byte(`{"version":1}`), 0o644)
	if err := os.Symlink(outside, filepath.Join(path, checkpointFile)); err != nil {
		t.Skip(err)
	}
	d, err := safedir.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if cp, err := readCheckpoint(d); err == nil {
		t.Errorf("a checkpoint that is a link was read: %+v", cp)
	}
}

// TestCheckpointAtStart: an input read from its start is checkpointed at
// once (its identity, offset 0), so that a restart before the first
// periodic checkpoint goes on in the same numbering; the next start
// resumes from it and leaves it as it is.
func TestCheckpointAtStart(t *testing.T) {
	dir := t.TempDir()
	in, state := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "state")
	os.Mkdir(state, 0o700)
	os.WriteFile(in, []byte("{}\n"), 0o644)
	for i := range 2 {
		o, log, code := parse([]string{"--suite", "../testdata/watch/suite.json", "--in", in, "--state-dir", state, "--log-level", "error"}, io.Discard, testEnv(nil))
		if log == nil {
			t.Fatalf("parse: exit %d", code)
		}
		c, err := newCommand(o, testEnv(nil), log)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		c.dur = &durable{c: c}
		if err := c.dur.resume(f); err != nil {
			t.Fatal(err)
		}
		cp, err := readCheckpoint(c.dur.dir)
		if err != nil || cp == nil || cp.Offset != 0 || cp.Seq != 0 {
			t.Errorf("start %d: checkpoint %+v (%v); want one at offset 0", i, cp, err)
		}
		c.dur.close()
		f.Close()
	}
}
