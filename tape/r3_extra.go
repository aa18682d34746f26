// r3_extra.go: RuneCount, the length in code points of a string read in place (for trace's output limit and jsonpath's .length).

package tape

import "unicode/utf8"

// RuneCount is the number of code points of string v's decoded content,
// counted in place (a surrogate pair is one, as Bytes decodes it); 0 for
// any other kind.
func (v Value) RuneCount() int {
	if !v.Escaped() {
		return utf8.RuneCount(v.Raw())
	}
	n := 0
	for run := range v.Chunks() {
		if run != nil {
			n += utf8.RuneCount(run)
		} else {
			n++
		}
	}
	return n
}
