// snapdecode.go: summaries.json decoded as a stream, every bound applied while it is read.

package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"attest-engine/clip"
)

// The bounds of a summaries file besides its keys and windows.
const (
	// MaxMerged bounds the ids of the state dirs merged into one (its
	// "merged" list, transitively): 65,536 ids of 16 hex digits. A merge
	// that would list more is refused.
	MaxMerged = 1 << 16
	// maxIDLen bounds a state dir's id (newDirID writes 16 hex digits).
	maxIDLen = 64
	// maxMembers bounds the members of the file's object and of each
	// key's, known or not (a later version's members are read, not kept).
	maxMembers = 64
	// maxValue bounds what the decoder may hold at once: one window, one
	// name, one member's value other than the keys, the windows and the
	// merged list (which are read an element at a time).
	maxValue = 1 << 20
)

// minWindowBytes is the fewest bytes of the file a window takes: the
// shortest window a store writes (every count 0). A window of fewer bytes is
// refused, so that the windows held take at most ~1.5 times the bytes of
// the file they were read from (a Summary is 152 bytes): "{}" a window
// was 3 bytes of the file for 152 of memory, and a 44 MiB file of them
// took 2 GiB.
var minWindowBytes = sync.OnceValue(func() int64 {
	b, _ := json.Marshal(Summary{})
	return int64(len(b))
})

// snapLimits are the bounds a summaries file is decoded within: more keys
// or windows than a store with them writes is an error, found when the one
// too many is read, not after the rest was.
type snapLimits struct {
	keys, windows int
}

// defaultLimits are the bounds of readers (report, merge sources): those
// of a store with the default bounds, the binary's.
var defaultLimits = snapLimits{keys: DefaultMaxKeys, windows: DefaultMaxWindows}

// boundedReader lets a json.Decoder read at most maxValue bytes past the
// position it has decoded to: one value, one name, or a run of white
// space longer than that is an error instead of a buffer that grows with
// the file.
type boundedReader struct {
	r    io.Reader
	dec  *json.Decoder
	read int64
}

var errValueTooLong = errors.New("a value, name or run of white space longer than " + strconv.Itoa(maxValue) + " bytes")

func (b *boundedReader) Read(p []byte) (int, error) {
	room := maxValue - (b.read - b.dec.InputOffset())
	if room <= 0 {
		return 0, errValueTooLong
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	return n, err
}

// snapDecoder decodes one summaries file.
type snapDecoder struct {
	dec *json.Decoder
	lim snapLimits
}

// decodeSnapshot decodes a summaries file from r within lim: the keys,
// each key's windows and the merged list are read an element at a time,
// each counted against its bound as it comes; each window must take at
// least minWindowBytes of the file; names (of keys, types, result ids)
// at most MaxField bytes; no member twice. The members it does not stream
// are decoded as json.Unmarshal decodes a snapshot.
func decodeSnapshot(r io.Reader, lim snapLimits) (*snapshot, error) {
	br := &boundedReader{r: r}
	dec := json.NewDecoder(br)
	br.dec = dec
	d := &snapDecoder{dec: dec, lim: lim}
	snap := &snapshot{Keys: map[string]*series{}}
	_, err := d.object(func(name string) error {
		switch name {
		case "keys":
			return d.keys(snap.Keys)
		case "merged":
			return d.merged(&snap.Merged)
		}
		return errMember
	}, func(rest []byte) error { return json.Unmarshal(rest, snap) })
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the summaries' object")
	}
	if len(snap.ID) > maxIDLen {
		return nil, fmt.Errorf("a state dir id of %d bytes (at most %d)", len(snap.ID), maxIDLen)
	}
	return snap, nil
}

// errMember: the member is not streamed; object collects it.
var errMember = errors.New("not streamed")

// token reads a token; the end of the input inside a value is
// io.ErrUnexpectedEOF (a file cut short).
func (d *snapDecoder) token() (json.Token, error) {
	t, err := d.dec.Token()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return t, err
}

