// duplicates.go: an object's member names compared, only when the parse's name bits say two may be equal.

package tape

// noteDuplicate records the first member of object obj whose name an
// earlier member of the same object has, when it comes before every
// duplicate recorded so far: the document's earliest repeat.
func (d *Doc) noteDuplicate(obj uint32) {
	keys := d.keys[:0]
	for k, i := obj+1, uint32(0); i < d.nodes[obj].n; i++ {
		keys = append(keys, k)
		k = d.nodes[k+1].next // past the member's value
	}
	d.keys = keys
	at := func(j int) {
		k := d.nodes[keys[j]]
		if off := int(k.start) - 1; d.dup == nil || off < d.dup.Offset {
			d.dup = &DuplicateKeyError{Offset: off, Key: string(Value{d, keys[j]}.Bytes())}
		}
	}
	escaped := false
	for _, k := range keys {
		escaped = escaped || d.nodes[k].n != 0
	}
	if len(keys) <= 16 && !escaped {
		// seen has the bit (nameBit) of each name so far: a name whose bit
		// is not set is new, and only the others are compared with the
		// names before them.
		var seen uint64
		for j, k := range keys {
			kj := &d.nodes[k]
			name := d.src[kj.start:kj.end]
			bit := nameBit(name)
			if seen&bit != 0 {
				for _, i := range keys[:j] {
					if ki := &d.nodes[i]; string(d.src[ki.start:ki.end]) == string(name) {
						at(j)
						return
					}
				}
			}
			seen |= bit
		}
		return
	}
	seen := make(map[string]bool, len(keys))
	for j, k := range keys {
		name := string(Value{d, k}.Bytes())
		if seen[name] {
			at(j)
			return
		}
		seen[name] = true
	}
}

// nameBit is one of 64 bits, chosen by a name's length and its first and
// last bytes: equal names have the same bit.
func nameBit(name []byte) uint64 {
	h := uint(len(name))
	if len(name) > 0 {
		h = h*31 + uint(name[0])*7 + uint(name[len(name)-1])
	}
	return 1 << (h & 63)
}
