// cache_test.go: the result cache's directory: persistence, atomic files, corruption and the size bound.

package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestResultCacheDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	c, err := newResultCache(2, dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	k1, k2, k3 := CacheKey("a"), CacheKey("b"), CacheKey("c")
	c.put(k1, []byte("one"))
	c.put(k2, []byte("two"))
	c.put(k3, []byte("three")) // evicts k1 from memory; the directory still has it
	if v, ok := c.get(k1); !ok || string(v) != "one" {
		t.Errorf("an entry evicted from memory is read back from the directory: %q %v", v, ok)
	}
	c2, err := newResultCache(2, dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := c2.get(k2); !ok || string(v) != "two" {
		t.Errorf("a later run reads the directory: %q %v", v, ok)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temp file %s left behind: writes must be atomic", e.Name())
		}
	}
	if CacheKey("ab", "c") == CacheKey("a", "bc") {
		t.Error("keys must not collide across part boundaries")
	}
	// The key names files that outlive the engine: it must not change.
	if k := CacheKey("embedding", "openai", "https://api.openai.com", "text-embedding-3-small", "Refund processed."); k != "11acd0118886081ee2f640fda12ae718744f6206051d6506d2e7d275cd36383c" {
		t.Errorf("CacheKey changed to %s: every cache_dir of earlier runs would be missed", k)
	}
}

func TestResultCacheCorruptAndBounded(t *testing.T) {
	dir := t.TempDir()
	c, err := newResultCache(1, dir, 100)
	if err != nil {
		t.Fatal(err)
	}
	k := CacheKey("x")
	os.WriteFile(filepath.Join(dir, k+".json"), []byte("garbage"), 0o600)
	v, ok := c.get(k)
	if ok {
		if _, vok := DecodeVector(v); vok {
			t.Error("a corrupt vector file must not decode")
		}
	}
	for i := range 20 {
		c.put(CacheKey("k", string(rune('a'+i))), []byte(strings.Repeat("v", 30)))
	}
	files := c.files()
	var total int64
	for _, f := range files {
		total += f.size
	}
	if len(files) == 0 || total > 100 {
		t.Errorf("directory holds %d files of %d bytes: want some kept, within the bound of 100", len(files), total)
	}
}

// TestResultCacheStaleTemps: the temporary file of a put killed before
// its rename (older than an hour) is removed when a cache opens the
// directory; a recent one may be another process's put in flight, and any
// other file is not the cache's.
func TestResultCacheStaleTemps(t *testing.T) {
	dir := t.TempDir()
	key := CacheKey("x")
	old := time.Now().Add(-2 * time.Hour)
	files := []struct {
		name string
		old  bool
		kept bool
	}{
		{"." + key + ".json.tmp123", true, false},
		{"." + key + ".json.tmp456", false, true},
		{".tmp-789", true, false}, // the name of earlier versions
		{".notes.json.tmp1", true, true},
		{key + ".json", true, true},
	}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, []byte("AEV1\x00\x00\x80\x3f"), 0o600); err != nil {
			t.Fatal(err)
		}
		if f.old {
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := newResultCache(2, dir, 1<<20); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		_, err := os.Stat(filepath.Join(dir, f.name))
		if kept := err == nil; kept != f.kept {
			t.Errorf("%s (old %v): kept %v, want %v", f.name, f.old, kept, f.kept)
		}
	}
}

func TestVectorEncoding(t *testing.T) {
	v := []float32{0.25, -1, 3.5e-8}
	got, ok := DecodeVector(EncodeVector(v))
	if !ok || len(got) != 3 || got[0] != v[0] || got[1] != v[1] || got[2] != v[2] {
		t.Errorf("round trip: %v %v", got, ok)
	}
	for _, bad := range []string{"", "AEV1", "AEV1abc", "XXXX0000"} {
		if _, ok := DecodeVector([]byte(bad)); ok {
			t.Errorf("DecodeVector(%q) accepted", bad)
		}
	}
}

// FuzzDecodeVector: a cache file holds anything (another program, a torn
// disk); what decodes is finite and is exactly what EncodeVector writes.
func FuzzDecodeVector(f *testing.F) {
	for _, s := range []string{"", "AEV1", "AEV1abc", "XXXX0000", "AEV1\x00\x00\x80\x3f", "AEV1\x00\x00\xc0\x7f", `{"score":1}`} {
		f.Add([]byte(s))
	}
	f.Add(EncodeVector([]float32{0.25, -1, 3.5e-8}))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := DecodeVector(b)
		if !ok {
			return
		}
		if len(v) == 0 || string(EncodeVector(v)) != string(b) {
			t.Fatalf("%q decodes to %v, which does not encode back", b, v)
		}
	})
}
