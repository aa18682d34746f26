// cache.go: the cache of judge verdicts and embedding vectors: a bounded LRU, optionally backed by a directory; the vector encoding it keeps.

package provider

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"attest-engine/atomicfile"
	"attest-engine/lru"
)

// maxCacheValue bounds one cached value read back from the directory.
const maxCacheValue = 1 << 20

// maxMemBytes bounds the encoded answers held in memory: entries alone would
// allow resultCacheSize vectors of maxEmbeddingDims, about 1 GiB, from a
// provider that answers with the largest vectors it may.
const maxMemBytes = 64 << 20

// resultCache maps a key (CacheKey of everything that affects an answer) to
// an encoded answer. Memory is bounded by entries and by maxMemBytes; the
// directory, when set, by bytes: one file per key, written atomically (package atomicfile), the
// least recently used files removed first. The cache is best-effort: a
// directory that cannot be read or written behaves as a miss.
type resultCache struct {
	mem    *lru.Cache[string, []byte]
	dir    string
	maxDir int64

	mu       sync.Mutex // guards dirBytes and pruning
	dirBytes int64
}

func newResultCache(entries int, dir string, maxDir int64) (*resultCache, error) {
	mem := lru.NewWeighted[string, []byte](entries, maxMemBytes, func(v []byte) int64 { return int64(len(v)) })
	c := &resultCache{mem: mem, dir: dir, maxDir: maxDir}
	if dir == "" {
		return c, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	c.removeStaleTemps()
	for _, f := range c.files() {
		c.dirBytes += f.size
	}
	return c, nil
}

// staleTemp is the age past which a temporary file of a put is a leftover
// of a process killed in the middle of it (a put takes milliseconds;
// another process may share the directory, so age is the only sign).
const staleTemp = time.Hour

// removeStaleTemps removes the temporary files of puts that a kill left
// (".<key>.json.tmp…", package atomicfile's names): the size bound counts
// cache files only, and every kill in a put would leave up to
// maxCacheValue bytes more.
func (c *resultCache) removeStaleTemps() {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		target, ours := atomicfile.TempTarget(name)
		ours = ours && isCacheName(target)
		// ".tmp-" and a number: the name before package atomicfile.
		if !e.Type().IsRegular() || !ours && !strings.HasPrefix(name, ".tmp-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleTemp {
			_ = os.Remove(filepath.Join(c.dir, name))
		}
	}
}

// CacheKey hashes the parts, each length-prefixed so that no two lists of
// parts share a key.
func CacheKey(parts ...string) string {
	const domain = "attest-result-cache-v1"
	n := len(domain)
	for _, p := range parts {
		n += 8 + len(p)
	}
	b := make([]byte, 0, n) // one buffer: hash.Hash's Write would copy each part to the heap
	b = append(b, domain...)
	for _, p := range parts {
		b = binary.BigEndian.AppendUint64(b, uint64(len(p)))
		b = append(b, p...)
	}
	sum := sha256.Sum256(b)
	var h [2 * sha256.Size]byte
	hex.Encode(h[:], sum[:])
	return string(h[:])
}

func (c *resultCache) get(key string) ([]byte, bool) {
	if v, ok := c.mem.Get(key); ok {
		return v, true
	}
	if c.dir == "" {
		return nil, false
	}
	path := c.path(key)
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxCacheValue {
		return nil, false
	}
	v, err := os.ReadFile(path)
	if err != nil || len(v) > maxCacheValue {
		return nil, false
	}
	now := time.Now()
	_ = os.Chtimes(path, now, now) // recently used: pruned last
	c.mem.Put(key, v)
	return v, true
}

func (c *resultCache) put(key string, v []byte) {
	c.mem.Put(key, v)
	if c.dir == "" || len(v) > maxCacheValue {
		return
	}
	// SyncData: the content is on disk before its name is. Unsynced, a power
	// loss can leave a file cut short, and a vector cut at a page boundary
	// (4 + 4k bytes) decodes as a valid shorter one: every later run then
	// fails that text with "vectors of different dimensions" until the user
	// empties cache_dir. The fsync (~1–3 ms, BenchmarkWrite in atomicfile)
	// follows a provider call of 100 ms or more. The directory is not
	// synced: a rename lost is a cache miss.
	err := atomicfile.Write(c.path(key), 0o600, atomicfile.SyncData, func(w io.Writer) error {
		_, err := w.Write(v)
		return err
	})
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dirBytes += int64(len(v))
	if c.dirBytes > c.maxDir {
		c.prune()
	}
}

func (c *resultCache) path(key string) string { return filepath.Join(c.dir, key+".json") }

type cacheFile struct {
	path string
	size int64
	mod  time.Time
}

// isCacheName says whether name is a cache file's (path): 64 hex digits
// and ".json".
func isCacheName(name string) bool {
	if len(name) != 69 || !strings.HasSuffix(name, ".json") {
		return false
	}
	_, err := hex.DecodeString(name[:64])
	return err == nil
}

// files lists the cache's own files (isCacheName).
func (c *resultCache) files() []cacheFile {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return nil
	}
	var out []cacheFile
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !isCacheName(name) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, cacheFile{filepath.Join(c.dir, name), info.Size(), info.ModTime()})
	}
	return out
}

// prune removes the least recently used files until the directory is at
// 90% of its bound; it recounts, so files of other runs are included.
// Called with c.mu held.
func (c *resultCache) prune() {
	files := c.files()
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	var total int64
	for _, f := range files {
		total += f.size
	}
	target := c.maxDir / 10 * 9
	for _, f := range files {
		if total <= target {
			break
		}
		if err := os.Remove(f.path); err == nil || errors.Is(err, fs.ErrNotExist) {
			total -= f.size
		}
	}
	c.dirBytes = total
}

// flights lets concurrent misses of one key share one provider call: the
// first caller claims the key and computes; later callers wait for it to
// finish and read the cache again (computing themselves if it failed).
type flights struct {
	mu sync.Mutex
	m  map[string]chan struct{}
}

// claim returns release when the caller owns key (it must call release
// once the result is cached, or on failure), else the channel to wait on.
func (f *flights) claim(key string) (release func(), wait <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ch, ok := f.m[key]; ok {
		return nil, ch
	}
	if f.m == nil {
		f.m = map[string]chan struct{}{}
	}
	ch := make(chan struct{})
	f.m[key] = ch
	return func() {
		f.mu.Lock()
		delete(f.m, key)
		f.mu.Unlock()
		close(ch)
	}, nil
}

// Cached vectors: "AEV1" and the float32 values, little-endian.
const vectorMagic = "AEV1"

// EncodeVector is a vector as the cache keeps it.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 0, len(vectorMagic)+4*len(v))
	b = append(b, vectorMagic...)
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// DecodeVector reads EncodeVector's bytes; false for anything else, or a
// non-finite value.
func DecodeVector(b []byte) ([]float32, bool) {
	if len(b) <= len(vectorMagic) || string(b[:len(vectorMagic)]) != vectorMagic || (len(b)-len(vectorMagic))%4 != 0 {
		return nil, false
	}
	b = b[len(vectorMagic):]
	v := make([]float32, len(b)/4)
	for i := range v {
		f := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return nil, false
		}
		v[i] = f
	}
	return v, true
}