// object reads an object, handing each member's name to member, which
// reads its value or returns errMember; those members' values are
// collected (at most maxValue bytes of them, names included, as for one
// value), re-encoded as one object, and handed to rest. It reports false
// for null.
func (d *snapDecoder) object(member func(name string) error, rest func([]byte) error) (bool, error) {
	t, err := d.token()
	if err != nil {
		return false, err
	}
	if t == nil {
		return false, nil
	}
	if t != json.Delim('{') {
		return false, fmt.Errorf("cannot unmarshal %s into an object", kind(t))
	}
	seen := map[string]bool{}
	others := map[string]json.RawMessage{}
	held := 0 // the bytes of others: at most maxValue, as one value
	for d.dec.More() {
		t, err := d.token()
		if err != nil {
			return true, err
		}
		name, _ := t.(string)
		if seen[name] {
			return true, fmt.Errorf("member %q twice", clipName(name))
		}
		seen[name] = true
		switch err := member(name); err {
		case nil:
		case errMember:
			if len(others) >= maxMembers {
				return true, fmt.Errorf("more than %d members in an object", maxMembers)
			}
			var raw json.RawMessage
			if err := d.dec.Decode(&raw); err != nil {
				return true, err
			}
			if held += len(name) + len(raw); held > maxValue {
				return true, fmt.Errorf("members not read of more than %d bytes in one object", maxValue)
			}
			others[name] = raw
		default:
			return true, err
		}
	}
	if _, err := d.token(); err != nil { // '}'
		return true, err
	}
	b, err := json.Marshal(others)
	if err != nil {
		return true, err
	}
	return true, rest(b)
}

// array reads an array (or null), calling elem for each element.
func (d *snapDecoder) array(elem func() error) error {
	t, err := d.token()
	if err != nil || t == nil {
		return err
	}
	if t != json.Delim('[') {
		return fmt.Errorf("cannot unmarshal %s into an array", kind(t))
	}
	for d.dec.More() {
		if err := elem(); err != nil {
			return err
		}
	}
	_, err = d.token() // ']'
	return err
}

// keys reads the keys' object into keys. Every member counts against the
// bound, a null one (no series) too: the names object holds to refuse a
// repeated one are as many as its members.
func (d *snapDecoder) keys(keys map[string]*series) error {
	members := 0
	_, err := d.object(func(name string) error {
		if len(name) > MaxField {
			return fmt.Errorf("an assertion name of %d bytes (at most %d)", len(name), MaxField)
		}
		if members++; members > d.lim.keys {
			return fmt.Errorf("more than %d assertions", d.lim.keys)
		}
		sr, err := d.series(name)
		if sr != nil {
			keys[name] = sr
		}
		return err
	}, func(rest []byte) error { return nil }) // every member is a key
	return err
}

// series reads one key's series (nil for null).
func (d *snapDecoder) series(key string) (*series, error) {
	sr := &series{}
	present, err := d.object(func(name string) error {
		if name != "windows" {
			return errMember
		}
		return d.array(func() error {
			if len(sr.Windows) >= d.lim.windows {
				return fmt.Errorf("assertion %q: more than %d windows", clipName(key), d.lim.windows)
			}
			from := d.dec.InputOffset()
			var w Summary
			if err := d.dec.Decode(&w); err != nil {
				return err
			}
			if n := d.dec.InputOffset() - from; n < minWindowBytes() {
				return fmt.Errorf("assertion %q: a window of %d bytes (a store writes at least %d)", clipName(key), n, minWindowBytes())
			}
			if n := len(sr.Windows); n > 0 && w.Window <= sr.Windows[n-1].Window {
				return fmt.Errorf("windows of %q out of order", clipName(key))
			}
			sr.Windows = append(sr.Windows, w)
			return nil
		})
	}, func(rest []byte) error {
		windows := sr.Windows
		if err := json.Unmarshal(rest, sr); err != nil {
			return err
		}
		sr.Windows = windows
		if len(sr.Type) > MaxField || len(sr.Latest.ResultID) > MaxField || len(sr.Label) > MaxField {
			return fmt.Errorf("assertion %q: a type, label or result id longer than %d bytes", clipName(key), MaxField)
		}
		return nil
	})
	if err != nil || !present {
		return nil, err // null: no series
	}
	return sr, nil
}

// merged reads the merged ids, at most MaxMerged of at most maxIDLen bytes.
func (d *snapDecoder) merged(ids *[]string) error {
	return d.array(func() error {
		if len(*ids) >= MaxMerged {
			return fmt.Errorf("more than %d merged state dirs", MaxMerged)
		}
		var id string
		if err := d.dec.Decode(&id); err != nil {
			return err
		}
		if len(id) > maxIDLen {
			return fmt.Errorf("a merged state dir id of %d bytes (at most %d)", len(id), maxIDLen)
		}
		*ids = append(*ids, id)
		return nil
	})
}

// kind names a token's JSON type, for errors.
func kind(t json.Token) string {
	switch t := t.(type) {
	case json.Delim:
		if t == '[' {
			return "an array"
		}
		return "an object"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// clipName shortens a name quoted in an error.
func clipName(s string) string { return clip.String(s, 64) }
