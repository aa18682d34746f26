// scan.go: reading a state dir's log without opening it for writing.

package history

import (
	"fmt"
	"path/filepath"
)

// Scan calls fn for every record of dir's log, oldest first, and changes
// nothing: a torn tail or corrupt frame ends its segment's records. It may
// run beside the process writing dir (it then sees a prefix of the log).
func Scan(dir string, fn func(Result) error) error {
	segs, err := listSegments(dir)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	for _, n := range segs {
		if _, _, err := scanSegment(filepath.Join(dir, segName(n)), 0, func(r Result, _ pos) error { return fn(r) }, n); err != nil {
			return err
		}
	}
	return nil
}
