// loader.go holds DirLoader, the only file system access in the package.

package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
)

// maxDocumentSize bounds what DirLoader reads for one schema document.
const maxDocumentSize = 16 << 20

// DirLoader maps URI prefixes to local directories. A URI under a prefix maps to the file at the rest of the
// URI, with ".json" appended when that exact file does not exist; the longest matching prefix wins. Files
// are opened through os.OpenRoot, so no URI can reach outside its directory (no "..", no symlink escape).
// Nothing is read until Load is called.
func DirLoader(prefixes map[string]string) Loader {
	l := dirLoader{}
	for p, d := range prefixes {
		l.prefixes = append(l.prefixes, p)
		l.dirs = append(l.dirs, d)
	}
	// Longest prefix first.
	idx := make([]int, len(l.prefixes))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return len(l.prefixes[idx[a]]) > len(l.prefixes[idx[b]]) })
	sorted := dirLoader{}
	for _, i := range idx {
		sorted.prefixes = append(sorted.prefixes, l.prefixes[i])
		sorted.dirs = append(sorted.dirs, l.dirs[i])
	}
	return sorted
}

type dirLoader struct {
	prefixes []string
	dirs     []string
}

func (l dirLoader) Load(uri string) (any, error) {
	for i, p := range l.prefixes {
		rest, ok := strings.CutPrefix(uri, p)
		if !ok {
			continue
		}
		return loadFile(l.dirs[i], rest)
	}
	return nil, fmt.Errorf("no schema directory configured for %q", uri)
}

func loadFile(dir, name string) (any, error) {
	if name == "" || strings.ContainsAny(name, "?#") {
		return nil, fmt.Errorf("no file for %q", name)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = root.Open(name + ".json")
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", name)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxDocumentSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxDocumentSize {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, maxDocumentSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: trailing data after the JSON document", name)
	}
	return v, nil
}
