// dedupe.go: watch's result lines as docs/watch.md says to read them: a line written twice counts once,
// and a verdict that supersedes another takes its place.

package rundiff

import (
	"encoding/hex"
	"hash/fnv"
)

// resultIDHash is 64 bits of a result_id: its first 8 bytes when it is 32 hex digits, as watch writes it,
// else its FNV-1a hash; never 0, which stands for no result_id. Ids are only compared within the results
// of one (case, assertion, repeat), where two of 2⁶⁴ values meet by chance with no practical likelihood.
func resultIDHash(id []byte) uint64 {
	if len(id) == 0 {
		return 0
	}
	var h uint64
	var b [8]byte
	if len(id) == 32 {
		if _, err := hex.Decode(b[:], id[:16]); err == nil && isHex(id[16:]) {
			for _, c := range b {
				h = h<<8 | uint64(c)
			}
		}
	}
	if h == 0 {
		f := fnv.New64a()
		f.Write(id)
		h = f.Sum64()
	}
	return max(h, 1)
}

func isHex(s []byte) bool {
	for i := range len(s) {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// dedupe collapses, within each run of entries that share an id (sorted by position), the watch lines
// docs/watch.md says to de-duplicate: a line whose result_id came before is skipped, and a line that
// supersedes a result_id seen before takes that line's place (its pair in the other run is the one the
// replaced line had). Lines without a result_id stay as they are.
func (r *run) dedupe() {
	for b, es := range r.buckets {
		out := es[:0]
		for i := 0; i < len(es); {
			j := i + 1
			for j < len(es) && sameID(&es[j], &es[i]) {
				j++
			}
			g := es[i:j]
			if len(g) > 1 {
				var dropped int
				g, dropped = collapse(g, r.supersedes)
				r.replaced += dropped
			}
			out = append(out, g...)
			i = j
		}
		clear(es[len(out):])
		r.buckets[b] = out
	}
	r.supersedes = nil
}

// collapse is dedupe within one id's entries, in place; it returns those kept and how many it left out.
// A result_id is looked up among those seen by a scan while they are few, else in a map, so that a run of
// one id repeated many times costs time in proportion to its length.
func collapse(g []entry, supersedes map[int32]uint64) ([]entry, int) {
	type seen struct {
		rid  uint64
		slot int
	}
	var list []seen
	var index map[uint64]int
	find := func(rid uint64) int {
		if index != nil {
			if s, ok := index[rid]; ok {
				return s
			}
			return -1
		}
		for _, s := range list {
			if s.rid == rid {
				return s.slot
			}
		}
		return -1
	}
	add := func(rid uint64, slot int) {
		if index != nil {
			index[rid] = slot
			return
		}
		list = append(list, seen{rid, slot})
		if len(list) > 16 {
			index = make(map[uint64]int, len(g))
			for _, s := range list {
				index[s.rid] = s.slot
			}
		}
	}
	kept, dropped := 0, 0
	for i := range g {
		e := g[i]
		switch {
		case e.rid != 0 && find(e.rid) >= 0: // the same verdict written again
			dropped++
		case supersedes[e.pos] != 0 && find(supersedes[e.pos]) >= 0: // a later verdict in the place of the one it supersedes
			slot := find(supersedes[e.pos])
			g[slot] = e
			if e.rid != 0 {
				add(e.rid, slot)
			}
			dropped++
		default:
			g[kept] = e
			if e.rid != 0 {
				add(e.rid, kept)
			}
			kept++
		}
	}
	return g[:kept], dropped
}
